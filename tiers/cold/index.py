"""The local index: every memory that left warm, on this device (memoryd.tiers.base.ports.Archive).

All reading happens here (search, dated, counts), with the server up or down. A memory leaves warm
by one durable transaction that inserts its row and its terms and, with a server URL (`remote=True`),
queues it in the outbox table for upload in that same transaction. What crosses the network (draining
the outbox, applying what other devices pushed) is the sync layer's, through the public methods here.
Search is exact BM25 (FTS5) over the agent's own terms table, no newest-N cut (tiers/cold/index_search.py);
the ranking across tiers happens in memoryd.tiers.retrieval.ranking.
"""
from __future__ import annotations

import sqlite3
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

from memoryd.tiers.base.config import validate_agent_id
from memoryd.tiers.base.ports import ColdEntry
from memoryd.tiers.retrieval import analyzer

from memoryd.tiers.cold import index_search
from memoryd.tiers.cold.entity_schema import ENTITY_TABLES
from memoryd.tiers.cold.index_file import connect, translate
from memoryd.tiers.cold.index_rows import (COLUMNS, IDS_PER_STMT, PAGE, TERM_RE, Progress, check_entry, chunks, marks,
                                           reporter, row_entry, terms_text)
from memoryd.tiers.cold.index_schema import ensure_local_schema, terms_table
from memoryd.tiers.cold.index_write import forget_rows, put_rows, tombstones

ArrivalHook = Callable[..., None]  # (agent_id, ids, pulled=False): hybrid mode embeds what arrived


