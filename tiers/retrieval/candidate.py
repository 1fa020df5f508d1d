"""The candidate a retrieve ranks: one frozen record per memory, made from a warm entry, a hot item or an index
row at ONE point (`Candidate.of`, when gathered) and turned into the JSON dict the API returns at ONE point
(`Candidate.to_json`). Stages never edit a candidate: they return new ones (`dataclasses.replace`) and say what
they changed in one structured field, `steps` (returned as `stages: [{"stage", "did", …why}]`).

    Candidate  id, text, category, tier, path, score, terms (BM25's), the row as gathered (read only: what
               filters, dates and kinds read; its date is read from it when first asked), what the knowledge
               stages tell of it (Told), and
    Ranking    relevance, rank, and either the Score that ranked it or the basis it is there on (the filters
               alone; the current value of a result the words found)
    Score      the keyword ranking's parts (BM25 per term, prior, tree path, date, time rule), with Meaning in
               hybrid mode; the "ranking" dict and the `reason` string are rendered from it
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any, Mapping

from memoryd.tiers.retrieval import analyzer, when


@dataclass(frozen=True, slots=True)
class Step:
    """What one stage did to a result, and why (`why`: (key, value) pairs, shown as they are)."""

    stage: str
    did: str
    why: tuple[tuple[str, Any], ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"stage": self.stage, "did": self.did, **dict(self.why)}


@dataclass(frozen=True, slots=True)
class Meaning:
    """Hybrid mode's part of a Score: the embedding's cosine and how it was fused with BM25."""

    cos: float | None        # None: the memory has no vector yet
    scaled: float
    fusion: str              # Fusion.describe()
    fused: float
    fresh: bool = False      # its vector was made during this retrieve

    def reason(self) -> str:
        if self.cos is None:
            return "no vector yet; "
        made = ", embedded now" if self.fresh else ""
        return f"meaning {self.cos:.3f}{made} ({self.fusion}: {self.fused:.3f}); "


@dataclass(frozen=True, slots=True)
class Score:
    """How the ranking scored a candidate (raw figures: rounded when shown)."""

    bm25: float
    terms: tuple[tuple[str, float], ...]   # each query term's share of the BM25, in query order
    prior: float
    boost: float                           # 1 + ranking.BETA × prior
    memory_score: Any
    path: str | None                       # the tree path that matched, if any
    path_score: float
    date_match: bool | None
    time_rule: float
    meaning: Meaning | None = None         # hybrid mode
    rare_first: bool = False               # hybrid mode kept keyword mode's exact rare match first

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"bm25": round(self.bm25, 4), "terms": {t: round(w, 4) for t, w in self.terms}}
        m = self.meaning
        if m is not None:
            out.update(dense=None if m.cos is None else round(m.cos, 4), dense_scaled=round(m.scaled, 4),
                       fusion=m.fusion, fused=round(m.fused, 6))
        out.update(prior=round(self.prior, 4), boost=round(self.boost, 4), memory_score=self.memory_score,
                   path=self.path, path_score=round(self.path_score, 4), date_match=self.date_match,
                   time_rule=round(self.time_rule, 4))
        return out

    def reason(self, tier: str) -> str:
        why = []
        if self.terms:
            shown = sorted(self.terms, key=lambda kv: -kv[1])[:6]
            why.append("matched " + ", ".join(f"'{t}' {w:.2f}" for t, w in shown) + f" (bm25 {self.bm25:.2f})")
        if self.path:
            why.append(f"tree path {self.path} ({self.path_score:.2f})")
        why.append(f"prior ×{self.boost:.2f}")
        if self.date_match:
            why.append("date in range")
        said = "; ".join(why) + f" in {tier}"
        if self.meaning is not None:
            said = self.meaning.reason() + said
        return ("exact rare term, first in keyword mode; " + said) if self.rare_first else said


@dataclass(frozen=True, slots=True)
class Ranking:
    """Where a result stands: `rank` orders the results; `score` says how the words ranked it, else `basis`
    says why it is there."""

    relevance: float
    rank: float
    score: Score | None = None
    basis: str = ""

    def reason(self, tier: str) -> str:
        return self.score.reason(tier) if self.score is not None else self.basis


@dataclass(frozen=True, slots=True)
class Told:
    """What the knowledge stages tell of a result: its kind (set by the fold stage, with confidence and
    superseded_by), the restatements folded into it, the summary of its sealed group the words did not reach."""

    kind: str | None = None
    confidence: float | None = None
    superseded_by: str | None = None
    restated_by: tuple[str, ...] = ()
    summary: tuple[str, str] | None = None   # (id, text)

    def to_json(self, out: dict[str, Any]) -> None:
        if self.restated_by:
            out["restated_by"] = list(self.restated_by)
        if self.kind is not None:
            out["kind"] = self.kind
        if self.confidence is not None:
            out["confidence"] = self.confidence
        if self.superseded_by:
            out["superseded_by"] = self.superseded_by
        if self.summary is not None:
            out["summary"] = {"id": self.summary[0], "text": self.summary[1]}


NOTHING_TOLD = Told()


@dataclass(frozen=True, slots=True)
class Candidate:
    id: str
    text: str
    category: str
    tier: str
    path: str
    score: Any
    terms: tuple[str, ...]               # the analyzer's terms of text and category (BM25's document)
    row: Mapping[str, Any]               # the row as gathered (the candidate's own: read only), returned as it is
                                         # with the fields below over it
    ranking: Ranking | None = None
    steps: tuple[Step, ...] = ()
    told: Told = NOTHING_TOLD
    access: tuple[int, int] | None = None    # (access_count, last_access) after this retrieve
    _day: list[str | None] = field(default_factory=list, init=False, repr=False, compare=False)  # date, once read

    @classmethod
    def of(cls, row: Mapping[str, Any]) -> Candidate:
        """The one way in: a gathered row (id, text, category, tier, path, score, …)."""
        text, category = row["text"], row.get("category", "")  # strings as stored (every row of a retrieve: no copies)
        return cls(row["id"], text, category, row["tier"], row["path"], row.get("score"),
                   analyzer.document_terms(text, category), MappingProxyType(row))

    @property
    def date(self) -> str | None:
        """The day it was said (YYYY-MM-DD, when.memory_date of its row), read once when first asked: most
        candidates of a retrieve are never dated (only the time rule and the results returned read it)."""
        if not self._day:
            self._day.append(when.memory_date(self.row))
        return self._day[0]

    @property
    def metadata(self) -> Mapping[str, Any]:
        return self.row.get("metadata") or {}

    @property
    def said(self) -> str:
        """What a memory says, without what hot added to it: a hot event's or task's "(2027-06-03)", a task's
        status (hot_candidates keeps the words said as `said`). A hot item is compared with memories by these."""
        return str(self.row.get("said") or self.text)

    @property
    def rank(self) -> float:
        return self.ranking.rank if self.ranking is not None else 0.0

    def noted(self, stage: str, did: str, **why: Any) -> Candidate:
        """This candidate with what `stage` did to it recorded."""
        return replace(self, steps=self.steps + (Step(stage, did, tuple(why.items())),))

    def tell(self, **told: Any) -> Candidate:
        """This candidate with what a knowledge stage tells of it (Told's fields)."""
        return replace(self, told=replace(self.told, **told))

    def to_json(self) -> dict[str, Any]:
        """The one way out: the result dict the API returns."""
        out = dict(self.row)
        if self.told.kind is not None:  # the fold stage drops what only its comparisons read
            out.pop("said", None)
        out.update(tier=self.tier, path=self.path, date=self.date)
        if self.ranking is not None:
            out.update(relevance=self.ranking.relevance, rank=self.ranking.rank)
            if self.ranking.score is not None:
                out["ranking"] = self.ranking.score.to_json()
            out["reason"] = self.ranking.reason(self.tier)
        if self.steps:
            out["stages"] = [s.to_json() for s in self.steps]
        self.told.to_json(out)
        if self.access is not None:
            out.update(access_count=self.access[0], last_access=self.access[1])
        return out


def time_view(cand: Candidate) -> dict[str, Any]:
    """What the time rule reads of a candidate (tiers/retrieval/time_rule.py: its date and its words)."""
    return {"date": cand.date, "text": cand.text}
