"""The cold archive on libSQL: memoryd.tiers.ports.Archive implemented over sync.db.Database.

Every statement is scoped by agent_id and takes user text only as parameters. Search asks the
word index (unicode61 words, plus CJK unigrams/bigrams for 1–2 character queries) and the trigram
index (longer CJK runs, punctuated chunks) for each term's newest matches and its document
frequency, in one statement (one round trip); only if that finds fewer than `limit` hits, a
second statement tries Latin words as substrings. Ranking (see sync.fts.bm25):

    text      = BM25 over the candidates, 1.0 = every query term present once (× 0.8 for substrings)
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
ROWS_PER_INSERT = 90  # 10 parameters each: stays under SQLite's classic 999-variable limit
IDS_PER_STMT = 500
MAX_PER_TERM = 100  # candidates fetched per query term (newest first)
DF_CAP = 500  # document frequencies are counted up to this (IDF of common terms is ~flat anyway)
N_CAP = 10 * DF_CAP
PARTIAL_WEIGHT = 0.8  # a substring hit counts less than a whole word
WARM_FLOOR = 0.3  # a memory score at the warm threshold counts as "fully alive" in ranking

_COLS = "m.id, m.text, m.category, m.importance, m.created_at, m.access_count, m.last_access, m.metadata"
_UPSERT_HEAD = ("INSERT INTO cold_memories (agent_id, id, text, category, importance, created_at, "
                "access_count, last_access, metadata, grams) VALUES ")
# Replace by id; counts only grow, and an identical row is left alone (no index churn).
_UPSERT_TAIL = (
    " ON CONFLICT (agent_id, id) DO UPDATE SET text = excluded.text, category = excluded.category, "
    "importance = excluded.importance, created_at = excluded.created_at, "
    "access_count = MAX(cold_memories.access_count, excluded.access_count), "
    "last_access = MAX(COALESCE(cold_memories.last_access, 0), COALESCE(excluded.last_access, 0)), "
    "metadata = excluded.metadata, grams = excluded.grams "
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
    """Validate one entry and turn it into the 9 column values after agent_id."""
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
    return [mid, text, category, importance, int(created), access, last, meta_text,
            fts.cjk_grams(f"{text} {category}")]


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

    def __init__(self, db: Database, clock: Callable[[], float] = time.time, *, check_schema: bool = False) -> None:
        self.db = db
        self.clock = clock
        self._schema_pending = check_schema  # lazy archives migrate on first use

    def _check(self, agent_id: str) -> None:
        validate_agent_id(agent_id)
        if self._schema_pending:
            ensure_schema(self.db)
            self._schema_pending = False

    def __repr__(self) -> str:
        return f"LibsqlArchive({self.db.display_url!r})"

    # -- writes --------------------------------------------------------------------------------
    def put(self, agent_id: str, entries: Sequence[ColdEntry]) -> None:
        """Insert or replace entries by id, all in one atomic batch (durable when this returns)."""
        self._check(agent_id)
        rows = [[agent_id, *_row(e, n)] for n, e in enumerate(entries)]
        if not rows:
            return
        stmts: list[Stmt] = []
        for chunk in _chunks(rows, ROWS_PER_INSERT):
            sql = _UPSERT_HEAD + ", ".join(["(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"] * len(chunk)) + _UPSERT_TAIL
            stmts.append((sql, [v for r in chunk for v in r]))
        self.db.batch(stmts)

    def touch(self, agent_id: str, ids: Sequence[str]) -> None:
        self._check(agent_id)
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
        self._check(agent_id)
        unique = sorted(set(ids))
        if not unique:
            return 0
        results = self.db.batch([
            (f"DELETE FROM cold_memories WHERE agent_id = ? AND id IN ({_marks(len(c))})", [agent_id, *c])
            for c in _chunks(unique, IDS_PER_STMT)
        ])
        return sum(r.rows_affected for r in results)

    def delete_created_between(self, agent_id: str, start: float, end: float) -> list[str]:
        self._check(agent_id)
        where = "WHERE agent_id = ? AND created_at >= ? AND created_at < ?"
        args = [agent_id, float(start), float(end)]
        found, _ = self.db.batch([
            (f"SELECT id FROM cold_memories {where} ORDER BY id", args),
            (f"DELETE FROM cold_memories {where}", args),
        ])
        return [r[0] for r in found.rows]

    # -- reads ---------------------------------------------------------------------------------
    def get(self, agent_id: str, ids: Sequence[str]) -> list[dict[str, Any]]:
        self._check(agent_id)
        wanted = list(dict.fromkeys(ids))
        found: dict[str, dict[str, Any]] = {}
        for c in _chunks(wanted, IDS_PER_STMT):
            res = self.db.execute(
                f"SELECT {_COLS} FROM cold_memories m WHERE m.agent_id = ? AND m.id IN ({_marks(len(c))})",
                [agent_id, *c])
            found.update((row[0], _entry(row)) for row in res.rows)
        return [found[i] for i in wanted if i in found]

    def dated(self, agent_id: str, since: float | None, until: float | None, limit: int = 50) -> list[dict[str, Any]]:
        """Most important entries dated in [since, until): a daily note's own date, else when stored."""
        self._check(agent_id)
        day = "COALESCE(json_extract(m.metadata, '$.date'), date(m.created_at, 'unixepoch'))"
        res = self.db.execute(
            f"SELECT {_COLS} FROM cold_memories m WHERE m.agent_id = ? AND {day} >= ? AND {day} < ? "
            "ORDER BY m.importance DESC, m.created_at DESC, m.id LIMIT ?",
            [agent_id, _day(since, "0000-01-01"), _day(until, "9999-12-31"), max(1, min(int(limit), 1000))])
        return [_entry(row) for row in res.rows]

    def count(self, agent_id: str) -> int:
        self._check(agent_id)
        return int(self.db.execute("SELECT COUNT(*) FROM cold_memories WHERE agent_id = ?", [agent_id]).scalar(0))

    def category_counts(self, agent_id: str) -> dict[str, int]:
        self._check(agent_id)
        res = self.db.execute(
            "SELECT category, COUNT(*) FROM cold_memories WHERE agent_id = ? GROUP BY category ORDER BY category",
            [agent_id])
        return {cat: int(n) for cat, n in res.rows}

    def iter_entries(self, agent_id: str) -> Iterator[dict[str, Any]]:
        """Every entry in id order, PAGE rows per round trip (keyset paging: stable under inserts)."""
        self._check(agent_id)
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
        self._check(agent_id)
        limit = max(1, min(int(limit), 1000))
        per_term = min(MAX_PER_TERM, max(2 * limit, 30))
        found = self._search_pass(agent_id, fts.plan(query), per_term, 1.0)
        if len(found) < limit:
            # Too few whole-word hits: a second round trip tries Latin words as substrings.
            for mid, (entry, t) in self._search_pass(agent_id, fts.plan(query, partial=True), per_term,
                                                     PARTIAL_WEIGHT).items():
                if t > found.get(mid, (entry, 0.0))[1]:
                    found[mid] = (entry, t)
        now = self.clock()
        out = []
        for entry, t in found.values():
            alive = min(1.0, memory_score(entry, now) / WARM_FLOOR)
            out.append(dict(entry, relevance=round(max(0.0001, min(1.0, t * (0.75 + 0.25 * alive))), 4)))
        out.sort(key=lambda e: (-e["relevance"], e["id"]))
        return out[:limit]

    def _search_pass(self, agent_id: str, terms: list[fts.Term], per_term: int,
                     weight: float) -> dict[str, tuple[dict[str, Any], float]]:
        """One round trip: candidates and capped document frequencies of every term, BM25 here."""
        if not terms:
            return {}
        sql, args = _search_sql(terms, agent_id, per_term)
        entries: dict[str, dict[str, Any]] = {}
        hits: dict[str, set[int]] = {}
        dfs = [0] * len(terms)
        n_docs = 1
        for row in self.db.execute(sql, args).rows:
            term, value = row[8], row[9]
            if value is not None:  # a statistics row
                if term < 0:
                    n_docs = int(value)
                else:
                    dfs[term] = int(value)
                continue
            entries.setdefault(row[0], _entry(row))
            hits.setdefault(row[0], set()).add(term)
        docs = {mid: f"{e['text']} {e['category']}" for mid, e in entries.items()}
        scores = fts.bm25(docs, hits, terms, dfs, n_docs)
        return {mid: (entries[mid], weight * scores[mid]) for mid in entries}

    def close(self) -> None:
        self.db.close()


