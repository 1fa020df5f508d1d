"""Cloud schema: versioned forward migrations of the libSQL database, applied by ensure_schema().

`schema_meta` holds one row per applied migration (version, applied_at); the schema version is
MAX(version). Each migration runs as one atomic batch whose first write inserts its own row, so
two devices migrating at once cannot both apply it: the loser's batch fails on the primary key,
rolls back, and it re-reads the version.
"""
from __future__ import annotations

import time
from typing import Sequence

from memoryd.tiers.base.errors import ArchiveError

from memoryd.sync.remote.db import Database
from memoryd.sync.remote.errors import ConstraintError, MissingTableError

_META = (
    "CREATE TABLE IF NOT EXISTS schema_meta ("
    "version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)"
)

# v1 as first released also created a plaintext cold archive (cold_memories with word and trigram
# indexes); a fresh database no longer gets it, and sync/cloudlog_legacy.py moves an old one's rows into the
# sealed log and drops it.
_V1: tuple[str, ...] = (
    # Critical state: ciphertext only (owned by the sync engine).
    """CREATE TABLE IF NOT EXISTS critical_state (
        agent_id TEXT PRIMARY KEY,
        data TEXT NOT NULL,
        version INTEGER NOT NULL,
        device_id TEXT NOT NULL,
        updated_at INTEGER NOT NULL
    )""",
    """CREATE TABLE IF NOT EXISTS critical_versions (
        agent_id TEXT NOT NULL,
        version INTEGER NOT NULL,
        data TEXT NOT NULL,
        device_id TEXT NOT NULL,
        updated_at INTEGER NOT NULL,
        PRIMARY KEY (agent_id, version)
    )""",
)

# v2: the append-only log of sealed memories and forgets (sync/cloudlog.py). The server sees refs
# (keyed hashes of ids), kinds, sizes, counts and upload times; never text, category or metadata.
_V2: tuple[str, ...] = (
    """CREATE TABLE IF NOT EXISTS memory_log (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        agent_id TEXT NOT NULL,
        ref TEXT NOT NULL,
        kind TEXT NOT NULL,
        version INTEGER NOT NULL,
        digest TEXT NOT NULL,
        data TEXT NOT NULL,
        device_id TEXT NOT NULL,
        created_at INTEGER NOT NULL
    )""",
    "CREATE INDEX IF NOT EXISTS memory_log_agent_seq ON memory_log(agent_id, seq)",
    # one row per (memory, kind, content): a retried upload is a no-op (INSERT OR IGNORE), and ref lookups use it
    "CREATE UNIQUE INDEX IF NOT EXISTS memory_log_ref ON memory_log(agent_id, ref, kind, digest)",
)

# v3: devices and key epochs (sync/epoch_store.py). Each row of the log and of the critical state names
# the epoch whose data key sealed it (0: the single agent key of v1/v2, so old rows keep their meaning).
# The server holds public keys and data keys wrapped for each device and the recovery key, never a key
# in clear; `enrolments` holds one-time codes' blobs, sealed under a key derived from a secret it never sees.
_V3: tuple[str, ...] = (
    """CREATE TABLE IF NOT EXISTS devices (
        agent_id TEXT NOT NULL,
        device_id TEXT NOT NULL,
        name TEXT NOT NULL,
        kind TEXT NOT NULL,
        public_key TEXT NOT NULL,
        enrolled_at INTEGER NOT NULL,
        revoked_at INTEGER,
        last_seen INTEGER,
        PRIMARY KEY (agent_id, device_id)
    )""",
    """CREATE TABLE IF NOT EXISTS key_epochs (
        agent_id TEXT NOT NULL,
        epoch INTEGER NOT NULL,
        created_at INTEGER NOT NULL,
        created_by TEXT NOT NULL,
        reason TEXT NOT NULL,
        dropped_at INTEGER,
        PRIMARY KEY (agent_id, epoch)
    )""",
    """CREATE TABLE IF NOT EXISTS key_wraps (
        agent_id TEXT NOT NULL,
        epoch INTEGER NOT NULL,
        recipient TEXT NOT NULL,
        wrapped TEXT NOT NULL,
        PRIMARY KEY (agent_id, epoch, recipient)
    )""",
    """CREATE TABLE IF NOT EXISTS enrolments (
        agent_id TEXT NOT NULL,
        code_id TEXT NOT NULL,
        salt TEXT NOT NULL,
        blob TEXT NOT NULL,
        created_by TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL,
        used_at INTEGER,
        used_by TEXT,
        PRIMARY KEY (agent_id, code_id)
    )""",
    "ALTER TABLE memory_log ADD COLUMN epoch INTEGER NOT NULL DEFAULT 0",
    "ALTER TABLE critical_state ADD COLUMN epoch INTEGER NOT NULL DEFAULT 0",
    "ALTER TABLE critical_versions ADD COLUMN epoch INTEGER NOT NULL DEFAULT 0",
)

