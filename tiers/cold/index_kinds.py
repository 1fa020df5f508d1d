"""Reading the local index by kind (tiers/knowledge/kinds.py): a memory's `memory_kind`, else its Retain label's
kind, else `fact` — the same reading as kinds.kind_of, done by SQLite on the metadata JSON (no schema change)."""
from __future__ import annotations

import sqlite3
from typing import Any

from memoryd.tiers.base.ports import ColdEntry
from memoryd.tiers.knowledge.kinds import KIND_KEY, label_kinds

from memoryd.tiers.cold.index_rows import COLUMNS, row_entry


def kind_sql() -> str:
    """The SQL expression of a row's kind."""
    labels = " ".join(f"WHEN '{label}' THEN '{kind}'" for label, kind in sorted(label_kinds().items()))
    return (f"COALESCE(json_extract(m.metadata, '$.{KIND_KEY}'), "
            f"CASE json_extract(m.metadata, '$.kind') {labels} ELSE 'fact' END)")


def of_kind(conn: sqlite3.Connection, agent_id: str, kind: str, limit: int) -> list[ColdEntry]:
    """The most important rows of one kind, newest first among equals."""
    rows: list[Any] = conn.execute(
        f"SELECT {COLUMNS} FROM memories m WHERE m.agent_id = ? AND {kind_sql()} = ? "
        "ORDER BY m.importance DESC, m.created_at DESC, m.id LIMIT ?", [agent_id, kind, max(1, min(int(limit), 1000))]
    ).fetchall()
    return [row_entry(row) for row in rows]
