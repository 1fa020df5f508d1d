"""The cold archive on libSQL: memoryd.tiers.ports.Archive implemented over sync.db.Database.

Every statement is scoped by agent_id and takes user text only as parameters. Search runs the
word index (unicode61), the trigram index (CJK, substrings) and, for 1–2 character CJK terms,
an agent-scoped LIKE, in one statement (one round trip), then ranks in Python:

    text      = best of the normalised BM25 scores of the indexes that matched
    memory    = importance × exp(-age_days/30) × (1 + 0.1 × access_count)
    relevance = text × (0.75 + 0.25 × min(1, memory / 0.3))       (0..1, best first)
"""
from __future__ import annotations

import json
import math
import time
from typing import Any, Callable, Iterator, Sequence

from memoryd.tiers.config import Config, validate_agent_id
from memoryd.tiers.errors import UsageError
from memoryd.tiers.ports import ColdEntry

from . import fts
from .db import Database, Stmt, connect
from .schema import ensure_schema

DAY = 86400.0
PAGE = 500  # rows per page in iter_entries
ROWS_PER_INSERT = 100  # 9 parameters each: stays under SQLite's classic 999-variable limit
IDS_PER_STMT = 500
WARM_FLOOR = 0.3  # a memory score at the warm threshold counts as "fully alive" in ranking

_COLS = "m.id, m.text, m.category, m.importance, m.created_at, m.access_count, m.last_access, m.metadata"
_UPSERT_HEAD = ("INSERT INTO cold_memories (agent_id, id, text, category, importance, created_at, "
                "access_count, last_access, metadata) VALUES ")
# Replace by id; counts only grow, and an identical row is left alone (no index churn).
_UPSERT_TAIL = (
    " ON CONFLICT (agent_id, id) DO UPDATE SET text = excluded.text, category = excluded.category, "
    "importance = excluded.importance, created_at = excluded.created_at, "
    "access_count = MAX(cold_memories.access_count, excluded.access_count), "
    "last_access = MAX(COALESCE(cold_memories.last_access, 0), COALESCE(excluded.last_access, 0)), "
    "metadata = excluded.metadata "
    "WHERE cold_memories.text IS NOT excluded.text OR cold_memories.category IS NOT excluded.category "
    "OR cold_memories.importance IS NOT excluded.importance OR cold_memories.created_at IS NOT excluded.created_at "
    "OR cold_memories.access_count < excluded.access_count "
    "OR COALESCE(cold_memories.last_access, 0) < COALESCE(excluded.last_access, 0) "
    "OR cold_memories.metadata IS NOT excluded.metadata"
)


def _chunks(items: Sequence[Any], size: int) -> Iterator[Sequence[Any]]:
    for i in range(0, len(items), size):
        yield items[i:i + size]


def _marks(n: int) -> str:
    return ", ".join("?" * n)


