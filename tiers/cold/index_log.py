"""The local index's side of the cloud log: the outbox of uploads, cursors, and rows pulled from other devices."""
from __future__ import annotations

from typing import Any, Callable, Sequence

from memoryd.tiers.base.config import validate_agent_id

from memoryd.tiers.cold.index_rows import IDS_PER_STMT, check_entry, chunks, marks
from memoryd.tiers.cold.index_schema import terms_table


class CloudLogSide:
    """Mixed into LocalIndex (which supplies tx, read, get, _put, _forget, clock and _ready)."""

    clock: Callable[[], float]
    _ready: set[str]
    after_put: Callable[..., None] | None

    def pending_uploads(self, agent_id: str) -> int:
        return int(self.read("SELECT COUNT(*) FROM outbox WHERE agent_id = ?", [agent_id])[0][0])

    def outbox_page(self, agent_id: str, limit: int) -> list[tuple[str, str, int, dict[str, Any] | None]]:
        """(id, op, queued_at, entry or None) of the oldest queued uploads."""
        rows = self.read("SELECT id, op, queued_at FROM outbox WHERE agent_id = ? ORDER BY queued_at, id LIMIT ?",
                         [agent_id, int(limit)])
        entries = {e["id"]: e for e in self.get(agent_id, [r[0] for r in rows if r[1] == "put"])}
        tombs = dict(self.read(f"SELECT id, forgotten_at FROM tombstones WHERE agent_id = ? AND id IN "
                               f"({marks(len(rows))})", [agent_id, *[r[0] for r in rows]])) if rows else {}
        out = []
        for mid, op, queued in rows:
            item = entries.get(mid) if op == "put" else ({"id": mid, "at": tombs[mid]} if mid in tombs else None)
            out.append((mid, op, queued, item))
        return out

    def outbox_done(self, agent_id: str, rows: Sequence[tuple[str, str, int]]) -> None:
        """Drop uploaded rows, unless queued again meanwhile (a newer change still has to go)."""
        with self.tx() as conn:
            conn.executemany("DELETE FROM outbox WHERE agent_id = ? AND id = ? AND op = ? AND queued_at = ?",
                             [(agent_id, mid, op, queued) for mid, op, queued in rows])

    def queue_everything(self, agent_id: str) -> int:
        """A database this agent never synced with: every memory and every forget is owed to it."""
        now = int(self.clock())
        with self.tx() as conn:
            n = conn.execute("INSERT OR IGNORE INTO outbox SELECT agent_id, id, 'put', ? FROM memories WHERE agent_id = ?",
                             [now, agent_id]).rowcount
            n += conn.execute("INSERT OR IGNORE INTO outbox SELECT agent_id, id, 'forget', forgotten_at FROM tombstones "
                              "WHERE agent_id = ?", [agent_id]).rowcount
        return n

    def drop_agent(self, agent_id: str) -> None:
        """Remove every trace of an agent from the index (a refused restore on a new device)."""
        validate_agent_id(agent_id)
        with self.tx() as conn:
            conn.execute(f"DROP TABLE IF EXISTS {terms_table(agent_id)}")
            self._ready.discard(agent_id)
            for table in ("memories", "agent_stats", "outbox", "tombstones", "live_vectors", "vector_stats"):
                conn.execute(f"DELETE FROM {table} WHERE agent_id = ?", [agent_id])
            prefix = f"cursor:{agent_id}:"
            conn.execute("DELETE FROM index_meta WHERE key = ? OR substr(key, 1, ?) = ?",
                         [f"sig:{agent_id}", len(prefix), prefix])

    def queue_ids(self, agent_id: str, ids: Sequence[str]) -> None:
        """Owe these memories to the cloud log (when they are still here)."""
        now = int(self.clock())
        with self.tx() as conn:
            for chunk in chunks(list(ids), IDS_PER_STMT):
                conn.execute(f"INSERT OR IGNORE INTO outbox SELECT agent_id, id, 'put', ? FROM memories "
                             f"WHERE agent_id = ? AND id IN ({marks(len(chunk))})", [now, agent_id, *chunk])

    def meta(self, key: str) -> str | None:
        rows = self.read("SELECT value FROM index_meta WHERE key = ?", [key])
        return rows[0][0] if rows else None

    def set_meta(self, key: str, value: str | None) -> None:
        with self.tx() as conn:
            if value is None:
                conn.execute("DELETE FROM index_meta WHERE key = ?", [key])
            else:
                conn.execute("INSERT OR REPLACE INTO index_meta VALUES (?, ?)", [key, value])

    def apply_remote(self, agent_id: str, items: Sequence[tuple[str, dict[str, Any]]], cursor_key: str,
                     seq: int) -> tuple[int, int]:
        """Apply a page pulled from the cloud log (("put", entry) / ("forget", {id, at})) and move the
        cursor, in one transaction: a crash re-applies the whole page, which changes nothing."""
        puts = [check_entry(e, n) for n, (kind, e) in enumerate(items) if kind == "put"]
        with self.tx() as conn:
            added = forgotten = 0
            for kind, item in items:  # in log order: a forget after a put wins, a re-store after it too
                if kind == "put":
                    added += self._put(conn, agent_id, [puts.pop(0)], False)
                else:
                    forgotten += len(self._forget(conn, agent_id, [item["id"]], int(item["at"]), False))
            conn.execute("INSERT OR REPLACE INTO index_meta VALUES (?, ?)", [cursor_key, str(int(seq))])
        if self.after_put is not None and added:  # hybrid mode: the new memories get their vectors
            self.after_put(agent_id, [item["id"] for kind, item in items if kind == "put"], True)
        return added, forgotten
