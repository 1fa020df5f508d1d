"""Rows into and out of the local index: insert or replace by id, forgotten ids kept out, access counts
that only grow, forgets remembered, the outbox filled in the same transaction (tiers/cold/index.py holds it)."""
from __future__ import annotations

import json
import sqlite3
from typing import Any, Sequence

from memoryd.tiers.base.ports import ColdEntry

from memoryd.tiers.cold.index_rows import IDS_PER_STMT, chunks, entry_day, marks, terms_text
from memoryd.tiers.cold.index_schema import terms_table

RESTATE_KEY = "restate_key"  # the metadata key tiers/knowledge/kinds.RESTATE_KEY names (no import upwards)

_META = json.JSONEncoder(ensure_ascii=False, sort_keys=True, separators=(",", ":"))  # one encoder for every row
# _META's C encoder made once, not by every encode() (a third of its cost on a row's metadata); no circular
# check (metadata is read from JSON or built of scalars and lists), else the same bytes
_C_META = None if json.encoder.c_make_encoder is None else json.encoder.c_make_encoder(
    None, _META.default, json.encoder.encode_basestring, None, ":", ",", True, False, True)


def meta_json(meta: dict[str, Any]) -> str:
    """`_META.encode(meta)`."""
    return _META.encode(meta) if _C_META is None else "".join(_C_META(meta, 0))


