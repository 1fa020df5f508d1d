"""Retrieval as one declared pipeline: the stages a retrieve runs after its candidates are gathered, in order, each
saying whether it belongs to the knowledge layer (`[knowledge] layer = "off"` skips those: the benchmark's "layer
off" column). Stages take and return frozen candidates (tiers/retrieval/candidate.py): a stage that changes one
returns a new one, and what it did and why goes in the candidate's one structured field, `steps` (returned as
`stages: [{"stage": name, "did": what, …why}]`).

    admit      knowledge  a conversation's turn that says nothing is left out (tiers/knowledge/lowvalue.py)
    rank       always     one BM25 ranking (fused with the embedding in hybrid mode), the time rule, the tree
    latest     knowledge  a question about now: the latest of the first results nearly as good as the best first
    current    knowledge  the memory holding a superseded result's current value is placed directly above it
    fold       knowledge  restatements fold into the higher-ranked result; kind, confidence, superseded_by
    summaries  knowledge  a sealed result carries the summary the words did not reach

A stage is a plain function of (Ask, results) → results; adding one is adding a line to STAGES.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Callable

from memoryd.tiers.knowledge.seal_rank import behind_summaries
from memoryd.tiers.retrieval import current, ranking
from memoryd.tiers.retrieval.filters import Filters
from memoryd.tiers.retrieval.latest import latest_first
from memoryd.tiers.retrieval.candidate import Candidate, Ranking
from memoryd.tiers.retrieval.view import RetrievalView


@dataclass(frozen=True)
class Ask:
    """What every stage may read of one retrieve (nothing a stage changes)."""

    view: RetrievalView
    query: str
    terms: list[str]
    limit: int                      # results asked for
    filters: Filters
    corpus: ranking.Corpus
    path_scores: dict[str, float] = field(default_factory=dict)
    in_range: Any = None            # the time rule, or None
    dense: Any = None               # hybrid mode: the embedding side, else None
    fetch: Callable[[list[str]], list[Candidate]] = lambda ids: []  # memories by id (a successor not found)

    @property
    def depth(self) -> int:
        """Results ranked before the knowledge stages fold them (restatements must not leave a list short)."""
        return current.depth(self.limit) if self.view.knowledge else self.limit


@dataclass(frozen=True)
class Stage:
    name: str
    knowledge: bool
    run: Callable[[Ask, list[Candidate]], list[Candidate]]


def _admit(ask: Ask, cands: list[Candidate]) -> list[Candidate]:
    return current.admit(cands)


def _rank(ask: Ask, cands: list[Candidate]) -> list[Candidate]:
    if not ask.query:  # the filters alone: the best-scored matches first
        best = sorted(cands, key=lambda c: (-c.score, c.id))[:ask.depth]
        return [replace(c, ranking=Ranking(1.0, c.score, basis=f"{ask.filters.describe()} in {c.tier}")) for c in best]
    if ask.dense is not None:  # [retrieval] mode = "hybrid" (tiers/retrieval/hybrid.py)
        from memoryd.tiers.retrieval.hybrid import Fusion, rank

        return rank(ask.terms, cands, ask.corpus, ask.path_scores, ask.depth, ask.in_range, ask.dense[0],
                    Fusion.from_section(ask.view.settings), ask.dense[1])
    return ranking.rank(ask.terms, cands, ask.corpus, ask.path_scores, ask.depth, ask.in_range)


def _latest(ask: Ask, results: list[Candidate]) -> list[Candidate]:
    return latest_first(results, ask.in_range, ask.query, words_only=ask.dense is not None)


def _current(ask: Ask, results: list[Candidate]) -> list[Candidate]:
    if ask.filters.history:
        return results  # --history: what the words found, as they found it
    return current.successors(results, ask.fetch, ask.query, ask.view.doubted)


def _fold(ask: Ask, results: list[Candidate]) -> list[Candidate]:
    return current.finish(results, ask.limit)


def _summaries(ask: Ask, results: list[Candidate]) -> list[Candidate]:
    return behind_summaries(results, ask.view.archive, ask.view.agent_id, ask.limit)


STAGES: tuple[Stage, ...] = (
    Stage("admit", True, _admit),
    Stage("rank", False, _rank),
    Stage("latest", True, _latest),
    Stage("current", True, _current),
    Stage("fold", True, _fold),
    Stage("summaries", True, _summaries),
)


def run(ask: Ask, cands: list[Candidate], stages: tuple[Stage, ...] = STAGES) -> list[Candidate]:
    """The candidates through every stage the settings switch on; the results, at most `ask.limit`."""
    out = cands
    for stage in stages:
        if stage.knowledge and not ask.view.knowledge:
            continue
        out = stage.run(ask, out)
    return out[:ask.limit]
