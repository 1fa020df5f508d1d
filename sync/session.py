"""One sync operation of one agent: its memory and local index, its sync files, its key, and the database
(opened at first use; a fresh database gets its schema on the first statement that misses a table)."""
from __future__ import annotations

import json
import time
from typing import Any

from memoryd.tiers.base.atomic import dumps
from memoryd.tiers.base.config import Config
from memoryd.tiers.base.errors import CryptoError, MemorydError, TokenError
from memoryd.tiers.cold.source import open_index
from memoryd.tiers.memory.agent import AgentMemory

from memoryd.sync.crypto.device_keys import KeyRing, load_ring
from memoryd.sync.crypto.keys import load_key, read_key_file
from memoryd.sync.crypto.seal import open_text, seal_text
from memoryd.sync.device_files import KIND, SyncFiles
from memoryd.sync.merge.replica import Replica, valid_replica
from memoryd.sync.remote.errors import MissingTableError
from memoryd.sync.remote.result import Result, Stmt


def agent_key(config: Config, agent_id: str) -> bytes:
    """The key file if present, else MEMORYD_KEY; neither → UsageError."""
    return read_key_file(config.key_path(agent_id)) or load_key(config, agent_id)


def critical_kind(epoch: int) -> str:
    """The critical state's associated-data kind: epoch 0 keeps the kind of schema v1/v2 (old rows open)."""
    return KIND if not epoch else f"{KIND}@e{int(epoch)}"


def require_admin_token(config: Config, command: str) -> None:
    """Refuse (exit 2, one line naming the token) a command that destroys data on the server when the
    deployment keeps that for MEMORYD_ADMIN_TOKEN and this process lacks it."""
    if config.sync.separate_admin_token and not config.admin_token and not config.db_url.startswith("file:"):
        raise TokenError(f"memoryd {command} destroys data on the server: it needs MEMORYD_ADMIN_TOKEN (the token "
                         f"held apart; [sync] separate_admin_token is on, so MEMORYD_DB_TOKEN is not used for it)")


