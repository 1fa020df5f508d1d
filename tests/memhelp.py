"""AgentMemory as the application builds it (daemon/engine.py Engine.memory): with the device's local index."""
from __future__ import annotations

import time
from typing import Any, Callable

from memoryd.tiers.cold.source import LazyIndex
from memoryd.tiers.memory.agent import AgentMemory as _AgentMemory
from memoryd.tiers.base.config import Config


def AgentMemory(config: Config, agent_id: str, archive: Any = None,  # noqa: N802 - stands in for the class
                clock: Callable[[], float] = time.time) -> _AgentMemory:
    return _AgentMemory(config, agent_id, archive=archive if archive is not None else LazyIndex(config, clock),
                        clock=clock)
