"""The cloud log's side on this device, kept in the local index: the uploads owed (its outbox table), the
cursor of each database, and the pages pulled from other devices, applied through the index's public methods."""
from __future__ import annotations

from typing import Any, Collection, Sequence

from memoryd.tiers.base.ports import ColdEntry
from memoryd.tiers.cold.index import LocalIndex, set_meta_in
from memoryd.tiers.cold.index_rows import IDS_PER_STMT, check_entry, chunks, marks

Item = tuple[str, dict[str, Any]]  # ("put", entry) or ("forget", {id, at}), as opened from the log
Queued = tuple[str, str, int]  # (id, op, queued_at) of one outbox row


def cursor_key(agent_id: str, remote_id: str) -> str:
    return f"cursor:{agent_id}:{remote_id}"


class DeviceLog:
    """One agent's cloud log with one database (`remote_id`: a hash of its URL), as this device holds it."""

    def __init__(self, index: LocalIndex, agent_id: str, remote_id: str) -> None:
        self.index = index
        self.agent_id = agent_id
        self.remote_id = remote_id
        self.cursor_key = cursor_key(agent_id, remote_id)

    # -- cursor ----------------------------------------------------------------------------------
    def cursor(self) -> int | None:
        """The last log row applied here; None before the first sync with this database."""
        value = self.index.meta(self.cursor_key)
        return None if value is None else int(value or 0)

    def ensure_started(self) -> int:
        """First sync of this agent with this database: everything local is owed to it."""
        if self.index.meta(self.cursor_key) is not None:
            return 0
        n = self.queue_everything()
        self.index.set_meta(self.cursor_key, "0")
        return n

    def reset(self) -> int:
        """Start over with this database: pull it from the beginning, upload everything we hold."""
        self.index.set_meta(self.cursor_key, None)
        return self.queue_everything()

    # -- uploads owed (the index's outbox table, filled by its puts and forgets) --------------------
    def pending(self) -> int:
        return self.index.pending_uploads(self.agent_id)

    def outbox_page(self, limit: int) -> list[tuple[str, str, int, dict[str, Any] | None]]:
        """(id, op, queued_at, entry or {id, at} or None when gone since) of the oldest queued uploads."""
        agent = self.agent_id
        rows = self.index.read("SELECT id, op, queued_at FROM outbox WHERE agent_id = ? ORDER BY queued_at, id LIMIT ?",
                               [agent, int(limit)])
        entries = {e["id"]: e for e in self.index.get(agent, [r[0] for r in rows if r[1] == "put"])}
        tombs = dict(self.index.read(f"SELECT id, forgotten_at FROM tombstones WHERE agent_id = ? AND id IN "
                                     f"({marks(len(rows))})", [agent, *[r[0] for r in rows]])) if rows else {}
        out = []
        for mid, op, queued in rows:
            item = entries.get(mid) if op == "put" else ({"id": mid, "at": tombs[mid]} if mid in tombs else None)
            out.append((mid, op, queued, item))
        return out

    def outbox_done(self, rows: Sequence[Queued]) -> None:
        """Drop uploaded rows, unless queued again meanwhile (a newer change still has to go)."""
        with self.index.tx() as conn:
            conn.executemany("DELETE FROM outbox WHERE agent_id = ? AND id = ? AND op = ? AND queued_at = ?",
                             [(self.agent_id, mid, op, queued) for mid, op, queued in rows])

    def queue_everything(self) -> int:
        """A database this agent never synced with: every memory and every forget is owed to it."""
        now = int(self.index.clock())
        with self.index.tx() as conn:
            n = conn.execute("INSERT OR IGNORE INTO outbox SELECT agent_id, id, 'put', ? FROM memories WHERE agent_id = ?",
                             [now, self.agent_id]).rowcount
            n += conn.execute("INSERT OR IGNORE INTO outbox SELECT agent_id, id, 'forget', forgotten_at FROM tombstones "
                              "WHERE agent_id = ?", [self.agent_id]).rowcount
        return n

    def queue_ids(self, ids: Sequence[str]) -> None:
        """Owe these memories to the cloud log (when they are still here)."""
        now = int(self.index.clock())
        with self.index.tx() as conn:
            for chunk in chunks(list(ids), IDS_PER_STMT):
                conn.execute(f"INSERT OR IGNORE INTO outbox SELECT agent_id, id, 'put', ? FROM memories "
                             f"WHERE agent_id = ? AND id IN ({marks(len(chunk))})", [now, self.agent_id, *chunk])

    # -- rows pulled from other devices ------------------------------------------------------------
    def forgotten_at(self, ids: Sequence[str]) -> dict[str, float]:
        return self.index.forgotten_at(self.agent_id, ids)

    def apply_page(self, items: Sequence[Item], seq: int, echoes: Collection[str] = ()) -> tuple[int, int]:
        """Apply a page pulled from the cloud log and move the cursor to `seq`, in one transaction: a crash
        re-applies the whole page, which changes nothing. Returns (added, forgotten).
        `echoes`: ids whose put on this page this device uploaded itself; one it changed since (a put still
        owed in the outbox) keeps the change, which goes up next and replaces that put everywhere."""
        puts: list[ColdEntry] = [check_entry(e, n) for n, (kind, e) in enumerate(items) if kind == "put"]
        index, agent = self.index, self.agent_id
        with index.tx() as conn:
            owed = _owed(conn, agent, list(echoes)) if echoes else set()
            added = forgotten = 0
            for kind, item in items:  # in log order: a forget after a put wins, a re-store after it too
                if kind == "put":
                    put = puts.pop(0)
                    if put["id"] not in owed:
                        added += index.put_in(conn, agent, [put], queue=False)
                else:
                    forgotten += len(index.forget_in(conn, agent, [item["id"]], float(item["at"]), queue=False))
            set_meta_in(conn, self.cursor_key, str(int(seq)))
        if added:  # hybrid mode: the new memories get their vectors
            index.arrived(agent, [item["id"] for kind, item in items if kind == "put"], pulled=True)
        return added, forgotten

    def drop(self) -> None:
        """Remove every trace of the agent from the index, its cursors included (a refused restore)."""
        self.index.drop_agent(self.agent_id, meta_prefixes=[f"cursor:{self.agent_id}:"])


def _owed(conn: Any, agent_id: str, ids: list[str]) -> set[str]:
    """The ids among `ids` with a put still owed to the cloud log (changed here since their last upload)."""
    out: set[str] = set()
    for chunk in chunks(ids, IDS_PER_STMT):
        out |= {r[0] for r in conn.execute(f"SELECT id FROM outbox WHERE agent_id = ? AND op = 'put' AND id IN "
                                           f"({marks(len(chunk))})", [agent_id, *chunk])}
    return out