class Session:
    """One sync operation of one agent: memory, sync files, key and a (lazily opened) database."""

    def __init__(self, config: Config, agent_id: str, *, db: Any = None, key: bytes | None = None) -> None:
        self.config = config
        self.agent_id = agent_id
        self.index = open_index(config)  # local: where entries leaving warm in a merge go
        self.mem = AgentMemory(config, agent_id, archive=self.index)
        self.files = SyncFiles(config, agent_id)
        self._key = key  # an explicit epoch-0 key (restore from a key file, tests)
        self._ring: KeyRing | None = None
        self.keys_checked = False  # the key check ran in this session (sync/epochs.py)
        self.register = True  # an unenrolled device at epoch 0 enrols itself at the check (not during restore)
        self._db = db
        self._own_db = db is None
        self.round_trips = 0
        self.bytes_sent = 0  # every sealed byte sent: critical_bytes + log_bytes
        self.critical_bytes = 0  # sealed critical-state envelopes (hot, tree, warm)
        self.log_bytes = 0  # sealed memory-log rows (archived memories, forgets)
        self.change_bytes = 0  # the sealed size of the changed items alone (what a push's change is)
        self.conflicts = 0
        self.purge_history = False  # after a forget: older versions (which still hold it) go too
        self.destroys: str | None = None  # the command, when this session deletes on purpose (shred, reseal)
        self.check: dict[str, Any] = {}  # what the last look at the server found (for `status`)

    @property
    def key(self) -> bytes:
        """The current epoch's data key (after the key check)."""
        return self.ring.current_key()

    def local_ring(self) -> KeyRing:
        """The keys this device holds, as on disk (no network); no key at all → UsageError."""
        if self._ring is None:
            legacy = self._key
            env_key = self.config.recovery_key
            if (legacy is None and env_key and not env_key.strip().lower().startswith("mdr1")
                    and read_key_file(self.config.key_path(self.agent_id)) is None):
                legacy = agent_key(self.config, self.agent_id)  # MEMORYD_KEY holding an mdk1 key (not mdr1)
            ring = load_ring(self.config, self.agent_id, legacy)
            if ring is None:
                load_key(self.config, self.agent_id)  # raises the usual "no key" usage error
                raise AssertionError("unreachable")
            self._ring = ring
        return self._ring

    def use_ring(self, ring: KeyRing) -> None:
        """Sync with these keys (a device just enrolled by code or recovery key)."""
        self._ring = ring

    @property
    def ring(self) -> KeyRing:
        """The keys, checked against the server once per session (its own round trip only when no
        statement carried the check already)."""
        ring = self.local_ring()
        if not self.keys_checked:
            self.execute("SELECT 1", [])
        return ring

    def refresh_keys(self) -> KeyRing:
        """Check again now (before starting an epoch, or after a write the server refused as stale)."""
        self.keys_checked = False
        return self.ring

    def _check_due(self) -> bool:
        if self.keys_checked:
            return False
        try:
            self.local_ring()
        except MemorydError:
            self.keys_checked = True  # no key here (restore by code, `restore --list`): nothing to check
            return False
        return True

    def _with_check(self, stmts: list[Stmt]) -> list[Result]:
        """The key check rides in the same batch as the first statement (sync/epochs.py)."""
        from memoryd.sync import epoch_store, epochs

        ring = self.local_ring()
        head = [epoch_store.check_stmt(self.agent_id, ring.device_id)]
        seen = ring.registered and time.time() - ring.seen_at > epoch_store.SEEN_EVERY
        if seen:
            head.append(epoch_store.seen(self.agent_id, ring.device_id))
        results = self._call(self.db.batch, head + stmts)
        self.keys_checked = True
        if seen:
            ring.seen_at = int(time.time())
        changed = epochs.apply_check(self, ring, epoch_store.Check.from_row(results[0].rows[0]),
                                     register=self.register)
        if seen and not changed:
            from memoryd.sync.crypto.device_keys import save_ring

            save_ring(self.config, ring)
        return results[len(head):]

    @property
    def db(self) -> Any:
        if self._db is None:
            from memoryd.sync.remote.db import connect

            # the first statement is the check: one round trip
            self._db = connect(self.config, check=False, agent_id=self.agent_id, admin=self.uses_admin_token())
        return self._db

    def uses_admin_token(self) -> bool:
        """MEMORYD_ADMIN_TOKEN for what destroys data: always when [sync] separate_admin_token (refused
        without it), else whenever it is set (a purge after a forget, a shred)."""
        destroys = bool(self.destroys) or self.purge_history
        if not destroys or self.is_file:
            return False
        if self.destroys:
            require_admin_token(self.config, self.destroys)
        return bool(self.config.admin_token)

    @property
    def is_file(self) -> bool:
        return self.config.db_url.startswith("file:")

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
        if self._check_due():
            return self._with_check([(sql, args)])[0]
        return self._call(self.db.execute, sql, args)

    def batch(self, stmts: list[Stmt]) -> list[Result]:
        if self._check_due():
            return self._with_check(list(stmts))
        return self._call(self.db.batch, stmts)

    def seal(self, rep: Replica, version: int) -> tuple[int, str]:
        """(epoch, ciphertext) of the critical state at `version`, under the current epoch as this device
        knows it: the write's batch carries the key check, and its guard refuses an epoch gone stale."""
        ring = self.local_ring()
        epoch = ring.current
        return epoch, seal_text(ring.key(epoch), dumps(rep), agent_id=self.agent_id, kind=critical_kind(epoch),
                                version=version)

    def open(self, version: int, data: str, epoch: int = 0) -> Replica:
        plain = open_text(self.ring.key(epoch), data, agent_id=self.agent_id, kind=critical_kind(epoch),
                          version=version)
        try:
            return valid_replica(json.loads(plain.decode("utf-8")))
        except (ValueError, UnicodeDecodeError) as exc:
            raise CryptoError(f"critical state v{version} of agent {self.agent_id} is malformed: {exc}") from None
