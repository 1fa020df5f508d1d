"""After a shredding forget: the local index's file holds nothing of what was deleted from it.

SQLite leaves a deleted row's bytes in its page's free space, in free pages and in older WAL frames, and a
contentless FTS5 table keeps a deleted row's terms (with positions) in older segments until they merge.
scrub() merges every terms segment of the agent ('optimize'), rewrites the file (VACUUM: no free page or
free space keeps old bytes) and truncates the WAL, then records when (forget --verify reads the mark).
"""
from __future__ import annotations

import time

from memoryd.tiers.cold.index import LocalIndex, set_meta_in
from memoryd.tiers.cold.index_schema import terms_table

SCRUB_MARK = "scrubbed:{agent}"  # the same key tiers/memory/forget_traces.py reads


def scrub(index: LocalIndex, agent_id: str, now: float | None = None) -> dict[str, int]:
    """Returns {"wal_busy": 1 when another reader kept the WAL from being truncated, else 0}."""
    at = time.time() if now is None else now
    with index.tx() as conn:
        if conn.execute("SELECT 1 FROM sqlite_master WHERE name = ?", [f"terms:{agent_id}"]).fetchone():
            table = terms_table(agent_id)
            conn.execute(f"INSERT INTO {table}({table}) VALUES ('optimize')")
    with index.outside_tx() as conn:
        conn.execute("VACUUM")
        busy = conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0]
    if not busy:  # the mark only when nothing old is left behind
        with index.tx() as conn:
            set_meta_in(conn, SCRUB_MARK.format(agent=agent_id), repr(float(at)))
        with index.outside_tx() as conn:
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # the mark's own frames: no deleted bytes in them
    return {"wal_busy": int(bool(busy))}
