"""Hybrid retrieval's vectors in the local index: computed when memories arrive, backfilled, cached, searched.

A memory's vector is made when it is archived (`attach` hooks LocalIndex.put and the cloud log's pulls
when `[retrieval] mode = "hybrid"`), taken from the warm/hot cache when that already holds it, and
backfilled by `fill` (the `embed` operation, the daemon after each consolidation) for rows that have
none. Search is exact: the cosine of the query with every vector of the agent (int8 rows, numpy), the
agent's matrix kept in memory while `vector_stats` says it is current (rows only added above it since are
appended: a back-fill in progress does not make every retrieve reload the whole matrix). In the daemon,
`run_in_background` hands every arrival to its back-fill thread (daemon/backfill.py), which embeds a slice
at a time with `fill_slice`. Tables: tiers/cold/vector_schema.py.
"""
from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from dataclasses import dataclass
import sqlite3
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Protocol, Sequence

from memoryd.tiers.base.config import Config
from memoryd.tiers.base.errors import ArchiveError, MemorydError
from memoryd.tiers.cold.vector_passages import passages
from memoryd.tiers.retrieval import embed

if TYPE_CHECKING:
    import numpy as np

log = logging.getLogger("memoryd.sync")

SIG_KEY = "vectors:model"
FILL_BATCH = 64       # rows embedded and committed together (a crash loses at most one batch of work)
IDS_PER_STMT = 500
MATRICES = 4          # agents whose matrix a process keeps in memory
LOAD_PAGE = 8192      # vectors read per statement when a matrix is loaded
PULLED_INLINE = 100   # a pull bringing more (a restore, a long absence) leaves them to the backfill
PUT_INLINE = 200      # so does a local put of more (a first OpenClaw sync of a long history, a bulk import)
Progress = Callable[[int, int], None]
Pause = Callable[[], bool]  # called before each model call: waits while requests are served; False = stop
_background: Callable[[str], None] | None = None  # the daemon's back-fill: arrivals are embedded there


def run_in_background(kick: Callable[[str], None] | None) -> None:
    """In this process, arrivals are left to `kick(agent_id)` (the daemon's back-fill thread), never
    embedded on the put's path; None restores inline embedding of small puts."""
    global _background
    _background = kick


def _marks(n: int) -> str:
    return ", ".join("?" * n)


class Host(Protocol):
    """What the vectors ask of the local index that holds them (tiers/cold/index.LocalIndex)."""

    path: Path
    after_put: Callable[..., None] | None

    def read(self, sql: str, args: Sequence[Any] = ()) -> list[tuple[Any, ...]]: ...

    def tx(self, durable: bool = True) -> AbstractContextManager[sqlite3.Connection]: ...

    def meta(self, key: str) -> str | None: ...

    @property
    def vectors(self) -> "VectorStore": ...


@dataclass
class _Matrix:
    version: int
    ids: list[str]
    rows: Any     # int8 (n, dim)
    scales: Any   # float32 (n,)
    low: int = 0  # the lowest rowid held
    top: int = 0  # the highest


