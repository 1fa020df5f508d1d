"""The local index's schema and its migrations (the file itself: tiers/cold/index_file.py).

Tables (local schema version in PRAGMA user_version):

    memories          one row per memory that left warm: text, category, importance, created_at,
                      access_count, last_access, metadata (JSON), day (its date: a note's own date,
                      else when stored), restate (its restatement key, v5) — keyed by (agent_id, id);
                      its rowid keys the terms index
    "terms:<agent>"   FTS5, contentless, detail=full: the analyzer's terms of each row (one table per
                      agent, so BM25's document counts and frequencies are the agent's own)
    agent_stats       per agent: rows and total terms (BM25's N and average length)
    outbox            memories and forgets still to upload to the cloud log (server URLs only)
    tombstones        forgotten ids and when, so a stale copy from another device stays forgotten
    index_meta        the analyzer signature the terms were built with; cloud-log cursors
    vectors, live_vectors, vector_stats
                      hybrid retrieval's embeddings (v2; tiers/cold/vectors.py): triggers delete them with
                      their memory, so a forget never leaves a vector behind
    entity_queue, entities, entity_mentions, entity_seen
                      entities and their hotness (v3; tiers/cold/entity_schema.py, tiers/knowledge/entities.py):
                      derived from the memories: a put queues each arrival (v5: in its own insert, not a
                      trigger per row), triggers each change and forget

An index from round 1 (`cold_memories` with word/trigram indexes, in the default `file:` database)
is migrated in place: rows copied, terms built, the old tables and their plaintext indexes dropped.
"""
from __future__ import annotations

import sqlite3

from memoryd.tiers.base.errors import ArchiveError

from memoryd.tiers.cold.entity_schema import ENTITY_SCHEMA, QUEUE_ALL
from memoryd.tiers.cold.vector_schema import VECTOR_SCHEMA

LOCAL_VERSION = 5

_SCHEMA = (
    """CREATE TABLE IF NOT EXISTS memories (
        agent_id TEXT NOT NULL, id TEXT NOT NULL, text TEXT NOT NULL, category TEXT NOT NULL,
        importance REAL, created_at INTEGER NOT NULL, access_count INTEGER NOT NULL DEFAULT 0,
        last_access INTEGER, metadata TEXT, day TEXT NOT NULL, restate TEXT,
        UNIQUE (agent_id, id))""",
    "CREATE INDEX IF NOT EXISTS memories_day ON memories(agent_id, day)",
    "CREATE INDEX IF NOT EXISTS memories_created ON memories(agent_id, created_at)",
    "CREATE TABLE IF NOT EXISTS agent_stats (agent_id TEXT PRIMARY KEY, docs INTEGER NOT NULL, terms INTEGER NOT NULL)",
    """CREATE TABLE IF NOT EXISTS outbox (agent_id TEXT NOT NULL, id TEXT NOT NULL, op TEXT NOT NULL,
        queued_at INTEGER NOT NULL, PRIMARY KEY (agent_id, id)) WITHOUT ROWID""",
    """CREATE TABLE IF NOT EXISTS tombstones (agent_id TEXT NOT NULL, id TEXT NOT NULL,
        forgotten_at INTEGER NOT NULL, PRIMARY KEY (agent_id, id)) WITHOUT ROWID""",
    "CREATE TABLE IF NOT EXISTS index_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID",
)
_SCHEMA += VECTOR_SCHEMA  # v1 → v2: the vector tables (every statement above is IF NOT EXISTS)
_SCHEMA += ENTITY_SCHEMA  # v2 → v3: the entity tables and the triggers that queue memories for them
# v4 indexed a row's restatement key as an expression over its metadata (a store finds a restatement by its
# key, tiers/knowledge/restate.restate_key, not by a search); v5 keeps the key in a column a put fills: the
# expression parsed every row's JSON twice on insert, ~3 µs a row, and the queue trigger ran a statement per row
_V4_RESTATE_SQL = "(CASE WHEN json_valid(metadata) THEN json_extract(metadata, '$.restate_key') END)"
_RESTATE_INDEX = "CREATE INDEX IF NOT EXISTS memories_restate_key ON memories(agent_id, restate)"
_LEGACY_TABLES = ("cold_fts", "cold_trigram", "cold_memories")
_LEGACY_TRIGGERS = ("cold_ai", "cold_ad", "cold_au")


def terms_table(agent_id: str) -> str:
    """The quoted name of an agent's terms table (agent ids are [A-Za-z0-9_-]: safe inside quotes)."""
    return f'"terms:{agent_id}"'


def ensure_local_schema(conn: sqlite3.Connection) -> bool:
    """Create or migrate the schema (idempotent, one read when current). True if round-1 rows were imported."""
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    if version > LOCAL_VERSION:
        raise ArchiveError(f"local index schema v{version} is newer than this memoryd (v{LOCAL_VERSION}): upgrade memoryd")
    if version == LOCAL_VERSION:
        return False
    conn.execute("BEGIN IMMEDIATE")
    try:
        if conn.execute("PRAGMA user_version").fetchone()[0] == LOCAL_VERSION:  # another process won the race
            conn.execute("ROLLBACK")
            return False
        for sql in _SCHEMA:
            conn.execute(sql)
        imported = _import_legacy(conn)
        _to_v5(conn)
        if version < 3 or imported:  # memories held before the entity tables (or just imported): each read once
            conn.execute(QUEUE_ALL)
        conn.execute(f"PRAGMA user_version={LOCAL_VERSION}")
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    return imported


def _to_v5(conn: sqlite3.Connection) -> None:
    """The restatement key as a column (filled from the metadata of rows held), its index; arrivals queued for
    the entity reader by the put itself, not a trigger."""
    if "restate" not in {row[1] for row in conn.execute("PRAGMA table_info(memories)")}:
        conn.execute("ALTER TABLE memories ADD COLUMN restate TEXT")
        conn.execute(f"UPDATE memories SET restate = {_V4_RESTATE_SQL}")
    conn.execute("DROP INDEX IF EXISTS memories_restate")
    conn.execute(_RESTATE_INDEX)
    conn.execute("DROP TRIGGER IF EXISTS entity_q_put")


def _import_legacy(conn: sqlite3.Connection) -> bool:
    """Round 1 kept cold rows in `cold_memories` with plaintext word and trigram indexes: copy the rows
    (terms are built afterwards, when the index sees the analyzer signature missing) and drop the rest."""
    have = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type IN ('table', 'trigger')")}
    if "cold_memories" not in have:
        return False
    conn.execute(
        "INSERT OR IGNORE INTO memories (agent_id, id, text, category, importance, created_at, access_count, "
        "last_access, metadata, day) SELECT agent_id, id, text, category, importance, created_at, access_count, "
        "last_access, metadata, COALESCE(CASE WHEN json_valid(metadata) THEN json_extract(metadata, '$.date') END, "
        "date(created_at, 'unixepoch')) FROM cold_memories")
    # No analyzer signature yet: the index builds these agents' terms when it opens.
    conn.execute("INSERT OR REPLACE INTO agent_stats SELECT agent_id, COUNT(*), 0 FROM memories GROUP BY agent_id")
    for trigger in _LEGACY_TRIGGERS:
        conn.execute(f"DROP TRIGGER IF EXISTS {trigger}")
    for table in _LEGACY_TABLES:
        conn.execute(f"DROP TABLE IF EXISTS {table}")
    return True
