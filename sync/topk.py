"""Exact top-k BM25 without scoring every row that holds a common word (the MaxScore idea).

FTS5's `ORDER BY rank LIMIT k` scores every row matching any query term: a word found in half of a
million rows costs ~100 ms. Instead: fetch the top rows by the query's rarer terms only, add the
common terms' share to each in Python (FTS5's own formula, so the numbers are the same), and accept
the answer when no row outside the fetched set could still reach the top k — a row not fetched
scores at most (the last fetched row's rare-term score + every common term's maximum). Otherwise
fall back to the full query. Exact either way; fast when the rare terms decide, as they usually do.
"""
from __future__ import annotations

import math
from collections import Counter
from typing import Sequence

K1, B = 1.2, 0.75          # FTS5's bm25() defaults
COMMON_SHARE = 0.02        # a term in more than 2 % of the rows is "common" ...
COMMON_MIN = 2000          # ... and in more than this many (small indexes: always the full query)
TRIES = 1                  # one shortcut try (rare terms, or the rarest common one): more tries cost more than they save (measured)


def idf(n_docs: int, df: int) -> float:
    """FTS5's IDF (never below 1e-6)."""
    value = math.log((n_docs - df + 0.5) / (df + 0.5)) if n_docs else 0.0
    return max(value, 1e-6)


def split(terms: Sequence[str], dfs: dict[str, int], n_docs: int) -> tuple[list[str], list[str]]:
    cut = max(COMMON_MIN, n_docs * COMMON_SHARE)
    rare = [t for t in terms if dfs.get(t, 0) <= cut]
    return rare, [t for t in terms if dfs.get(t, 0) > cut]


def score(terms: Sequence[str], doc_terms: Sequence[str], dfs: dict[str, int], n_docs: int, avg_len: float) -> float:
    """BM25 of one row for `terms`, as FTS5's bm25() computes it (positive)."""
    tf = Counter(doc_terms)
    norm = K1 * (1 - B + B * len(doc_terms) / max(avg_len, 1e-9))
    return sum(idf(n_docs, dfs.get(t, 0)) * tf[t] * (K1 + 1) / (tf[t] + norm) for t in terms if tf.get(t))


def ceiling(terms: Sequence[str], dfs: dict[str, int], n_docs: int) -> float:
    """The most these terms can add to any row's score (tf → ∞, shortest row)."""
    return sum(idf(n_docs, dfs.get(t, 0)) * (K1 + 1) for t in terms)


def settled(full_scores: Sequence[float], limit: int, last_rare: float, common_ceiling: float, complete: bool) -> bool:
    """Whether the best `limit` of the fetched rows are the true top `limit`."""
    best = sorted(full_scores, reverse=True)
    if len(best) < limit:
        return complete and common_ceiling <= 0  # too few rows hold a rare term: rows with only common ones count
    outside = (0.0 if complete else last_rare) + common_ceiling
    return best[limit - 1] >= outside