def _row(entry: ColdEntry, n: int) -> list[Any]:
    """Validate one entry and turn it into the 8 column values after agent_id."""
    try:
        mid, text, category = entry["id"], entry["text"], entry["category"]
        created = float(entry["created_at"])
        importance = entry.get("importance")
        importance = None if importance is None else float(importance)
        access = int(entry.get("access_count") or 0)
        last = entry.get("last_access")
        last = None if last is None else int(float(last))
    except (KeyError, TypeError, ValueError) as exc:
        raise UsageError(f"cold entry #{n} is malformed: {type(exc).__name__} {exc}") from None
    if not (isinstance(mid, str) and mid and isinstance(text, str) and text and isinstance(category, str)):
        raise UsageError(f"cold entry #{n} needs a non-empty id, text and category")
    if not math.isfinite(created) or (importance is not None and not math.isfinite(importance)):
        raise UsageError(f"cold entry #{n} has a non-finite number")
    meta = entry.get("metadata") or {}
    if not isinstance(meta, dict):
        raise UsageError(f"cold entry #{n}: metadata must be an object")
    meta_text = json.dumps(meta, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return [mid, text, category, importance, int(created), access, last, meta_text]


def _entry(row: Sequence[Any]) -> dict[str, Any]:
    mid, text, category, importance, created, access, last, meta = row[:8]
    try:
        metadata = json.loads(meta) if meta else {}
    except ValueError:
        metadata = {}  # a hand-edited row must not break search
    return {
        "id": mid, "text": text, "category": category,
        "importance": importance, "created_at": created, "access_count": int(access or 0),
        "last_access": last, "metadata": metadata if isinstance(metadata, dict) else {}, "tier": "cold",
    }


def memory_score(entry: dict[str, Any], now: float) -> float:
    importance = entry["importance"] if entry["importance"] is not None else 0.5
    age_days = max(0.0, (now - float(entry["created_at"])) / DAY)
    return float(importance) * math.exp(-age_days / 30.0) * (1 + 0.1 * entry["access_count"])


class LibsqlArchive:
    """Cold storage in one libSQL database (file: or server), shared by all agents."""

    def __init__(self, db: Database, clock: Callable[[], float] = time.time) -> None:
        self.db = db
        self.clock = clock

    def __repr__(self) -> str:
        return f"LibsqlArchive({self.db.display_url!r})"

    # -- writes --------------------------------------------------------------------------------
    def put(self, agent_id: str, entries: Sequence[ColdEntry]) -> None:
        """Insert or replace entries by id, all in one atomic batch (durable when this returns)."""
        validate_agent_id(agent_id)
        rows = [[agent_id, *_row(e, n)] for n, e in enumerate(entries)]
        if not rows:
            return
        stmts: list[Stmt] = []
        for chunk in _chunks(rows, ROWS_PER_INSERT):
            sql = _UPSERT_HEAD + ", ".join(["(?, ?, ?, ?, ?, ?, ?, ?, ?)"] * len(chunk)) + _UPSERT_TAIL
            stmts.append((sql, [v for r in chunk for v in r]))
        self.db.batch(stmts)

    def touch(self, agent_id: str, ids: Sequence[str]) -> None:
        validate_agent_id(agent_id)
        unique = sorted(set(ids))
        if not unique:
            return
        now = int(self.clock())
        self.db.batch([
            (f"UPDATE cold_memories SET access_count = access_count + 1, last_access = ? "
             f"WHERE agent_id = ? AND id IN ({_marks(len(c))})", [now, agent_id, *c])
            for c in _chunks(unique, IDS_PER_STMT)
        ])

    def delete_ids(self, agent_id: str, ids: Sequence[str]) -> int:
        validate_agent_id(agent_id)
        unique = sorted(set(ids))
        if not unique:
            return 0
        results = self.db.batch([
            (f"DELETE FROM cold_memories WHERE agent_id = ? AND id IN ({_marks(len(c))})", [agent_id, *c])
            for c in _chunks(unique, IDS_PER_STMT)
        ])
        return sum(r.rows_affected for r in results)

    def delete_created_between(self, agent_id: str, start: float, end: float) -> list[str]:
        validate_agent_id(agent_id)
        where = "WHERE agent_id = ? AND created_at >= ? AND created_at < ?"
        args = [agent_id, float(start), float(end)]
        found, _ = self.db.batch([
            (f"SELECT id FROM cold_memories {where} ORDER BY id", args),
            (f"DELETE FROM cold_memories {where}", args),
        ])
        return [r[0] for r in found.rows]

    # -- reads ---------------------------------------------------------------------------------
    def get(self, agent_id: str, ids: Sequence[str]) -> list[dict[str, Any]]:
        validate_agent_id(agent_id)
        wanted = list(dict.fromkeys(ids))
        found: dict[str, dict[str, Any]] = {}
        for c in _chunks(wanted, IDS_PER_STMT):
            res = self.db.execute(
                f"SELECT {_COLS} FROM cold_memories m WHERE m.agent_id = ? AND m.id IN ({_marks(len(c))})",
                [agent_id, *c])
            found.update((row[0], _entry(row)) for row in res.rows)
        return [found[i] for i in wanted if i in found]

    def count(self, agent_id: str) -> int:
        validate_agent_id(agent_id)
        return int(self.db.execute("SELECT COUNT(*) FROM cold_memories WHERE agent_id = ?", [agent_id]).scalar(0))

    def category_counts(self, agent_id: str) -> dict[str, int]:
        validate_agent_id(agent_id)
        res = self.db.execute(
            "SELECT category, COUNT(*) FROM cold_memories WHERE agent_id = ? GROUP BY category ORDER BY category",
            [agent_id])
        return {cat: int(n) for cat, n in res.rows}

    def iter_entries(self, agent_id: str) -> Iterator[dict[str, Any]]:
        """Every entry in id order, PAGE rows per round trip (keyset paging: stable under inserts)."""
        validate_agent_id(agent_id)
        after = ""
        while True:
            res = self.db.execute(
                f"SELECT {_COLS} FROM cold_memories m WHERE m.agent_id = ? AND m.id > ? ORDER BY m.id LIMIT ?",
                [agent_id, after, PAGE])
            for row in res.rows:
                yield _entry(row)
            if len(res.rows) < PAGE:
                return
            after = res.rows[-1][0]

    def search(self, agent_id: str, query: str, limit: int = 10) -> list[dict[str, Any]]:
        """Full-text search; hostile text returns hits or nothing, never an error."""
        validate_agent_id(agent_id)
        limit = max(1, min(int(limit), 1000))
        p = fts.plan(query)
        if p.empty:
            return []
        parts, args = _search_sql(p, agent_id, max(limit * 4, 40))
        res = self.db.execute(" UNION ALL ".join(parts), args)
        return _rank(res.rows, self.clock(), len(p.likes))[:limit]

    def close(self) -> None:
        self.db.close()


def _search_sql(p: fts.Plan, agent_id: str, n: int) -> tuple[list[str], list[Any]]:
    """One SELECT per index, UNION ALL'ed so the whole search is one round trip."""
    parts: list[str] = []
    args: list[Any] = []
    for src, table, match in (("w", "cold_fts", p.words), ("t", "cold_trigram", p.trigram)):
        if match:
            # bm25 is lower-is-better; weight text above category.
            parts.append(
                f"SELECT * FROM (SELECT {_COLS}, '{src}' AS src, -bm25({table}, 1.0, 0.4) AS s FROM {table} "
                f"JOIN cold_memories m ON m.rowid = {table}.rowid WHERE {table} MATCH ? AND m.agent_id = ? "
                f"ORDER BY s DESC LIMIT ?)")
            args += [match, agent_id, n]
    if p.likes:
        hit = " + ".join(["((m.text LIKE ? ESCAPE '\\') OR (m.category LIKE ? ESCAPE '\\'))"] * len(p.likes))
        parts.append(
            f"SELECT * FROM (SELECT {_COLS}, 'l' AS src, ({hit}) AS s FROM cold_memories m "
            f"WHERE m.agent_id = ? AND ({hit}) > 0 ORDER BY m.created_at DESC LIMIT ?)")
        pats = [x for pat in p.likes for x in (pat, pat)]
        args += pats + [agent_id] + pats + [n]
    return parts, args


def _rank(rows: list[tuple[Any, ...]], now: float, n_likes: int) -> list[dict[str, Any]]:
    best: dict[str, float] = {"w": 0.0, "t": 0.0, "l": float(max(n_likes, 1))}
    for row in rows:
        best[row[8]] = max(best[row[8]], float(row[9] or 0.0))
    weight = {"w": 1.0, "t": 0.9, "l": 0.8}  # exact words beat substrings beat short-CJK scans
    text: dict[str, float] = {}
    entries: dict[str, dict[str, Any]] = {}
    for row in rows:
        src, s = row[8], float(row[9] or 0.0)
        norm = weight[src] * (s / best[src] if best[src] > 0 else 0.0)
        prev = text.get(row[0], 0.0)
        # Matching in several indexes adds a little on top of the best one.
        text[row[0]] = min(1.0, max(prev, norm) + 0.1 * min(prev, norm))
        entries.setdefault(row[0], _entry(row))
    out = []
    for mid, t in text.items():
        e = entries[mid]
        alive = min(1.0, memory_score(e, now) / WARM_FLOOR)
        out.append(dict(e, relevance=round(max(0.0, min(1.0, t * (0.75 + 0.25 * alive))), 4)))
    out.sort(key=lambda e: (-e["relevance"], e["id"]))
    return out


def open_archive(config: Config, **kw: Any) -> LibsqlArchive:
    """Connect to the configured database and migrate its schema forward."""
    db = connect(config)
    try:
        ensure_schema(db)
    except BaseException:
        db.close()
        raise
    return LibsqlArchive(db, **kw)
