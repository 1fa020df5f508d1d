"""Per-kind decay where it shows: a memory's score (warm's and the retrieval prior's) fades by its kind.

Seed 001 gives each kind a daily decay (tiers/knowledge/kinds.py: fact 0.8 %, belief and opinion 7 %,
summary 2.5 %, slowed by importance). The brief's warm score, importance × exp(-age/30) × (1 + 0.1 ×
access), must not change for facts, so the kind enters as a weight on importance relative to a fact:

    weight = decay_factor(kind, importance, age) / decay_factor(fact, importance, age)   (1 for a fact)
    score  = (importance × weight) × exp(-age/30) × (1 + 0.1 × access)

A fact and an experience (same base rate) keep exactly the old score; a ten-day-old belief of importance
0.5 keeps ~0.62 of its importance, a summary ~0.87. The score is what warm ranks, evicts and promotes
by (tiers/memory/warm.py) and what retrieval's bounded prior reads (tiers/retrieval/ranking.py, and
cold_row in tiers/retrieval/search.py), so a belief or summary sinks and leaves warm sooner than
a fact said at the same time, while BM25 still decides what matches.

Age is counted from when a memory was said (valid time, tiers/memory/said.py: its note's date, its turn's
timestamp), not from when memoryd stored it: `said_score` is the one place that reads it for a score.
"""
from __future__ import annotations

from typing import Any, Mapping

from memoryd.tiers.knowledge.kinds import FACT, decay_factor, kind_of
from memoryd.tiers.memory.model import score
from memoryd.tiers.memory.said import said_age_days


def kind_weight(metadata: Mapping[str, Any] | None, importance: float, age_days: float) -> float:
    """How much of its importance a memory of this kind keeps after `age_days`, relative to a fact."""
    kind = kind_of(metadata)
    if kind == FACT:
        return 1.0
    return decay_factor(kind, importance, age_days) / decay_factor(FACT, importance, age_days)


def memory_score(importance: float, age_days: float, access_count: int,
                 metadata: Mapping[str, Any] | None) -> float:
    """The warm score formula with the kind's weight on importance (unchanged for facts)."""
    return score(importance * kind_weight(metadata, importance, age_days), age_days, access_count)


def said_score(memory: Mapping[str, Any], now: float) -> float:
    """A stored memory's score on the clock `now` (warm entry or local-index row), aged from when it was said."""
    importance = memory.get("importance")
    return memory_score(0.5 if importance is None else float(importance), said_age_days(memory, now),
                        int(memory.get("access_count") or 0), memory.get("metadata"))
