"""The local index: every memory that left warm, on this device (memoryd.tiers.base.ports.Archive).

All reading happens here (search, dated, counts), with the server up or down. A memory leaves warm
by one durable transaction that inserts its row and its terms and, with a server URL, queues it in
the outbox table for upload; sync/cloudlog.py drains that outbox and applies what other devices
pushed through `apply_remote`. Search is exact BM25 (FTS5) over the agent's own terms table, no
newest-N cut; the ranking across tiers happens in memoryd.tiers.retrieval.ranking.
"""
from __future__ import annotations

import sqlite3
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

from memoryd.tiers.retrieval import analyzer
from memoryd.tiers.base.config import validate_agent_id
from memoryd.tiers.base.ports import ColdEntry

from memoryd.tiers.cold import conjunctive
from memoryd.tiers.cold.index_log import CloudLogSide
from memoryd.tiers.cold.index_put import put_rows, tombstones
from memoryd.tiers.cold.index_rows import (IDS_PER_STMT, PAGE, Progress, COLUMNS, TERM_RE, check_entry, chunks, marks, reporter, row_entry, terms_text)
from memoryd.tiers.cold.index_file import connect, translate
from memoryd.tiers.cold.index_schema import ensure_local_schema, terms_table

class LocalIndex(CloudLogSide):
    """One SQLite file for every agent of this device; safe to share between threads."""

    def __init__(self, path: Path, *, remote: bool = False, clock: Callable[[], float] = time.time,
                 progress: Progress | None = None) -> None:
        self.path = path
        self.remote = remote  # a server URL: puts and forgets queue in the outbox for upload
        self.clock = clock
        self._lock = threading.RLock()
        self._ready: set[str] = set()  # agents whose terms table is known to exist
        self._stats: dict[tuple[Any, ...], tuple[int, int, dict[str, int]]] = {}
        self._vocab: set[str] = set()
        self.after_put: Callable[..., None] | None = None  # hybrid mode: sync/vectors.attach
        self._vectors: Any = None
        self._conn: sqlite3.Connection | None = connect(path)
        try:
            with self._guard():
                ensure_local_schema(self._conn)
            self._rebuild_stale(progress)
        except BaseException:
            self.close()
            raise

    def __repr__(self) -> str:
        return f"LocalIndex({str(self.path)!r})"

    # -- plumbing ------------------------------------------------------------------------------
    @contextmanager
    def _guard(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            if self._conn is None:
                raise translate(sqlite3.ProgrammingError("closed"), self.path)
            try:
                yield self._conn
            except sqlite3.Error as exc:
                raise translate(exc, self.path) from None

    @contextmanager
    def tx(self, durable: bool = True) -> Iterator[sqlite3.Connection]:
        """One write transaction; `durable=False` for bookkeeping a crash may lose (access counts)."""
        with self._guard() as conn:
            if not durable:
                conn.execute("PRAGMA synchronous=NORMAL")
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
                conn.execute("COMMIT")
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise
            finally:
                if not durable:
                    conn.execute("PRAGMA synchronous=FULL")

    def read(self, sql: str, args: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        with self._guard() as conn:
            return conn.execute(sql, list(args)).fetchall()

    def close(self) -> None:
        with self._lock:
            conn, self._conn = self._conn, None
        if conn is not None:
            conn.close()

    def __enter__(self) -> "LocalIndex":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    @property
    def vectors(self) -> Any:
        """Hybrid retrieval's vectors of this index (tiers/cold/vectors.py; loaded on first use)."""
        if self._vectors is None:
            from memoryd.tiers.cold.vectors import VectorStore

            self._vectors = VectorStore(self)
        return self._vectors

    # -- the terms tables ------------------------------------------------------------------------
    def _has_terms(self, conn: sqlite3.Connection, agent_id: str) -> bool:
        if agent_id in self._ready:
            return True
        found = conn.execute("SELECT 1 FROM sqlite_master WHERE name = ?", [f"terms:{agent_id}"]).fetchone()
        if found:
            self._ready.add(agent_id)
        return bool(found)

    def _create_terms(self, conn: sqlite3.Connection, agent_id: str) -> None:
        if self._has_terms(conn, agent_id):
            return
        conn.execute(f"CREATE VIRTUAL TABLE IF NOT EXISTS {terms_table(agent_id)} USING fts5(terms, content='', "
                     "detail=full, tokenize='unicode61 remove_diacritics 0')")
        conn.execute("INSERT OR REPLACE INTO index_meta VALUES (?, ?)", [f"sig:{agent_id}", analyzer.SIGNATURE])
        conn.execute("INSERT OR IGNORE INTO agent_stats VALUES (?, 0, 0)", [agent_id])
        self._ready.add(agent_id)

    def _rebuild_stale(self, progress: Progress | None) -> None:
        """Agents whose terms were built by another analysis (or never: a migrated index) are re-indexed."""
        with self._guard() as conn:
            stale = [r[0] for r in conn.execute(
                "SELECT a.agent_id FROM agent_stats a LEFT JOIN index_meta s ON s.key = 'sig:' || a.agent_id "
                "WHERE s.value IS NOT ?",
                [analyzer.SIGNATURE])]
        for agent_id in stale:
            self.rebuild(agent_id, progress)

    def rebuild(self, agent_id: str, progress: Progress | None = None) -> int:
        """Build an agent's terms table from its rows, in one transaction."""
        validate_agent_id(agent_id)
        with self.tx() as conn:
            conn.execute(f"DROP TABLE IF EXISTS {terms_table(agent_id)}")
            self._ready.discard(agent_id)
            conn.execute("DELETE FROM index_meta WHERE key = ?", [f"sig:{agent_id}"])
            self._create_terms(conn, agent_id)
            total = conn.execute("SELECT COUNT(*) FROM memories WHERE agent_id = ?", [agent_id]).fetchone()[0]
            done = n_terms = 0
            advance = reporter(progress, "index", total)
            insert = f"INSERT INTO {terms_table(agent_id)}(rowid, terms) VALUES (?, ?)"
            rows = conn.execute("SELECT rowid, text, category FROM memories WHERE agent_id = ?", [agent_id]).fetchall()
            for chunk in chunks(rows, 2000):
                batch = []
                for rowid, text, category in chunk:
                    joined, n = terms_text(text, category)
                    batch.append((rowid, joined))
                    n_terms += n
                conn.executemany(insert, batch)
                done += len(chunk)
                advance(len(chunk))
            conn.execute("INSERT OR REPLACE INTO agent_stats VALUES (?, ?, ?)", [agent_id, total, n_terms])
        return total

    # -- writes ------------------------------------------------------------------------------------
    def put(self, agent_id: str, entries: Sequence[ColdEntry], *, queue: bool = True) -> int:
        """Insert or replace entries by id, durably and atomically; returns how many rows changed.

        A forgotten id stays forgotten unless the entry was created after the forget (stored anew).
        With a server URL each changed row is queued for upload (unless `queue` is False: it came
        from the cloud log)."""
        validate_agent_id(agent_id)
        rows = [check_entry(e, n) for n, e in enumerate(entries)]
        if not rows:
            return 0
        advance = reporter(None, "archive", len(rows))
        with self.tx() as conn:
            changed = 0
            for start in range(0, len(rows), 1000):  # one transaction; progress per thousand rows
                changed += self._put(conn, agent_id, rows[start:start + 1000], queue and self.remote)
                advance(len(rows[start:start + 1000]))
        if self.after_put is not None:
            self.after_put(agent_id, [r["id"] for r in rows])
        return changed

    def _put(self, conn: sqlite3.Connection, agent_id: str, rows: list[dict[str, Any]], queue: bool) -> int:
        self._create_terms(conn, agent_id)
        return put_rows(conn, agent_id, rows, queue, int(self.clock()))

    def forgotten_at(self, agent_id: str, ids: Sequence[str]) -> dict[str, int]:
        """When each of these ids was forgotten (ids never forgotten are absent)."""
        with self._guard() as conn:
            return tombstones(conn, agent_id, list(dict.fromkeys(ids)))

    def forget(self, agent_id: str, ids: Sequence[str], at: float | None = None) -> list[str]:
        """Delete these ids and remember them as forgotten (the cloud log too, with a server URL).
        Returns the ids that were in the index."""
        validate_agent_id(agent_id)
        unique = sorted(set(ids))
        if not unique:
            return []
        with self.tx() as conn:
            return self._forget(conn, agent_id, unique, int(self.clock() if at is None else at), self.remote)

    def _forget(self, conn: sqlite3.Connection, agent_id: str, ids: Sequence[str], at: int, queue: bool) -> list[str]:
        """queue=False: a forget from another device, which spares a copy stored anew after it."""
        gone = []
        d_terms = 0
        has_terms = self._has_terms(conn, agent_id)
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

    def delete_ids(self, agent_id: str, ids: Sequence[str]) -> int:
        return len(self.forget(agent_id, ids))

    def delete_created_between(self, agent_id: str, start: float, end: float) -> list[str]:
        ids = [r[0] for r in self.read("SELECT id FROM memories WHERE agent_id = ? AND created_at >= ? AND created_at < ? "
                                       "ORDER BY id", [agent_id, float(start), float(end)])]
        self.forget(agent_id, ids)
        return ids

    def set_access(self, agent_id: str, counts: dict[str, tuple[int, int]]) -> None:
        """Fold recorded access counts ({id: (count, last)}; max, so repeating it changes nothing)."""
        if not counts:
            return
        with self.tx(durable=False) as conn:
            conn.executemany("UPDATE memories SET access_count = MAX(access_count, ?), last_access = "
                             "MAX(COALESCE(last_access, 0), ?) WHERE agent_id = ? AND id = ?",
                             [(n, last, agent_id, mid) for mid, (n, last) in counts.items()])

    def touch(self, agent_id: str, ids: Sequence[str]) -> None:
        """Count one access each (reinforcement); not worth an fsync of its own."""
        unique = sorted(set(ids))
        if not unique:
            return
        now = int(self.clock())
        with self.tx(durable=False) as conn:
            for chunk in chunks(unique, IDS_PER_STMT):
                conn.execute(f"UPDATE memories SET access_count = access_count + 1, last_access = ? "
                             f"WHERE agent_id = ? AND id IN ({marks(len(chunk))})", [now, agent_id, *chunk])

    # -- reads -------------------------------------------------------------------------------------
    def search(self, agent_id: str, terms: Sequence[str], limit: int = 10,
               prefixes: Sequence[str] = ()) -> list[dict[str, Any]]:
        """The `limit` best rows by BM25 over the agent's terms (any term may match; `prefixes` match
        any term they begin), best first; each carries `bm25` (higher is better)."""
        validate_agent_id(agent_id)
        terms = [t for t in terms if TERM_RE.fullmatch(t)]  # analyzer terms only: nothing else reaches MATCH
        prefixes = [p for p in prefixes if TERM_RE.fullmatch(p)]
        if not terms and not prefixes:
            return []
        limit = max(1, min(int(limit), 5000))
        with self._guard() as conn:
            if not self._has_terms(conn, agent_id):
                return []
            if not prefixes:
                found = self._conjunctive(conn, agent_id, list(dict.fromkeys(terms)), limit)
                if found is not None:
                    return found
            rows = self._top(conn, agent_id, [f'"{t}"' for t in terms] + [f'"{p}"*' for p in prefixes], limit)
        return [dict(row_entry(row), bm25=-float(row[9])) for row in rows]

    def _conjunctive(self, conn: sqlite3.Connection, agent_id: str, terms: list[str],
                     limit: int) -> list[dict[str, Any]] | None:
        """tiers/cold/conjunctive.py: the same top rows from AND queries, when common words make the OR slow.
        All in one read snapshot: a writer between the queries changes neither the stats nor the rows."""
        table = terms_table(agent_id)

        def query(subset: Sequence[str], n: int) -> list[tuple[int, float]]:
            return [(r, -s) for r, s in conn.execute(
                f"SELECT rowid, rank FROM {table} WHERE {table} MATCH ? ORDER BY rank LIMIT ?",
                [" AND ".join(f'"{t}"' for t in subset), n])]

        def docs(rowids: Sequence[int]) -> dict[int, list[str]]:
            rows = conn.execute(f"SELECT rowid, text, category FROM memories WHERE rowid IN ({marks(len(rowids))})",
                                list(rowids)).fetchall() if rowids else []
            return {r: analyzer.document(text, category) for r, text, category in rows}

        snapshot = not conn.in_transaction
        if snapshot:
            conn.execute("BEGIN")
        try:
            n_docs, n_terms, dfs = self.term_stats(agent_id, terms)
            best = conjunctive.top_k(terms, dfs, n_docs, n_terms / max(n_docs, 1), limit, query, docs)
            rows = conn.execute(f"SELECT {COLUMNS}, m.rowid FROM memories m WHERE m.rowid IN ({marks(len(best))})",
                                [r for r, _ in best]).fetchall() if best else []
        finally:
            if snapshot:
                conn.execute("COMMIT")
        if best is None:
            return None
        scores = dict(best)
        return sorted((dict(row_entry(row), bm25=scores[row[9]]) for row in rows), key=lambda e: -e["bm25"])

    def _top(self, conn: sqlite3.Connection, agent_id: str, phrases: list[str], limit: int) -> list[Any]:
        table = terms_table(agent_id)
        return conn.execute(
            f"SELECT {COLUMNS}, r.score FROM (SELECT rowid, rank AS score FROM {table} WHERE {table} MATCH ? "
            f"ORDER BY rank LIMIT ?) r CROSS JOIN memories m ON m.rowid = r.rowid ORDER BY r.score",
            [" OR ".join(phrases), limit]).fetchall()

    def term_stats(self, agent_id: str, terms: Sequence[str]) -> tuple[int, int, dict[str, int]]:
        """(rows, total terms, {term: rows holding it}) of the agent: BM25's corpus statistics."""
        validate_agent_id(agent_id)
        with self._guard() as conn:  # data_version moves when any connection commits: the cache stays right
            key = (agent_id, tuple(terms), conn.execute("PRAGMA data_version").fetchone()[0])
        if key not in self._stats:  # ranking and the exact top-k both ask, within one retrieve
            if len(self._stats) > 256:
                self._stats.clear()
            self._stats[key] = self._term_stats(agent_id, terms)
        return self._stats[key]

    def _term_stats(self, agent_id: str, terms: Sequence[str]) -> tuple[int, int, dict[str, int]]:
        with self._guard() as conn:
            stats = conn.execute("SELECT docs, terms FROM agent_stats WHERE agent_id = ?", [agent_id]).fetchone()
            if not stats or not terms or not self._has_terms(conn, agent_id):
                return (int(stats[0]), int(stats[1]), {}) if stats else (0, 0, {})
            vocab = f'temp."vocab:{agent_id}"'
            if agent_id not in self._vocab:
                conn.execute(f"CREATE VIRTUAL TABLE IF NOT EXISTS {vocab} USING fts5vocab(main, 'terms:{agent_id}', row)")
                self._vocab.add(agent_id)
            sql = " UNION ALL ".join([f"SELECT term, doc FROM {vocab} WHERE term = ?"] * len(terms))
            dfs = dict(conn.execute(sql, list(terms)).fetchall())
        return int(stats[0]), int(stats[1]), {t: int(n) for t, n in dfs.items()}

    def get(self, agent_id: str, ids: Sequence[str]) -> list[dict[str, Any]]:
        wanted = list(dict.fromkeys(ids))
        found: dict[str, dict[str, Any]] = {}
        for chunk in chunks(wanted, IDS_PER_STMT):
            rows = self.read(f"SELECT {COLUMNS} FROM memories m WHERE m.agent_id = ? AND m.id IN ({marks(len(chunk))})",
                             [agent_id, *chunk])
            found.update((row[0], row_entry(row)) for row in rows)
        return [found[i] for i in wanted if i in found]

    def dated(self, agent_id: str, since: float | None, until: float | None, limit: int = 50) -> list[dict[str, Any]]:
        """The most important entries dated in [since, until): a note's own date, else when stored."""
        lo = time.strftime("%Y-%m-%d", time.gmtime(since)) if since is not None else "0000-01-01"
        hi = time.strftime("%Y-%m-%d", time.gmtime(until)) if until is not None else "9999-12-31"
        rows = self.read(f"SELECT {COLUMNS} FROM memories m WHERE m.agent_id = ? AND m.day >= ? AND m.day < ? "
                         "ORDER BY m.importance DESC, m.created_at DESC, m.id LIMIT ?",
                         [agent_id, lo, hi, max(1, min(int(limit), 1000))])
        return [row_entry(row) for row in rows]

    def count(self, agent_id: str) -> int:
        validate_agent_id(agent_id)
        row = self.read("SELECT docs FROM agent_stats WHERE agent_id = ?", [agent_id])
        return int(row[0][0]) if row else 0

    def category_counts(self, agent_id: str) -> dict[str, int]:
        rows = self.read("SELECT category, COUNT(*) FROM memories WHERE agent_id = ? GROUP BY category "
                         "ORDER BY category", [agent_id])
        return {cat: int(n) for cat, n in rows}

    def iter_entries(self, agent_id: str) -> Iterator[dict[str, Any]]:
        """Every entry in id order, PAGE rows at a time (keyset paging: stable under inserts)."""
        after = ""
        while True:
            rows = self.read(f"SELECT {COLUMNS} FROM memories m WHERE m.agent_id = ? AND m.id > ? ORDER BY m.id LIMIT ?",
                             [agent_id, after, PAGE])
            yield from (row_entry(row) for row in rows)
            if len(rows) < PAGE:
                return
            after = rows[-1][0]
