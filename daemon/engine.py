"""What every operation runs against in this process: the config, and the device's local index through one
IndexSource (shared by all requests in the daemon, one connection per use in a CLI process)."""
from __future__ import annotations

import time
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterator

from memoryd.tiers.base.config import AGENT_ID_RE, Config, validate_agent_id

if TYPE_CHECKING:
    from memoryd.tiers.memory.agent import AgentMemory

Params = dict[str, Any]
Clock = Callable[[], float]


def file_clock(path: Path) -> Clock:
    """A wall clock read from a file (tests); keeps the last good value if the file is mid-rewrite."""
    last = [time.time()]

    def now() -> float:
        try:
            last[0] = float(path.read_text().strip())
        except (OSError, ValueError):
            pass
        return last[0]

    return now


def clock_of(config: Config) -> Clock:
    """This process's "now" for consolidation, the digest and the daemon's decisions: real time, or the driven
    one of MEMORYD_CLOCK_FILE (a test hook: decay and sealing tested through the CLI by setting the file)."""
    return file_clock(config.clock_file) if config.clock_file else time.time


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
        self.clock = clock_of(config)  # consolidate and the knowledge jobs run on it; stores keep the real time
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