class VectorStore:
    """One index's vectors (the tiers side sees it as memoryd.tiers.retrieval.hybrid.VectorIndex)."""

    def __init__(self, index: Host) -> None:
        self.index = index
        self._checked = False
        self._lock = threading.Lock()
        self._matrices: OrderedDict[str, _Matrix] = OrderedDict()

    def check_model(self) -> None:
        """Vectors made by another model or format are dropped once (the backfill remakes them)."""
        if self._checked:
            return
        sig = embed.signature()
        if sig is None:
            return
        if self.index.meta(SIG_KEY) != sig:
            with self.index.tx() as conn:
                old = conn.execute("SELECT value FROM index_meta WHERE key = ?", [SIG_KEY]).fetchone()
                if old is None or old[0] != sig:
                    conn.execute("DELETE FROM vectors")
                    conn.execute("DELETE FROM live_vectors")
                    conn.execute("INSERT OR REPLACE INTO index_meta VALUES (?, ?)", [SIG_KEY, sig])
        self._checked = True

    # -- vectors of the index's memories ---------------------------------------------------------
    def counts(self, agent_id: str) -> tuple[int, int]:
        """(memories with a vector, memories) of the agent."""
        row = self.index.read("SELECT COUNT(v.rowid), COUNT(*) FROM memories m LEFT JOIN vectors v ON v.rowid = m.rowid "
                              "WHERE m.agent_id = ?", [agent_id])[0]
        return int(row[0]), int(row[1])

    def missing(self, agent_id: str, ids: Sequence[str] | None = None, limit: int | None = None,
                before: int | None = None) -> list[tuple[int, str, str]]:
        """(rowid, id, text) of memories without a vector: these ids, or the oldest `limit` of all (with
        `before`: the newest below that rowid)."""
        base = ("SELECT m.rowid, m.id, m.text FROM memories m LEFT JOIN vectors v ON v.rowid = m.rowid "
                "WHERE m.agent_id = ? AND v.rowid IS NULL")
        if ids is None and before is not None:
            return [tuple(r) for r in self.index.read(base + " AND m.rowid < ? ORDER BY m.rowid DESC LIMIT ?",
                                                      [agent_id, before, limit or -1])]
        if ids is None:
            return [tuple(r) for r in self.index.read(base + " ORDER BY m.rowid LIMIT ?", [agent_id, limit or -1])]
        out: list[tuple[int, str, str]] = []
        wanted = list(dict.fromkeys(ids))
        for start in range(0, len(wanted), IDS_PER_STMT):
            chunk = wanted[start:start + IDS_PER_STMT]
            out += [tuple(r) for r in self.index.read(base + f" AND m.id IN ({_marks(len(chunk))})", [agent_id, *chunk])]
        return out[:limit] if limit else out

    def fill(self, agent_id: str, ids: Sequence[str] | None = None, limit: int | None = None,
             progress: Progress | None = None) -> int:
        """Give vectors to the memories that lack one (these ids, or any); returns how many got one."""
        self.check_model()
        todo = self.missing(agent_id, ids, limit)
        if not todo:
            return 0
        reused = self._from_live(agent_id, todo)
        rest = [t for t in todo if t[0] not in reused]
        model = embed.load() if rest else None
        done = len(reused)
        for start in range(0, len(rest), FILL_BATCH):
            chunk = rest[start:start + FILL_BATCH]
            blobs = embed.pack(model.passages(passages(self.index.read, agent_id, chunk)))  # type: ignore[union-attr]
            done += self.store_rows(agent_id, [(rowid, text, blob) for (rowid, _, text), blob in zip(chunk, blobs)])
            if progress:
                progress(min(len(reused) + start + len(chunk), len(todo)), len(todo))
        return done

    def fill_slice(self, agent_id: str, before: int, limit: int, pause: Pause) -> tuple[int, int, int]:
        """One slice of a back-fill, newest first: the next `limit` memories below rowid `before` without
        a vector, one model call each with `pause()` before it, written in one short transaction (vectors
        can be remade: not fsynced). Returns (vectors added, lowest rowid looked at, rows looked at)."""
        self.check_model()
        todo = self.missing(agent_id, limit=limit, before=before)
        if not todo:
            return 0, before, 0
        reused = self._from_live(agent_id, todo)
        model, rows, last = None, [], before
        texts = passages(self.index.read, agent_id, [t for t in todo if t[0] not in reused])
        for rowid, _, text in todo:
            if rowid not in reused:
                if not pause():
                    break
                model = model or embed.load()
                rows.append((rowid, text, embed.pack(model.passages([texts.pop(0)]))[0]))
            last = rowid
        return len(reused) + self.store_rows(agent_id, rows, durable=False), last, len(todo)

    def _from_live(self, agent_id: str, todo: list[tuple[int, str, str]]) -> set[int]:
        """A warm entry's vector moves with it into the index when it was made from the same passage (same
        id, text and date, no neighbours): no new embedding, and never a vector of another recipe."""
        by_id = {mid: (rowid, text, digest) for (rowid, mid, text), digest in
                 zip(todo, map(embed.digest, passages(self.index.read, agent_id, todo)))}
        cached = []
        ids = list(by_id)
        for start in range(0, len(ids), IDS_PER_STMT):
            chunk = ids[start:start + IDS_PER_STMT]
            cached += self.index.read(f"SELECT id, digest, vec FROM live_vectors WHERE agent_id = ? AND id IN "
                                      f"({_marks(len(chunk))})", [agent_id, *chunk])
        rows = [(by_id[mid][0], by_id[mid][1], vec) for mid, dig, vec in cached if bytes(dig) == by_id[mid][2]]
        self.store_rows(agent_id, rows)
        return {rowid for rowid, _, _ in rows}

    def store_rows(self, agent_id: str, rows: list[tuple[int, str, bytes]], durable: bool = True) -> int:
        """Insert vectors for rows that still hold the text they were made from (a forget or an edit
        since the embedding wins)."""
        if not rows:
            return 0
        with self.index.tx(durable) as conn:
            n = 0
            for rowid, text, blob in rows:
                n += conn.execute("INSERT OR REPLACE INTO vectors (rowid, agent_id, vec) SELECT rowid, agent_id, ? "
                                  "FROM memories WHERE rowid = ? AND agent_id = ? AND text = ?",
                                  [blob, rowid, agent_id, text]).rowcount
        return n

    # -- warm entries and hot items ----------------------------------------------------------------
    def live(self, agent_id: str, items: Sequence[tuple[str, str]], model: Callable[[], Any]) -> dict[str, bytes]:
        """Vectors of the agent's warm and hot items ((id, passage) — all of them: others are pruned),
        embedding only the ones new or changed since the last call."""
        self.check_model()
        have = {mid: (bytes(dig), vec) for mid, dig, vec in
                self.index.read("SELECT id, digest, vec FROM live_vectors WHERE agent_id = ?", [agent_id])}
        want = {mid: (text, embed.digest(text)) for mid, text in items}
        out = {mid: have[mid][1] for mid, (_, dig) in want.items() if mid in have and have[mid][0] == dig}
        todo = [(mid, text, dig) for mid, (text, dig) in want.items() if mid not in out]
        stale = [mid for mid in have if mid not in want]
        if todo:
            blobs = embed.pack(model().passages([text for _, text, _ in todo]))
            out.update((mid, blob) for (mid, _, _), blob in zip(todo, blobs))
        if todo or stale:
            with self.index.tx() as conn:
                for start in range(0, len(stale), IDS_PER_STMT):
                    chunk = stale[start:start + IDS_PER_STMT]
                    conn.execute(f"DELETE FROM live_vectors WHERE agent_id = ? AND id IN ({_marks(len(chunk))})",
                                 [agent_id, *chunk])
                conn.executemany("INSERT OR REPLACE INTO live_vectors VALUES (?, ?, ?, ?)",
                                 [(agent_id, mid, dig, out[mid]) for mid, _, dig in todo])
        return out

    # -- search ----------------------------------------------------------------------------------
    def nearest(self, agent_id: str, query: np.ndarray, k: int) -> tuple[list[tuple[str, float]], float, float]:
        """The `k` memories of the index closest in meaning to `query` (id, cosine), best first, and the
        lowest and highest cosine over all of them (for min-max scaling); ([], 0, 0) without vectors."""
        import numpy as np

        matrix = self._matrix(agent_id)
        if matrix is None or not matrix.ids:
            return [], 0.0, 0.0
        sims = embed.similarities(matrix.rows, matrix.scales, query)
        k = max(1, min(int(k), len(sims)))
        top = np.argpartition(-sims, k - 1)[:k]
        best = sorted(((matrix.ids[i], float(sims[i])) for i in top), key=lambda p: (-p[1], p[0]))
        return best, float(sims.min()), float(sims.max())

    def covered(self, agent_id: str) -> int:
        """How many of the agent's memories the search sees (those with a vector)."""
        matrix = self._matrix(agent_id)
        return len(matrix.ids) if matrix is not None else 0

    def _matrix(self, agent_id: str) -> _Matrix | None:
        self.check_model()
        row = self.index.read("SELECT version FROM vector_stats WHERE agent_id = ?", [agent_id])
        version = int(row[0][0]) if row else 0
        with self._lock:
            cached = self._matrices.get(agent_id)
            if cached is not None and cached.version == version:
                self._matrices.move_to_end(agent_id)
                return cached
        try:
            found = self._grown(agent_id, cached, version) if cached is not None else None
            if found is None:
                found = _Matrix(version, *self._load(agent_id))
        except ValueError as exc:
            raise ArchiveError(f"local index {self.index.path}: {exc}; run `memoryd embed --rebuild`") from None
        with self._lock:
            self._matrices[agent_id] = found
            while len(self._matrices) > MATRICES:
                self._matrices.popitem(last=False)
        return found

    def _grown(self, agent_id: str, cached: _Matrix, version: int) -> _Matrix | None:
        """`cached` with the rows added below or above it since, when that is all that changed (every insert
        or delete moves the version by one: as many new rows as moves means nothing else happened). The
        back-fill adds below (newest first), arrivals above."""
        import numpy as np

        if version - cached.version > LOAD_PAGE or not cached.ids:
            return None
        below = self._load(agent_id, 0, cached.low)
        above = self._load(agent_id, cached.top, None)
        if len(below[0]) + len(above[0]) != version - cached.version:
            return None
        return _Matrix(version, below[0] + cached.ids + above[0],
                       np.concatenate([below[1], cached.rows, above[1]]),
                       np.concatenate([below[2], cached.scales, above[2]]),
                       below[3] if below[0] else cached.low, above[4] if above[0] else cached.top)

    def _load(self, agent_id: str, after: int = 0, under: int | None = None) -> tuple[list[str], Any, Any, int, int]:
        """(ids, int8 rows, scales, lowest rowid, highest rowid) of the agent's vectors with a rowid between
        `after` and `under` (exclusive), read a page at a time (no list of every blob)."""
        import numpy as np

        dim = embed.load().dim
        ids: list[str] = []
        parts = [np.zeros((0, 4 + dim), dtype=np.uint8)]
        low, bound = None, under if under is not None else 2 ** 63 - 1
        while True:
            rows = self.index.read("SELECT v.rowid, m.id, v.vec FROM vectors v JOIN memories m ON m.rowid = v.rowid "
                                   "WHERE v.agent_id = ? AND v.rowid > ? AND v.rowid < ? ORDER BY v.rowid LIMIT ?",
                                   [agent_id, after, bound, LOAD_PAGE])
            if rows:
                parts.append(embed.raw_rows([r[2] for r in rows], dim))
                ids += [r[1] for r in rows]
                low = rows[0][0] if low is None else low
                after = rows[-1][0]
            if len(rows) < LOAD_PAGE:
                return (ids, *embed.split_rows(np.concatenate(parts)), low or 0, after)

    def clear(self, agent_id: str) -> int:
        """Drop every vector of the agent (they are remade by `fill`); returns how many."""
        with self.index.tx() as conn:
            n = conn.execute("DELETE FROM vectors WHERE agent_id = ?", [agent_id]).rowcount
            conn.execute("DELETE FROM live_vectors WHERE agent_id = ?", [agent_id])
        return n


def attach(index: Host, config: Config) -> Host:
    """In hybrid mode (with the extra installed), memories get their vector as they arrive."""
    if embed.hybrid_ready(config)[0]:
        index.after_put = lambda agent_id, ids, pulled=False: embed_arrived(index, agent_id, ids, pulled)
    return index


def embed_arrived(index: Host, agent_id: str, ids: Sequence[str], pulled: bool = False) -> None:
    """After a durable put: embed what arrived (in the daemon: its back-fill thread does). A failure only
    leaves the rows to the backfill."""
    if _background is not None:
        _background(agent_id)
        return
    if len(ids) > (PULLED_INLINE if pulled else PUT_INLINE):  # ~30-50 ms each: nobody should wait minutes
        log.info("agent %s: %d %s memories left to the backfill (memoryd embed)", agent_id, len(ids),
                 "pulled" if pulled else "archived")
        return
    try:
        index.vectors.fill(agent_id, ids)
    except (MemorydError, OSError, RuntimeError, ValueError) as exc:
        log.warning("agent %s: %d memories archived without vectors (the backfill will add them): %s",
                    agent_id, len(ids), getattr(exc, "message", None) or type(exc).__name__)
