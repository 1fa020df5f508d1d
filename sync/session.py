"""One sync operation of one agent: its memory and local index, its sync files, its key, and the database
(opened at first use; a fresh database gets its schema on the first statement that misses a table)."""
from __future__ import annotations

import json
from typing import Any

from memoryd.tiers.base.atomic import dumps
from memoryd.tiers.base.config import Config
from memoryd.tiers.base.errors import CryptoError
from memoryd.tiers.cold.source import open_index
from memoryd.tiers.memory.agent import AgentMemory

from memoryd.sync.crypto.keys import load_key, read_key_file
from memoryd.sync.crypto.seal import open_text, seal_text
from memoryd.sync.device_files import KIND, SyncFiles
from memoryd.sync.merge.replica import Replica, valid_replica
from memoryd.sync.remote.errors import MissingTableError
from memoryd.sync.remote.result import Result, Stmt


def agent_key(config: Config, agent_id: str) -> bytes:
    """The key file if present, else MEMORYD_KEY; neither → UsageError."""
    return read_key_file(config.key_path(agent_id)) or load_key(config, agent_id)


class Session:
    """One sync operation of one agent: memory, sync files, key and a (lazily opened) database."""

    def __init__(self, config: Config, agent_id: str, *, db: Any = None, key: bytes | None = None) -> None:
        self.config = config
        self.agent_id = agent_id
        self.index = open_index(config)  # local: where entries leaving warm in a merge go
        self.mem = AgentMemory(config, agent_id, archive=self.index)
        self.files = SyncFiles(config, agent_id)
        self._key = key
        self._db = db
        self._own_db = db is None
        self.round_trips = 0
        self.bytes_sent = 0
        self.conflicts = 0
        self.purge_history = False  # after a forget: older versions (which still hold it) go too
        self.check: dict[str, Any] = {}  # what the last look at the server found (for `status`)

    @property
    def key(self) -> bytes:
        if self._key is None:
            self._key = agent_key(self.config, self.agent_id)
        return self._key

    @property
    def db(self) -> Any:
        if self._db is None:
            from memoryd.sync.remote.db import connect

            self._db = connect(self.config, check=False)  # the first statement is the check: one round trip
        return self._db

    @property
    def is_file(self) -> bool:
        return self.config.db_url.startswith("file:")

    def memory_at(self, now: float) -> AgentMemory:
        """The agent's memory with its clock at `now`, for writing a merged state at a data-derived time.
        It shares this session's agent lock (held by the caller: a second lock on the file would wait for
        it) and its state files (which know what was last read, so unchanged files are not rewritten)."""
        timed = AgentMemory(self.config, self.agent_id, archive=self.index, clock=lambda: now)
        timed.lock, timed.files = self.mem.lock, self.mem.files
        return timed

    def close(self) -> None:
        if self._own_db and self._db is not None:
            self._db.close()
            self._db = None
        self.index.close()

    def _call(self, fn: Any, *args: Any) -> Any:
        try:
            self.round_trips += 1
            return fn(*args)
        except MissingTableError:
            pass
        from memoryd.sync.remote.schema import ensure_schema  # first use of a fresh database

        ensure_schema(self.db)
        self.round_trips += 1
        return fn(*args)

    def execute(self, sql: str, args: list[Any]) -> Result:
        return self._call(self.db.execute, sql, args)

    def batch(self, stmts: list[Stmt]) -> list[Result]:
        return self._call(self.db.batch, stmts)

    def seal(self, rep: Replica, version: int) -> str:
        return seal_text(self.key, dumps(rep), agent_id=self.agent_id, kind=KIND, version=version)

    def open(self, version: int, data: str) -> Replica:
        plain = open_text(self.key, data, agent_id=self.agent_id, kind=KIND, version=version)
        try:
            return valid_replica(json.loads(plain.decode("utf-8")))
        except (ValueError, UnicodeDecodeError) as exc:
            raise CryptoError(f"critical state v{version} of agent {self.agent_id} is malformed: {exc}") from None
