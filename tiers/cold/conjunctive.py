"""Exact top-k BM25 for queries with common words, from cheap AND queries instead of one OR over them.

FTS5's `MATCH 'a OR b' ORDER BY rank LIMIT k` scores every row holding any term: at a million rows a
word in 4 % of them costs ~60 ms. An AND of two such words seeks through both lists and scores only
the rows holding both (~2 ms). So: ask the AND of small term sets S (each rare term alone, every pair,
then whatever the bound below points at), score the rows they return exactly, and prove that no row
left out can reach the k-th score. A row not returned holds some set X of the query's terms and:
  - if no asked set lies inside X, it scores at most Σ_{t∈X} M(t), M(t) = idf(t)·(k1+1) (the most one
    term adds, whatever its frequency and the row's length);
  - if an asked set S ⊆ X came back complete, it was returned (it is not left out);
  - else it fell below the cut of every asked S ⊆ X, so it scores at most min_S (cut(S) + Σ_{X∖S} M).
The largest such bound over all X (≤ 2^6 sets) must not exceed the k-th exact score; if it does, the
set X behind it is asked next, a few times, and failing that the caller runs the full OR query. The
answer is FTS5's own top k either way (its formula, in Python, for the returned rows).
"""
from __future__ import annotations

import itertools
import math
from collections import Counter
from typing import Callable, Iterable, Sequence

from memoryd.tiers.retrieval import analyzer

K1, B = 1.2, 0.75          # FTS5's bm25() defaults
FETCH = 50                 # rows asked of each AND query (4x more when a set is asked again)
MAX_FETCH = 800
MORE_SETS = 12             # sets asked beyond the first round before giving up
MAX_TERMS = 6              # 2^terms bounds to weigh: longer queries take the full query
CHEAP_POSTINGS = 20_000    # under this many postings the full OR query is as cheap as this
SINGLE_MAX = 5_000         # a term alone is asked first when in at most this many rows (else when the bound needs it)

Query = Callable[[Sequence[str], int], list[tuple[int, float]]]   # AND of terms → (rowid, score) best first
Docs = Callable[[Sequence[int]], dict[int, list[str]]]             # rowids → their indexed terms


def idf(n_docs: int, df: int) -> float:
    """FTS5's IDF (never below 1e-6)."""
    value = math.log((n_docs - df + 0.5) / (df + 0.5)) if n_docs else 0.0
    return max(value, 1e-6)


def score(terms: Sequence[str], doc: Sequence[str], idfs: dict[str, float], avg_len: float) -> float:
    """BM25 of one row for `terms`, as FTS5's bm25() computes it (positive)."""
    tf = Counter(doc)
    norm = K1 * (1 - B + B * len(doc) / max(avg_len, 1e-9))
    return sum(idfs[t] * tf[t] * (K1 + 1) / (tf[t] + norm) for t in terms if tf.get(t))


def worth_it(terms: Sequence[str], dfs: dict[str, int]) -> bool:
    """Enough postings that the OR is slow, few enough terms to weigh their sets, and no CJK terms: a
    bigram's rows hold both its characters, so their sets' bounds overlap and settle late (measured
    slower than the full query)."""
    return (2 <= len(terms) <= MAX_TERMS and sum(dfs.get(t, 0) for t in terms) >= CHEAP_POSTINGS
            and not any(analyzer.has_cjk(t) for t in terms))