class LocalIndex:
    """One SQLite file for every agent of this device; safe to share between threads."""

    def __init__(self, path: Path, *, remote: bool = False, clock: Callable[[], float] = time.time,
                 progress: Progress | None = None) -> None:
        self.path = path
        self.remote = remote  # a server URL: puts and forgets queue in the outbox for upload
        self.clock = clock
        self._lock = threading.RLock()
        self._holding = 0  # arrivals_together: holds open; their puts' arrivals wait in _held
        self._held: dict[tuple[str, bool], list[str]] = {}
        self._ready: set[str] = set()  # agents whose terms table is known to exist
        self._stats: dict[tuple[Any, ...], index_search.Stats] = {}
        self._vocab: set[str] = set()
        self.after_put: ArrivalHook | None = None  # hybrid mode: tiers/cold/vectors.attach
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

    @contextmanager
    def outside_tx(self) -> Iterator[sqlite3.Connection]:
        """The connection with no transaction open, for what cannot run in one (VACUUM, a WAL checkpoint)."""
        with self._guard() as conn:
            yield conn

    @contextmanager
    def reading(self) -> Iterator[sqlite3.Connection]:
        """The connection for several reads in a row, under the index's lock (no write transaction)."""
        with self._guard() as conn:
            yield conn

    def read(self, sql: str, args: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        with self._guard() as conn:
            return conn.execute(sql, list(args)).fetchall()

    @property
    def is_open(self) -> bool:
        return self._conn is not None

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

    def meta(self, key: str) -> str | None:
        """A value of index_meta (analyzer and model signatures, the sync layer's cursors and marks)."""
        rows = self.read("SELECT value FROM index_meta WHERE key = ?", [key])
        return rows[0][0] if rows else None

    def set_meta(self, key: str, value: str | None) -> None:
        with self.tx() as conn:
            set_meta_in(conn, key, value)

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
            n_terms = 0
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
                advance(len(chunk))
            conn.execute("INSERT OR REPLACE INTO agent_stats VALUES (?, ?, ?)", [agent_id, total, n_terms])
        return total

    def drop_agent(self, agent_id: str, *, meta_prefixes: Sequence[str] = ()) -> None:
        """Remove every trace of an agent from the index in one transaction, with the index_meta keys
        that begin with one of `meta_prefixes` (the sync layer's marks of that agent)."""
        validate_agent_id(agent_id)
        with self.tx() as conn:
            conn.execute(f"DROP TABLE IF EXISTS {terms_table(agent_id)}")
            self._ready.discard(agent_id)
            for table in ("memories", "agent_stats", "outbox", "tombstones", "live_vectors", "vector_stats",
                          *ENTITY_TABLES):
                conn.execute(f"DELETE FROM {table} WHERE agent_id = ?", [agent_id])
            conn.execute("DELETE FROM index_meta WHERE key = ?", [f"sig:{agent_id}"])
            for prefix in meta_prefixes:
                conn.execute("DELETE FROM index_meta WHERE substr(key, 1, ?) = ?", [len(prefix), prefix])

    # -- writes ------------------------------------------------------------------------------------
    def put(self, agent_id: str, entries: Sequence[ColdEntry]) -> int:
        """Insert or replace entries by id, durably and atomically; returns how many rows changed.

        A forgotten id stays forgotten unless the entry was created after the forget (stored anew).
        With a server URL each changed row is queued for upload in the same transaction."""
        validate_agent_id(agent_id)
        rows = [check_entry(e, n) for n, e in enumerate(entries)]
        if not rows:
            return 0
        advance = reporter(None, "archive", len(rows))
        with self.tx() as conn:
            changed = 0
            for start in range(0, len(rows), 1000):  # one transaction; progress per thousand rows
                changed += self.put_in(conn, agent_id, rows[start:start + 1000], queue=self.remote)
                advance(len(rows[start:start + 1000]))
        self.arrived(agent_id, [r["id"] for r in rows])
        return changed

    def put_in(self, conn: sqlite3.Connection, agent_id: str, rows: Sequence[ColdEntry], *, queue: bool) -> int:
        """put() inside the caller's transaction (from tx()) of rows checked by index_rows.check_entry;
        `queue`: changed rows go into the outbox. Returns how many changed."""
        self._create_terms(conn, agent_id)
        return put_rows(conn, agent_id, rows, queue, int(self.clock()))

    def arrived(self, agent_id: str, ids: Sequence[str], *, pulled: bool = False) -> None:
        """After a durable put: tell the arrival hook (hybrid mode embeds these memories), or hold them while
        arrivals are held together."""
        if self.after_put is None:
            return
        with self._lock:
            if self._holding:
                self._held.setdefault((agent_id, pulled), []).extend(ids)
                return
        self.after_put(agent_id, list(ids), pulled)

    @contextmanager
    def arrivals_together(self) -> Iterator[None]:
        """The puts inside arrive as one: the hook hears of them once, when the last such hold ends (holds may
        overlap, from threads of a daemon). A bulk ingest written in batches is one import: hybrid mode embeds a
        put inline only when it is small, and per batch a year's last short batch was embedded inline while the
        rest was left to the back-fill."""
        with self._lock:
            self._holding += 1
        try:
            yield
        finally:
            with self._lock:
                self._holding -= 1
                held = {} if self._holding else self._held  # the last hold to end tells them all
                if not self._holding:
                    self._held = {}
            for (agent_id, pulled), ids in held.items():
                if self.after_put is not None:
                    self.after_put(agent_id, ids, pulled)

    def forgotten_at(self, agent_id: str, ids: Sequence[str]) -> dict[str, float]:
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
            when = round(self.clock() if at is None else at, 3)  # milliseconds: after a key rotation of the same second
            return self.forget_in(conn, agent_id, unique, when, queue=self.remote)

    def forget_in(self, conn: sqlite3.Connection, agent_id: str, ids: Sequence[str], at: float, *,
                  queue: bool) -> list[str]:
        """forget() inside the caller's transaction; queue=False: a forget from another device, which
        spares a copy stored anew after it (tiers/cold/index_write.forget_rows)."""
        return forget_rows(conn, agent_id, ids, at, queue, self._has_terms(conn, agent_id))

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

    def pending_uploads(self, agent_id: str) -> int:
        """Memories and forgets of the agent queued for upload and not yet sent."""
        return int(self.read("SELECT COUNT(*) FROM outbox WHERE agent_id = ?", [agent_id])[0][0])

    # -- reads -------------------------------------------------------------------------------------
    def search(self, agent_id: str, terms: Sequence[str], limit: int = 10,
               prefixes: Sequence[str] = ()) -> list[ColdEntry]:
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
                found = index_search.top_conjunctive(conn, agent_id, list(dict.fromkeys(terms)), limit,
                                                     self.term_stats)
                if found is not None:
                    return found
            return index_search.top_any(conn, agent_id, terms, prefixes, limit)

    def term_stats(self, agent_id: str, terms: Sequence[str]) -> index_search.Stats:
        """(rows, total terms, {term: rows holding it}) of the agent: BM25's corpus statistics."""
        validate_agent_id(agent_id)
        with self._guard() as conn:  # data_version moves when any connection commits: the cache stays right
            key = (agent_id, tuple(terms), conn.execute("PRAGMA data_version").fetchone()[0])
            if key not in self._stats:  # ranking and the exact top-k both ask, within one retrieve
                if len(self._stats) > 256:
                    self._stats.clear()
                self._stats[key] = index_search.corpus_stats(conn, agent_id, terms, self._has_terms(conn, agent_id),
                                                             self._vocab)
            return self._stats[key]

    def get(self, agent_id: str, ids: Sequence[str]) -> list[ColdEntry]:
        wanted = list(dict.fromkeys(ids))
        found: dict[str, ColdEntry] = {}
        for chunk in chunks(wanted, IDS_PER_STMT):
            rows = self.read(f"SELECT {COLUMNS} FROM memories m WHERE m.agent_id = ? AND m.id IN ({marks(len(chunk))})",
                             [agent_id, *chunk])
            found.update((row[0], row_entry(row)) for row in rows)
        return [found[i] for i in wanted if i in found]

    def dated(self, agent_id: str, since: float | None, until: float | None, limit: int = 50) -> list[ColdEntry]:
        """The most important entries dated in [since, until): a note's own date, else when stored."""
        lo = time.strftime("%Y-%m-%d", time.gmtime(since)) if since is not None else "0000-01-01"
        hi = time.strftime("%Y-%m-%d", time.gmtime(until)) if until is not None else "9999-12-31"
        rows = self.read(f"SELECT {COLUMNS} FROM memories m WHERE m.agent_id = ? AND m.day >= ? AND m.day < ? "
                         "ORDER BY m.importance DESC, m.created_at DESC, m.id LIMIT ?",
                         [agent_id, lo, hi, max(1, min(int(limit), 1000))])
        return [row_entry(row) for row in rows]

    def of_kind(self, agent_id: str, kind: str, limit: int = 50) -> list[ColdEntry]:
        """The most important entries of one kind (tiers/knowledge/kinds.py), by their metadata."""
        from memoryd.tiers.cold.index_kinds import of_kind

        validate_agent_id(agent_id)
        with self._guard() as conn:
            return of_kind(conn, agent_id, kind, limit)

    def by_restate_key(self, agent_id: str, keys: Sequence[str]) -> list[ColdEntry]:
        """Rows whose metadata restate_key is one of `keys` (an indexed lookup)."""
        validate_agent_id(agent_id)
        if not keys:
            return []
        return [row_entry(r) for r in self.read(
            f"SELECT {COLUMNS} FROM memories m INDEXED BY memories_restate_key WHERE m.agent_id = ? AND "
            f"m.restate IN ({marks(len(keys))}) LIMIT ?", [agent_id, *keys, 50 * len(keys)])]

    def count(self, agent_id: str) -> int:
        validate_agent_id(agent_id)
        row = self.read("SELECT docs FROM agent_stats WHERE agent_id = ?", [agent_id])
        return int(row[0][0]) if row else 0

    def category_counts(self, agent_id: str) -> dict[str, int]:
        rows = self.read("SELECT category, COUNT(*) FROM memories WHERE agent_id = ? GROUP BY category "
                         "ORDER BY category", [agent_id])
        return {cat: int(n) for cat, n in rows}

    def iter_entries(self, agent_id: str) -> Iterator[ColdEntry]:
        """Every entry in id order, PAGE rows at a time (keyset paging: stable under inserts)."""
        after = ""
        while True:
            rows = self.read(f"SELECT {COLUMNS} FROM memories m WHERE m.agent_id = ? AND m.id > ? ORDER BY m.id LIMIT ?",
                             [agent_id, after, PAGE])
            yield from (row_entry(row) for row in rows)
            if len(rows) < PAGE:
                return
            after = rows[-1][0]


def set_meta_in(conn: sqlite3.Connection, key: str, value: str | None) -> None:
    """Set (or with None, delete) an index_meta value inside the caller's transaction."""
    if value is None:
        conn.execute("DELETE FROM index_meta WHERE key = ?", [key])
    else:
        conn.execute("INSERT OR REPLACE INTO index_meta VALUES (?, ?)", [key, value])
