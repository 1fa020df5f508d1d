"""Cloud schema: versioned forward migrations of the libSQL database, applied by ensure_schema().

`schema_meta` holds one row per applied migration (version, applied_at); the schema version is
MAX(version). Each migration runs as one atomic batch whose first write inserts its own row, so
two devices migrating at once cannot both apply it: the loser's batch fails on the primary key,
rolls back, and it re-reads the version.
"""
from __future__ import annotations

import time
from typing import Sequence

from memoryd.tiers.errors import ArchiveError, MemorydError

from .db import Database

_META = (
    "CREATE TABLE IF NOT EXISTS schema_meta ("
    "version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)"
)

_V1: tuple[str, ...] = (
    # Two agents may store identical text (same content-hash id): the key is (agent_id, id).
    """CREATE TABLE IF NOT EXISTS cold_memories (
        agent_id TEXT NOT NULL,
        id TEXT NOT NULL,
        text TEXT NOT NULL,
        category TEXT NOT NULL,
        importance REAL,
        created_at INTEGER NOT NULL,
        access_count INTEGER NOT NULL DEFAULT 0,
        last_access INTEGER,
        metadata TEXT,
        grams TEXT NOT NULL DEFAULT '',
        PRIMARY KEY (agent_id, id)
    )""",
    "CREATE INDEX IF NOT EXISTS cold_agent_created ON cold_memories(agent_id, created_at)",
    "CREATE INDEX IF NOT EXISTS cold_agent_category ON cold_memories(agent_id, category)",
    # External-content FTS5: a word index (unicode61) and a trigram index for CJK substrings.
    # `grams` holds the CJK unigrams and bigrams of text+category (written by the archive), so the
    # word index also answers 1-2 character Chinese/Japanese queries, which trigrams cannot.
    "CREATE VIRTUAL TABLE IF NOT EXISTS cold_fts USING fts5(text, category, grams, content='cold_memories', "
    "content_rowid='rowid', tokenize='unicode61 remove_diacritics 2')",
    "CREATE VIRTUAL TABLE IF NOT EXISTS cold_trigram USING fts5(text, category, content='cold_memories', "
    "content_rowid='rowid', tokenize='trigram')",
    """CREATE TRIGGER IF NOT EXISTS cold_ai AFTER INSERT ON cold_memories BEGIN
        INSERT INTO cold_fts(rowid, text, category, grams) VALUES (new.rowid, new.text, new.category, new.grams);
        INSERT INTO cold_trigram(rowid, text, category) VALUES (new.rowid, new.text, new.category);
    END""",
    """CREATE TRIGGER IF NOT EXISTS cold_ad AFTER DELETE ON cold_memories BEGIN
        INSERT INTO cold_fts(cold_fts, rowid, text, category, grams)
            VALUES ('delete', old.rowid, old.text, old.category, old.grams);
        INSERT INTO cold_trigram(cold_trigram, rowid, text, category)
            VALUES ('delete', old.rowid, old.text, old.category);
    END""",
    # Only text/category changes touch the indexes (touch() updates access counts often).
    """CREATE TRIGGER IF NOT EXISTS cold_au AFTER UPDATE OF text, category, grams ON cold_memories BEGIN
        INSERT INTO cold_fts(cold_fts, rowid, text, category, grams)
            VALUES ('delete', old.rowid, old.text, old.category, old.grams);
        INSERT INTO cold_trigram(cold_trigram, rowid, text, category)
            VALUES ('delete', old.rowid, old.text, old.category);
        INSERT INTO cold_fts(rowid, text, category, grams) VALUES (new.rowid, new.text, new.category, new.grams);
        INSERT INTO cold_trigram(rowid, text, category) VALUES (new.rowid, new.text, new.category);
    END""",
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

# MIGRATIONS[i] takes the schema from version i to version i + 1. Append only; never edit.
MIGRATIONS: tuple[Sequence[str], ...] = (_V1,)
SCHEMA_VERSION = len(MIGRATIONS)


def current_version(db: Database) -> int:
    """The database's schema version; 0 for an empty database (one round trip)."""
    try:
        return int(db.execute("SELECT COALESCE(MAX(version), 0) FROM schema_meta").scalar(0) or 0)
    except ArchiveError as exc:
        if "no such table" in exc.message and "schema_meta" in exc.message:
            return 0
        raise


def _refuse_newer(db: Database, version: int) -> None:
    if version > SCHEMA_VERSION:
        raise ArchiveError(
            f"database schema v{version} is newer than this memoryd (v{SCHEMA_VERSION}); upgrade memoryd "
            f"({db.display_url})"
        )


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
        except MemorydError as exc:
            if "UNIQUE" not in exc.message.upper() and "constraint" not in exc.message.lower():
                raise
            # Another device applied this migration first; pick up from where it left the schema.
            if current_version(db) <= version:
                raise
        version = current_version(db)
        _refuse_newer(db, version)
    return version
