"""The local index's vector tables (schema v2), kept consistent with the memories by triggers.

    vectors        one embedding per memory of the index, keyed by the memory's rowid (int8 + scale:
                   memoryd.tiers.retrieval.embed.pack); deleted with the memory, or when its text changes
    live_vectors   embeddings of warm entries and hot items by (agent_id, id) and a digest of the text
                   they were made from; a forget (a tombstone) deletes them, a retrieve prunes the rest
    vector_stats   per agent, a counter every vector insert or delete moves: a process that keeps an
                   agent's matrix in memory knows with one read whether it is still current

Vectors never leave the device (the cloud log carries sealed memories only).
"""
from __future__ import annotations

VECTOR_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS vectors (rowid INTEGER PRIMARY KEY, agent_id TEXT NOT NULL, vec BLOB NOT NULL)",
    "CREATE INDEX IF NOT EXISTS vectors_agent ON vectors(agent_id)",
    """CREATE TABLE IF NOT EXISTS live_vectors (agent_id TEXT NOT NULL, id TEXT NOT NULL, digest BLOB NOT NULL,
        vec BLOB NOT NULL, PRIMARY KEY (agent_id, id)) WITHOUT ROWID""",
    "CREATE TABLE IF NOT EXISTS vector_stats (agent_id TEXT PRIMARY KEY, version INTEGER NOT NULL) WITHOUT ROWID",
    """CREATE TRIGGER IF NOT EXISTS vectors_memory_gone AFTER DELETE ON memories BEGIN
        DELETE FROM vectors WHERE rowid = old.rowid; END""",
    """CREATE TRIGGER IF NOT EXISTS vectors_memory_changed AFTER UPDATE OF text ON memories
        WHEN old.text IS NOT new.text BEGIN DELETE FROM vectors WHERE rowid = old.rowid; END""",
    """CREATE TRIGGER IF NOT EXISTS live_vectors_forgotten AFTER INSERT ON tombstones BEGIN
        DELETE FROM live_vectors WHERE agent_id = new.agent_id AND id = new.id; END""",
    """CREATE TRIGGER IF NOT EXISTS live_vectors_forgotten_again AFTER UPDATE ON tombstones BEGIN
        DELETE FROM live_vectors WHERE agent_id = new.agent_id AND id = new.id; END""",
    """CREATE TRIGGER IF NOT EXISTS vectors_added AFTER INSERT ON vectors BEGIN
        INSERT INTO vector_stats VALUES (new.agent_id, 1)
        ON CONFLICT (agent_id) DO UPDATE SET version = version + 1; END""",
    """CREATE TRIGGER IF NOT EXISTS vectors_removed AFTER DELETE ON vectors BEGIN
        INSERT INTO vector_stats VALUES (old.agent_id, 1)
        ON CONFLICT (agent_id) DO UPDATE SET version = version + 1; END""",
)
