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


def memory_with_said(said: list[tuple], agent_id: str = "default") -> _AgentMemory:
    """A fresh agent (config from the environment, its own local index) whose index holds `said`: (text, the day it
    was said as YYYY-MM-DD[, more metadata]) rows as a note's turns, ids m0, m1, … Close its archive when done."""
    import datetime as dt
    import os

    from memoryd.tiers.base.config import load_config
    from memoryd.tiers.cold.source import open_index

    config = load_config(dict(os.environ))
    mem = AgentMemory(config, agent_id, archive=open_index(config))
    mem.init()
    mem.archive.put(agent_id, [
        {"id": f"m{i}", "text": text, "category": "notes", "importance": 0.5, "metadata": {"date": day, **more},
         "created_at": int(dt.datetime.fromisoformat(day).replace(tzinfo=dt.timezone.utc).timestamp())}
        for i, (text, day, *extra) in enumerate(said) for more in [extra[0] if extra else {}]])
    return mem
