"""The local index's entity tables (schema v3): derived from the memories, rebuildable, never synced.

Triggers queue every memory that arrives, changes or leaves (whatever the path: archive, pull, restore,
import, forget) in `entity_queue`; tiers/knowledge/entities.py reads it and keeps the rest current.

    entity_queue      memories to (re)read for entities
    entities          per agent and entity key: name, type, hotness (value as of hot_day), mentions, first/last day
    entity_mentions   which memory names which entity, and the memory's day
    entity_seen       what was read from each memory (a signature) and whether it was in warm then
    entity_aliases    other names a memory writes an entity by (`Kestrel Cleaning` for @kestrel), for lookup;
                      added after v3 shipped: an index of v3 gets it on its next refresh (entity_store.ensure_aliases)
"""
from __future__ import annotations

ENTITY_TABLES = ("entity_queue", "entities", "entity_mentions", "entity_seen")  # aliases go with entity_seen

ALIAS_SCHEMA = (
    """CREATE TABLE IF NOT EXISTS entity_aliases (agent_id TEXT NOT NULL, memory_id TEXT NOT NULL, key TEXT NOT NULL,
        alias TEXT NOT NULL, PRIMARY KEY (agent_id, memory_id, key, alias)) WITHOUT ROWID""",
    "CREATE INDEX IF NOT EXISTS entity_aliases_alias ON entity_aliases(agent_id, alias)",
    # a memory no longer read (forgotten, dropped with its agent, a rebuild) takes its aliases along
    """CREATE TRIGGER IF NOT EXISTS entity_aliases_gone AFTER DELETE ON entity_seen BEGIN
        DELETE FROM entity_aliases WHERE agent_id = old.agent_id AND memory_id = old.memory_id; END""",
)

ENTITY_SCHEMA = (
    """CREATE TABLE IF NOT EXISTS entity_queue (agent_id TEXT NOT NULL, id TEXT NOT NULL,
        PRIMARY KEY (agent_id, id)) WITHOUT ROWID""",
    """CREATE TABLE IF NOT EXISTS entities (agent_id TEXT NOT NULL, key TEXT NOT NULL, name TEXT NOT NULL,
        type TEXT NOT NULL, hot REAL NOT NULL, hot_day INTEGER NOT NULL, mentions INTEGER NOT NULL,
        first_day INTEGER NOT NULL, last_day INTEGER NOT NULL, PRIMARY KEY (agent_id, key)) WITHOUT ROWID""",
    """CREATE TABLE IF NOT EXISTS entity_mentions (agent_id TEXT NOT NULL, memory_id TEXT NOT NULL,
        key TEXT NOT NULL, day INTEGER NOT NULL, PRIMARY KEY (agent_id, memory_id, key)) WITHOUT ROWID""",
    "CREATE INDEX IF NOT EXISTS entity_mentions_key ON entity_mentions(agent_id, key, day)",
    """CREATE TABLE IF NOT EXISTS entity_seen (agent_id TEXT NOT NULL, memory_id TEXT NOT NULL, sig TEXT NOT NULL,
        warm INTEGER NOT NULL, PRIMARY KEY (agent_id, memory_id)) WITHOUT ROWID""",
    # an arrival is queued by the put that inserts it (tiers/cold/index_write.py; v5: no trigger per row)
    """CREATE TRIGGER IF NOT EXISTS entity_q_change AFTER UPDATE OF text, metadata, created_at ON memories BEGIN
        INSERT OR IGNORE INTO entity_queue VALUES (new.agent_id, new.id); END""",
    """CREATE TRIGGER IF NOT EXISTS entity_q_gone AFTER DELETE ON memories BEGIN
        INSERT OR IGNORE INTO entity_queue VALUES (old.agent_id, old.id); END""",
    """CREATE TRIGGER IF NOT EXISTS entity_q_forget AFTER INSERT ON tombstones BEGIN
        INSERT OR IGNORE INTO entity_queue VALUES (new.agent_id, new.id); END""",
    *ALIAS_SCHEMA,
)
QUEUE_ALL = "INSERT OR IGNORE INTO entity_queue SELECT agent_id, id FROM memories"  # v2 → v3: each read once
