"""What every operation runs against in this process: the config, and the device's local index through one
IndexSource (shared by all requests in the daemon, one connection per use in a CLI process)."""
from __future__ import annotations

import time
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Callable, Iterator

from memoryd.tiers.base.config import AGENT_ID_RE, Config, validate_agent_id

if TYPE_CHECKING:
    from memoryd.tiers.memory.agent import AgentMemory

Params = dict[str, Any]


def agent_of(params: Params) -> str:
    """The agent an operation's params name (`default` when they name none), checked."""
    return validate_agent_id(params.get("agent_id", "default"))


def agent_ids(config: Config) -> list[str]:
    """Every agent with a directory on this device."""
    root = config.agents_dir()
    if not root.is_dir():
        return []
    return sorted(p.name for p in root.iterdir() if p.is_dir() and AGENT_ID_RE.fullmatch(p.name))


class Engine:
    """The config and the local index that operations work with; the owner closes it (close())."""

    def __init__(self, config: Config, *, shared: bool = False) -> None:
        from memoryd.tiers.cold.source import IndexSource

        self.config = config
        self.indexes = IndexSource(config, shared=shared)
        if config.section("render"):  # configured harness files follow the hot changes made in this process
            from memoryd.daemon.render_targets import install

            install(config)

    @contextmanager
    def memory(self, agent_id: str, clock: Callable[[], float] = time.time) -> Iterator[AgentMemory]:
        """An AgentMemory for `agent_id` with the device's local index (local SQLite, no network, opened at
        first use; entries leaving warm go there)."""
        from memoryd.tiers.memory.agent import AgentMemory

        archive = self.indexes.lazy(clock)
        try:
            yield AgentMemory(self.config, validate_agent_id(agent_id), archive=archive, clock=clock)
        finally:
            archive.close()

    def close(self) -> None:
        self.indexes.close()