def put_rows(conn: sqlite3.Connection, agent_id: str, rows: Sequence[ColdEntry], queue: bool, now: int) -> int:
    """Insert or replace checked rows by id inside the caller's transaction (the agent's terms table
    exists); returns how many changed. `queue`: each changed row goes into the outbox at `now`."""
    table = terms_table(agent_id)
    ids = [r["id"] for r in rows]
    tombs = tombstones(conn, agent_id, ids)
    olds: dict[str, tuple[Any, ...]] = {}  # id → (rowid, text, category, importance, created_at, metadata)
    for chunk in chunks(ids, IDS_PER_STMT):  # one query per chunk, not one per row
        olds.update((row[0], row[1:]) for row in conn.execute(
            "SELECT id, rowid, text, category, importance, created_at, metadata FROM memories WHERE agent_id = ? "
            f"AND id IN ({marks(len(chunk))})", [agent_id, *chunk]))
    changed = d_docs = d_terms = 0
    new_rows: list[tuple] = []  # inserts of ids not in the index, sent together (rowids given here)
    new_terms: list[tuple[int, str]] = []
    next_rowid = conn.execute("SELECT COALESCE(MAX(rowid), 0) + 1 FROM memories").fetchone()[0]
    pending: set[str] = set()
    queued: list[tuple[str, str, int]] = []
    bumps: list[ColdEntry] = []

    def flush() -> None:
        conn.executemany("INSERT INTO memories (rowid, agent_id, id, text, category, importance, created_at, "
                         "metadata, day, restate, access_count, last_access) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                         new_rows)
        conn.executemany(f"INSERT INTO {table}(rowid, terms) VALUES (?, ?)", new_terms)
        conn.executemany("INSERT OR IGNORE INTO entity_queue VALUES (?, ?)", [(agent_id, row[2]) for row in new_rows])
        new_rows.clear(), new_terms.clear(), pending.clear()

    for r in rows:
        if r["created_at"] <= tombs.get(r["id"], -1):
            continue  # a stale copy of something forgotten
        meta = meta_json(r["metadata"])
        key = r["metadata"].get(RESTATE_KEY)
        values = [r["importance"], r["created_at"], meta, entry_day(r["created_at"], r["metadata"]),
                  key if isinstance(key, str) else None]
        old = olds.get(r["id"])
        if r["id"] in pending:
            flush()  # the same id twice in one put (rare): the second sees the first in the table
        if old is None:
            rowid, next_rowid = next_rowid, next_rowid + 1
            new_rows.append((rowid, agent_id, r["id"], r["text"], r["category"], *values, r["access_count"],
                             r["last_access"]))
            joined, n = terms_text(r["text"], r["category"])
            new_terms.append((rowid, joined))
            pending.add(r["id"])
            d_docs, d_terms = d_docs + 1, d_terms + n
        elif (old[1], old[2], old[3], old[4], old[5]) == (r["text"], r["category"], *values[:3]):
            bumps.append(r)
            continue
        else:
            if (old[1], old[2]) != (r["text"], r["category"]):
                old_terms, n_old = terms_text(old[1], old[2])
                joined, n = terms_text(r["text"], r["category"])
                conn.execute(f"INSERT INTO {table}({table}, rowid, terms) VALUES ('delete', ?, ?)", [old[0], old_terms])
                conn.execute(f"INSERT INTO {table}(rowid, terms) VALUES (?, ?)", [old[0], joined])
                d_terms += n - n_old
            conn.execute("UPDATE memories SET text = ?, category = ?, importance = ?, created_at = ?, metadata = ?, "
                         "day = ?, restate = ? WHERE rowid = ?", [r["text"], r["category"], *values, old[0]])
            bumps.append(r)
            rowid = old[0]
        olds[r["id"]] = (rowid, r["text"], r["category"], *values[:3])  # the same id again in `rows` sees this
        changed += 1
        if queue:
            queued.append((agent_id, r["id"], now))
    flush()
    _bump_access(conn, agent_id, bumps)  # after the rows they bump; MAX commutes with the updates
    conn.executemany("INSERT OR REPLACE INTO outbox VALUES (?, ?, 'put', ?)", queued)
    conn.execute("UPDATE agent_stats SET docs = docs + ?, terms = terms + ? WHERE agent_id = ?",
                 [d_docs, d_terms, agent_id])
    return changed


def _bump_access(conn: sqlite3.Connection, agent_id: str, rows: list[ColdEntry]) -> None:
    """Access counts only grow (a copy from warm or another device may know more accesses)."""
    conn.executemany("UPDATE memories SET access_count = MAX(access_count, ?), last_access = MAX(COALESCE(last_access, 0), "
                     "COALESCE(?, 0)) WHERE agent_id = ? AND id = ?",
                     [(r["access_count"], r["last_access"], agent_id, r["id"]) for r in rows])


def tombstones(conn: sqlite3.Connection, agent_id: str, ids: Sequence[str]) -> dict[str, float]:
    """When each of these ids was forgotten (ids never forgotten are absent); to the millisecond, whole
    seconds in rows written before that."""
    out: dict[str, float] = {}
    for chunk in chunks(list(ids), IDS_PER_STMT):
        out.update(conn.execute(f"SELECT id, forgotten_at FROM tombstones WHERE agent_id = ? AND id IN ({marks(len(chunk))})",
                                [agent_id, *chunk]).fetchall())
    return out


def forget_rows(conn: sqlite3.Connection, agent_id: str, ids: Sequence[str], at: float, queue: bool,
                has_terms: bool) -> list[str]:
    """Delete these ids and remember them as forgotten at `at`, inside the caller's transaction; returns
    the ids that were there. `queue`: the forget goes into the outbox. Without it, a forget pulled from
    another device: a copy stored anew after it stays, and an older put still waiting to go up is dropped."""
    gone = []
    d_terms = 0
    for mid in ids:
        old = conn.execute("SELECT rowid, text, category, created_at FROM memories WHERE agent_id = ? AND id = ?",
                           [agent_id, mid]).fetchone()
        if old is not None and (queue or old[3] <= at):
            if has_terms:
                old_terms, n_old = terms_text(old[1], old[2])
                table = terms_table(agent_id)
                conn.execute(f"INSERT INTO {table}({table}, rowid, terms) VALUES ('delete', ?, ?)", [old[0], old_terms])
                d_terms += n_old
            conn.execute("DELETE FROM memories WHERE rowid = ?", [old[0]])
            gone.append(mid)
        conn.execute("INSERT INTO tombstones VALUES (?, ?, ?) ON CONFLICT (agent_id, id) DO UPDATE SET "
                     "forgotten_at = MAX(forgotten_at, excluded.forgotten_at)", [agent_id, mid, at])
        if queue:
            conn.execute("INSERT OR REPLACE INTO outbox VALUES (?, ?, 'forget', ?)", [agent_id, mid, at])
        elif old is None or old[3] <= at:  # nothing newer of ours is waiting to go up
            conn.execute("DELETE FROM outbox WHERE agent_id = ? AND id = ? AND op = 'put'", [agent_id, mid])
    conn.execute("UPDATE agent_stats SET docs = docs - ?, terms = terms - ? WHERE agent_id = ?",
                 [len(gone), d_terms, agent_id])
    return gone
