"""Round 1's plaintext cold rows on the server (`cold_memories` + word/trigram indexes), moved into the cloud log.

migrate() copies an agent's rows into the local index (queued for upload, sealed, to the cloud
log); finish() deletes them from the server once the outbox holds none of the agent's uploads, and
drops the tables and their plaintext indexes when no agent has rows left. Both are resumable at
any point (copies are idempotent by id; deletion waits for the upload). sqld keeps old frames in
its WAL and replication log for a while: deleting a row is not forgetting it (see README).
"""
from __future__ import annotations

import json
from typing import Any, Callable

from memoryd.tiers.base.errors import ArchiveError
from memoryd.tiers.base.ports import ColdEntry
from memoryd.tiers.cold.index import LocalIndex
from memoryd.tiers.cold.index_rows import reporter

from memoryd.sync.cloudlog_device import DeviceLog
from memoryd.sync.session import Session

PAGE = 1000
_TABLES = ("cold_fts", "cold_trigram", "cold_memories")
_TRIGGERS = ("cold_ai", "cold_ad", "cold_au")
Progress = Callable[[int, int], None]


def _key(s: Session) -> str:
    return f"legacy:{s.agent_id}:{s.files.db_id}"


def _has_table(s: Session) -> bool:
    try:
        rows = s.execute("SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = 'cold_memories'", []).rows
    except ArchiveError:
        return False
    return bool(rows and rows[0][0])


def migrate(s: Session, progress: Progress | None = None) -> int:
    """Copy the agent's plaintext rows into the local index; returns how many (0 once done)."""
    state = s.index.meta(_key(s))
    if state == "done" or (state is None and not _has_table(s)):
        if state is None:
            s.index.set_meta(_key(s), "done")
        return 0
    total = int(s.execute("SELECT COUNT(*) FROM cold_memories WHERE agent_id = ?", [s.agent_id]).rows[0][0])
    advance = reporter(progress, "plaintext migration", total)
    after, moved = "", 0
    while True:
        rows = s.execute("SELECT id, text, category, importance, created_at, access_count, last_access, metadata "
                         "FROM cold_memories WHERE agent_id = ? AND id > ? ORDER BY id LIMIT ?",
                         [s.agent_id, after, PAGE]).rows
        if not rows:
            break
        s.index.put(s.agent_id, [_entry(r) for r in rows])
        DeviceLog(s.index, s.agent_id, s.files.db_id).queue_ids([r[0] for r in rows])  # owed even if already indexed
        after, moved = rows[-1][0], moved + len(rows)
        advance(len(rows))
    s.index.set_meta(_key(s), "copied")
    return moved


def _entry(row: Any) -> ColdEntry:
    mid, text, category, importance, created, access, last, meta = row
    try:
        metadata = json.loads(meta) if meta else {}
    except ValueError:
        metadata = {}
    return {"id": mid, "text": text, "category": category, "importance": importance, "created_at": created,
            "access_count": access or 0, "last_access": last, "metadata": metadata if isinstance(metadata, dict) else {}}


def finish(s: Session) -> bool:
    """Delete the agent's plaintext rows once uploaded sealed; drop the tables when empty."""
    if s.index.meta(_key(s)) != "copied" or s.index.pending_uploads(s.agent_id):
        return False
    s.batch([("DELETE FROM cold_memories WHERE agent_id = ?", [s.agent_id])])
    left = int(s.execute("SELECT COUNT(*) FROM cold_memories", []).rows[0][0])
    if not left:
        s.batch([(f"DROP TRIGGER IF EXISTS {t}", []) for t in _TRIGGERS] +
                [(f"DROP TABLE IF EXISTS {t}", []) for t in _TABLES])
    s.index.set_meta(_key(s), "done")
    return True


def status(index: LocalIndex, agent_id: str, db_id: str) -> str | None:
    """none/copied/done for `memoryd status`."""
    return index.meta(f"legacy:{agent_id}:{db_id}")
