"""Where a process gets the device's local index: a connection of its own per use (a CLI command), or one
long-lived connection shared by every request (the daemon), decided by the caller when it builds its IndexSource."""
from __future__ import annotations

import threading
import time
from typing import Any, Callable

from memoryd.tiers.base.config import Config
from memoryd.tiers.cold.index import LocalIndex
from memoryd.tiers.cold.index_rows import Progress
from memoryd.tiers.cold.index_file import index_path


class IndexSource:
    """Opens the local index for `config`. `shared`: one connection for the whole process, opened at first use
    and closed by close() (closing a connection checkpoints the WAL with an fsync: ~10 ms a request in a
    long-lived process that kept none open); else every lazy() index opens and closes its own."""

    def __init__(self, config: Config, *, shared: bool = False) -> None:
        self.config = config
        self.shared = shared
        self._lock = threading.Lock()
        self._index: LocalIndex | None = None

    def lazy(self, clock: Callable[[], float] = time.time) -> "LazyIndex":
        return LazyIndex(self, clock)

    def acquire(self, clock: Callable[[], float] = time.time) -> LocalIndex:
        """An open index: the shared one, or a new one the caller closes."""
        if not self.shared:
            return open_index(self.config, clock=clock)
        with self._lock:
            if self._index is None or not self._index.is_open:
                self._index = open_index(self.config)
            return self._index

    def close(self) -> None:
        with self._lock:
            index, self._index = self._index, None
        if index is not None:
            index.close()


class LazyIndex:
    """The local index, opened at its first use: a command refused before it touches the archive
    (bad input) creates no database file. From a shared source, close() leaves the connection open."""

    def __init__(self, source: IndexSource | Config, clock: Callable[[], float] = time.time) -> None:
        self._source = source if isinstance(source, IndexSource) else IndexSource(source)
        self._clock = clock
        self._index: LocalIndex | None = None

    def __getattr__(self, name: str) -> Any:
        if self._index is None:
            self._index = self._source.acquire(self._clock)
        return getattr(self._index, name)

    def close(self) -> None:
        if self._index is not None and not self._source.shared:
            self._index.close()
        self._index = None


def open_index(config: Config, *, clock: Callable[[], float] = time.time, progress: Progress | None = None) -> LocalIndex:
    """The device's local index for this config (the archive itself with a `file:` URL)."""
    return _attach(LocalIndex(index_path(config), remote=not config.db_url.startswith("file:"), clock=clock,
                              progress=progress), config)


def _attach(index: LocalIndex, config: Config) -> LocalIndex:
    """Hybrid mode: memories get their vectors as they arrive (tiers/cold/vectors.py; not even imported otherwise)."""
    from memoryd.tiers.retrieval.embed import hybrid_ready

    if hybrid_ready(config)[0]:
        from memoryd.tiers.cold.vectors import attach

        attach(index, config)
    return index