# v4: the critical state as a log of sealed per-item changes (sync/critical_log.py); critical_state and
# critical_versions keep the sealed snapshots, their `version` now the last log seq they cover. The log's
# seqs start past every version of the whole-state format, so a snapshot newer than an old row sorts after it.
_UPGRADE = ("memoryd: this server keeps the critical state as a log of changes (schema v4); "
            "upgrade memoryd on this device")
_V4: tuple[str, ...] = (
    """CREATE TABLE IF NOT EXISTS critical_log (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        agent_id TEXT NOT NULL,
        device_id TEXT NOT NULL,
        epoch INTEGER NOT NULL,
        data TEXT NOT NULL,
        created_at INTEGER NOT NULL
    )""",
    "CREATE INDEX IF NOT EXISTS critical_log_agent_seq ON critical_log(agent_id, seq)",
    # AUTOINCREMENT never reuses a seq: a placeholder row at the highest old version moves the counter past it
    "INSERT INTO critical_log (seq, agent_id, device_id, epoch, data, created_at) "
    "SELECT v, '', '', 0, '', 0 FROM (SELECT MAX(version) AS v FROM critical_state) WHERE v > 0",
    "DELETE FROM critical_log WHERE agent_id = ''",
    # A memoryd of the whole-state format would overwrite the snapshot with a state that never read the log:
    # its writes fail loudly instead. Every write of this one moves `log` (an old one's leaves it as it was).
    "ALTER TABLE critical_state ADD COLUMN log INTEGER NOT NULL DEFAULT 0",
    f"CREATE TRIGGER IF NOT EXISTS critical_state_insert_v4 BEFORE INSERT ON critical_state WHEN NEW.log = 0 "
    f"BEGIN SELECT RAISE(ABORT, '{_UPGRADE}'); END",
    f"CREATE TRIGGER IF NOT EXISTS critical_state_update_v4 BEFORE UPDATE ON critical_state WHEN NEW.log = OLD.log "
    f"BEGIN SELECT RAISE(ABORT, '{_UPGRADE}'); END",
)

# MIGRATIONS[i] takes the schema from version i to version i + 1. Append only.
MIGRATIONS: tuple[Sequence[str], ...] = (_V1, _V2, _V3, _V4)
SCHEMA_VERSION = len(MIGRATIONS)


def current_version(db: Database) -> int:
    """The database's schema version; 0 for an empty database (one round trip)."""
    try:
        return int(db.execute("SELECT COALESCE(MAX(version), 0) FROM schema_meta").scalar(0) or 0)
    except MissingTableError:  # the statement names schema_meta alone
        return 0


def _refuse_newer(db: Database, version: int) -> None:
    if version > SCHEMA_VERSION:
        raise ArchiveError(
            f"database schema v{version} is newer than this memoryd (v{SCHEMA_VERSION}); upgrade memoryd "
            f"({db.display_url})"
        )


def _await_version(db: Database, wanted: int, *, within_s: float = 30.0) -> None:
    """Wait (bounded) until reads see schema `wanted`, which the primary already holds."""
    deadline = time.monotonic() + within_s
    pause = 0.02
    while current_version(db) < wanted:
        if time.monotonic() > deadline:
            raise ArchiveError(f"another device migrated the schema to v{wanted}, but reads from "
                               f"{db.display_url} still do not show it after {within_s:.0f} s")
        time.sleep(pause)
        pause = min(pause * 2, 0.5)


def ensure_schema(db: Database, *, target: int = SCHEMA_VERSION) -> int:
    """Migrate forward to `target` (idempotent; one read when already current). Returns the version."""
    version = current_version(db)
    _refuse_newer(db, version)
    while version < target:
        stmts: list[tuple[str, list[object] | None]] = [(_META, None)]
        stmts.append(("INSERT INTO schema_meta(version, applied_at) VALUES (?, ?)", [version + 1, int(time.time())]))
        stmts.extend((sql, None) for sql in MIGRATIONS[version])
        try:
            db.batch(stmts)
        except ConstraintError:
            # Another device applied this migration first; pick up from where it left the schema. Reads may
            # come from a replica that has not replayed it yet: the constraint proves it is on the primary.
            _await_version(db, version + 1)
        version = current_version(db)
        _refuse_newer(db, version)
    return version
