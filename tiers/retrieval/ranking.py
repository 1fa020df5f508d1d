"""One ranking for every tier: BM25 over hot items, warm entries and local-index hits alike.

    text   = BM25 (k1 1.2, b 0.5) with IDF and average length from the agent's whole corpus
             (local index + warm + hot), on the analyzer's terms (stems, CJK uni/bigrams)
    prior  = 0.7 × min(1, memory score / 0.7) + 0.3 × tree-path score        (both 0..1)
    final  = text × (1 + BETA × prior) × (DATE_BOOST if the memory's date is in the asked range)

The prior is bounded (at most +20 %): it re-orders near-ties, but an entry holding the query's rare
words always beats one that holds only its common ones, whatever their importance.
"""
from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Any, Iterable, Sequence

from memoryd.tiers.retrieval.candidate import Candidate, Ranking, Score, time_view

K1, B = 1.2, 0.5   # b 0.75 → 0.5: conversation turns are short and a short line holding one query word outranked
# the answer (bench/recall seed 7 recall@5 0.626 → 0.655; bench/corpus dev current at 1 0.592 → 0.703; 0.3: 0.653, 0.740)
BETA = 0.2
MEMORY_WEIGHT, PATH_WEIGHT = 0.7, 0.3
HOT_SCORE = 0.7          # memory-score threshold of the hot tier: counts as fully alive
DATE_BOOST = 1.5
PATH_ONLY = 0.05         # a memory found only through its tree path ranks below every text match


@dataclass
class Corpus:
    """BM25's statistics: rows, total terms and per-term document frequencies of the whole corpus."""

    docs: int = 0
    terms: int = 0
    df: Counter = field(default_factory=Counter)

    def add(self, other_docs: int, other_terms: int, other_df: dict[str, int]) -> None:
        self.docs += other_docs
        self.terms += other_terms
        self.df.update(other_df)

    def idf(self, term: str) -> float:
        n, df = max(self.docs, 1), min(self.df.get(term, 0), max(self.docs, 1))
        return math.log(1 + (n - df + 0.5) / (df + 0.5))

    @property
    def avg_len(self) -> float:
        return max(1.0, self.terms / self.docs) if self.docs else 1.0


def local_corpus(cands: Iterable[Candidate], query: Sequence[str]) -> Corpus:
    """Statistics of the candidates held outside the local index (hot and warm)."""
    corpus = Corpus()
    wanted = set(query)
    for cand in cands:
        found = cand.terms
        corpus.docs += 1
        corpus.terms += len(found)
        corpus.df.update(wanted.intersection(found))
    return corpus


def bm25(query: Sequence[str], found: Sequence[str], corpus: Corpus) -> tuple[float, dict[str, float]]:
    """BM25 of one document and each query term's share of it."""
    if not found:
        return 0.0, {}
    tf = Counter(found)
    norm = K1 * (1 - B + B * len(found) / corpus.avg_len)
    parts = {}
    for term in query:
        n = tf.get(term, 0)
        if n:
            parts[term] = corpus.idf(term) * n * (K1 + 1) / (n + norm)
    return sum(parts.values()), parts


def prior(memory_score: float, path_score: float) -> float:
    return MEMORY_WEIGHT * min(1.0, max(memory_score, 0.0) / HOT_SCORE) + PATH_WEIGHT * min(1.0, path_score)


def prior_of(cand: Candidate, path_score: float, in_range: Any) -> float:
    """`prior` of a candidate: a rule kept in hot lessons answers no question of what holds now (`which club does
    she row with now?` is not answered by `never row alone at the club`), so under one its
    importance lifts it no more than a cold memory's; its words still find it."""
    rule = getattr(in_range, "of_now", False) and cand.tier == "hot" and cand.category.startswith("lessons/")
    return prior(0.0 if rule else float(cand.score or 0.0), path_score)


def rank(query: Sequence[str], cands: Iterable[Candidate], corpus: Corpus, path_scores: dict[str, float],
         limit: int, in_range: Any = None) -> list[Candidate]:
    """Score candidates and return the best `limit`, each with its Ranking.

    `in_range(cand) -> bool | None` says whether a memory's date falls in the range the question asks
    about (None: it asks about none); a time_rule.TimeRule also prefers the latest or a memory saying when."""
    from memoryd.tiers.retrieval.filters import path_boost
    from memoryd.tiers.retrieval.time_rule import time_factor

    scored = []
    for cand in cands:
        text, parts = bm25(query, cand.terms, corpus)
        path, via = path_boost(cand.category, path_scores)
        if text <= 0 and path <= 0:
            continue
        p = prior_of(cand, path, in_range)
        final = (text if text > 0 else PATH_ONLY * path) * (1 + BETA * p)
        seen = time_view(cand) if in_range else None  # what the time rule reads: the date and the words
        dated = in_range(seen) if in_range else None
        if dated:
            final *= DATE_BOOST
        final *= (timely := time_factor(in_range, seen))
        scored.append((round(final, 6), cand, (text, tuple(parts.items()), p, 1 + BETA * p, cand.score, via, path,
                                               dated, timely)))
    scored.sort(key=lambda s: (-s[0], s[1].id))
    # only the results kept become new candidates (most candidates of a retrieve match some common word)
    return [replace(cand, ranking=Ranking(round(why[0], 4), final, Score(*why))) for final, cand, why in scored[:limit]]