_TABLES = {"w": "cold_fts", "t": "cold_trigram"}


def _day(ts: float | None, default: str) -> str:
    if ts is None:
        return default
    return time.strftime("%Y-%m-%d", time.gmtime(ts))


def _search_sql(terms: list[fts.Term], agent_id: str, per_term: int) -> tuple[str, list[Any]]:
    """Per term: its newest `per_term` matches and its document frequency (capped), both among this
    agent's rows; plus the agent's row count (capped) for the IDF.

    Walking an FTS index in rowid order stops after LIMIT rows, so a term found in most rows costs
    no more than a rare one; CROSS JOIN pins that plan (the FTS index drives, rows are looked up by
    rowid). Everything is UNION ALL'ed into one statement: one round trip.
    """
    stats = ", ".join(["NULL"] * 8)
    parts = [f"SELECT {stats}, -1, (SELECT COUNT(*) FROM (SELECT 1 FROM cold_memories "
             f"WHERE agent_id = ? LIMIT {N_CAP}))"]
    args: list[Any] = [agent_id]
    for i, term in enumerate(terms):
        table = _TABLES[term.src]
        parts.append(f"SELECT * FROM (SELECT {_COLS}, {i}, NULL FROM {table} CROSS JOIN cold_memories m "
                     f"ON m.rowid = {table}.rowid WHERE {table} MATCH ? AND m.agent_id = ? "
                     f"ORDER BY {table}.rowid DESC LIMIT {int(per_term)})")
        parts.append(f"SELECT {stats}, {i}, (SELECT COUNT(*) FROM (SELECT 1 FROM {table} CROSS JOIN cold_memories m "
                     f"ON m.rowid = {table}.rowid WHERE {table} MATCH ? AND m.agent_id = ? LIMIT {DF_CAP}))")
        args += [term.match, agent_id, term.match, agent_id]
    return " UNION ALL ".join(parts), args


def open_archive(config: Config, *, lazy: bool = False, **kw: Any) -> LibsqlArchive:
    """Connect to the configured database and migrate its schema forward.

    lazy=True touches no network here: the first archive call connects and migrates (and raises
    RemoteError if the server is down), so callers can work locally through an outage.
    """
    db = connect(config, check=False)  # ensure_schema's read is the first round trip
    if lazy:
        return LibsqlArchive(db, check_schema=True, **kw)
    try:
        ensure_schema(db)
    except BaseException:
        db.close()
        raise
    return LibsqlArchive(db, **kw)