class TopK:
    """One search: the sets asked so far, the rows they returned, and the bound on every other row."""

    def __init__(self, terms: Sequence[str], dfs: dict[str, int], n_docs: int, avg_len: float,
                 query: Query, docs: Docs) -> None:
        self.terms, self.avg_len, self.query, self.docs = list(terms), avg_len, query, docs
        self.idfs = {t: idf(n_docs, dfs.get(t, 0)) for t in self.terms}
        self.most = {t: self.idfs[t] * (K1 + 1) for t in self.terms}
        self.asked: dict[frozenset[str], tuple[bool, float]] = {}  # set → (complete, cut score)
        self.fetched: dict[frozenset[str], int] = {}  # set → rows asked of it
        self.found: dict[int, tuple[float, frozenset[str]]] = {}  # rowid → best partial score, its set
        self.seen: dict[int, set[frozenset[str]]] = {}  # rowid → the sets that returned it
        self.exact: dict[int, float] = {}
        self.first = [frozenset([t]) for t in self.terms if dfs.get(t, 0) <= SINGLE_MAX]
        self.first += [frozenset(p) for p in itertools.combinations(self.terms, 2)]

    def run(self, limit: int) -> list[tuple[int, float]] | None:
        """The exact best `limit` (rowid, score), or None when the bound would not settle."""
        for s in self.first:
            self._ask(s)
        for _ in range(MORE_SETS + 1):
            bound, worst = self._bound()
            best = self._best(limit)
            if len(best) >= limit and best[limit - 1][1] >= bound:
                return best
            if worst is None or self.fetched.get(worst, 0) >= MAX_FETCH:
                return None
            self._ask(worst)  # a set asked already: its rows below the cut, 4x as many
        return None

    def _ask(self, s: frozenset[str]) -> None:
        n = self.fetched[s] * 4 if s in self.fetched else FETCH
        rows = self.query(sorted(s), n)
        self.fetched[s] = n
        self.asked[s] = (len(rows) < n, rows[-1][1] if rows else 0.0)
        for rowid, partial in rows:
            self.seen.setdefault(rowid, set()).add(s)
            if partial > self.found.get(rowid, (-1.0, s))[0]:
                self.found[rowid] = (partial, s)

    def _bound(self) -> tuple[float, frozenset[str] | None]:
        """The most a row not returned can score, and the term set that allows it."""
        top, worst = 0.0, None
        for n in range(1, len(self.terms) + 1):
            for combo in itertools.combinations(self.terms, n):
                x = frozenset(combo)
                inside = [s for s in self.asked if s <= x]
                if any(self.asked[s][0] for s in inside):
                    continue
                value = min((self.asked[s][1] + self._most(x - s) for s in inside), default=self._most(x))
                if value > top:
                    top, worst = value, x
        return top, worst

    def _lacks(self, rowid: int, holds: frozenset[str], term: str) -> bool:
        """A row holding `holds` lacks `term` if a complete set of those terms with it did not return it."""
        return any(done and term in a and a - {term} <= holds and a not in self.seen[rowid]
                   for a, (done, _) in self.asked.items())

    def _most(self, terms: Iterable[str]) -> float:
        return sum(self.most[t] for t in terms)

    def _best(self, limit: int) -> list[tuple[int, float]]:
        """The exact top of the returned rows, scoring (analysing) only those that could make it."""
        def ceiling(rowid: int) -> float:
            if rowid in self.exact:  # scored already: its ceiling is its score
                return self.exact[rowid]
            partial, s = self.found[rowid]
            return partial + self._most(t for t in self.terms if t not in s and not self._lacks(rowid, s, t))

        ceilings = {rowid: ceiling(rowid) for rowid in self.found}
        order = sorted(ceilings, key=ceilings.__getitem__, reverse=True)
        best: list[tuple[int, float]] = []
        i = 0
        while i < len(order):
            if len(best) >= limit and best[limit - 1][1] >= ceilings[order[i]]:
                break
            batch = [r for r in order[i:i + 32] if r not in self.exact]
            for rowid, doc in self.docs(batch).items():
                self.exact[rowid] = score(self.terms, doc, self.idfs, self.avg_len)
            for rowid in order[i:i + 32]:
                best.append((rowid, self.exact.get(rowid, 0.0)))
            best.sort(key=lambda rs: (-rs[1], rs[0]))
            i += 32
        return best[:limit]


def top_k(terms: Sequence[str], dfs: dict[str, int], n_docs: int, avg_len: float, limit: int,
          query: Query, docs: Docs) -> list[tuple[int, float]] | None:
    """Exact best `limit` rows for the OR of `terms`, or None: run the full query (not worth it, or not settled)."""
    if not worth_it(terms, dfs):
        return None
    return TopK(terms, dfs, n_docs, avg_len, query, docs).run(limit)

