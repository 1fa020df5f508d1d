"""Hybrid fusion rules: BM25 and cosine into one score, with no penalty for a memory that has no vector yet."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

RRF_K = 60
MIN_SPAN = 0.1   # cosines are scaled over at least this range: a handful of memories must not turn a
                 # 0.02 difference in meaning into the whole 0..1 scale (an agent's conversation spans
                 # 0.08-0.19 between its least and most similar memory; wider spans are not touched)
RARE_DF = 1      # a query term held by one memory only is an exact rare token (3141, PR-2231); 3 cost
                 # MRR on bench/recall (0.548 against 0.573 after back-fill, recall@5 0.767 against 0.768)
RARE_SHARE = 0.5  # ... and it decides a result when it gives at least this share of its BM25


@dataclass(frozen=True)
class Fusion:
    rule: str = "blend"
    weight: float = 0.7

    @classmethod
    def from_section(cls, section: Mapping[str, Any]) -> "Fusion":
        return cls(str(section.get("fusion") or "blend"), float(section.get("dense_weight", 0.7)))

    def describe(self) -> str:
        return f"blend {self.weight:g}" if self.rule == "blend" else f"rrf {RRF_K}"


@dataclass
class Dense:
    """The query's cosine with each candidate that has a vector, and the scale of all of them."""

    sims: dict[str, float]
    lo: float
    hi: float
    fresh: set[str] = field(default_factory=set)   # embedded during this retrieve (no stored vector yet)
    complete: bool = False                         # every memory of the agent has its vector (after back-fill)

    def scaled(self, mid: str) -> float:
        cos = self.sims.get(mid)
        lo = min(self.lo, self.hi - MIN_SPAN)
        if cos is None or self.hi <= lo:
            return 0.0
        return min(1.0, max(0.0, (cos - lo) / (self.hi - lo)))


def fuse(fusion: Fusion, text: dict[str, float], dense: Dense) -> dict[str, float]:
    """Each candidate's fused score from its BM25 (`text`, 0 when no term matched) and its cosine; a
    candidate without a vector gets its keyword share in place of the dense one (not zero)."""
    if fusion.rule == "rrf":
        return _rrf(text, dense)
    best = max(text.values(), default=0.0)
    w = fusion.weight
    out = {}
    for mid, t in text.items():
        words = t / best if best > 0 else 0.0
        meaning = dense.scaled(mid) if mid in dense.sims else words
        out[mid] = w * meaning + (1 - w) * words
    return out


def _rrf(text: dict[str, float], dense: Dense) -> dict[str, float]:
    out = {mid: 0.0 for mid in text}
    by_text = sorted((m for m, t in text.items() if t > 0), key=lambda m: (-text[m], m))
    by_dense = sorted((m for m in text if m in dense.sims), key=lambda m: (-dense.sims[m], m))
    for ranked in (by_text, by_dense):
        for r, mid in enumerate(ranked, start=1):
            out[mid] += 1.0 / (RRF_K + r)
    for r, mid in enumerate(by_text, start=1):
        if mid not in dense.sims:
            out[mid] += 1.0 / (RRF_K + r)  # no vector: its keyword rank stands in for the dense one
    return out


def rare_first(keyword: dict[str, float], parts: dict[str, dict[str, float]], df: Mapping[str, int]) -> str | None:
    """The candidate keyword mode ranks first (`keyword`: its final keyword score) when that rank rests on
    an exact rare token: one query term held by at most RARE_DF memories giving most of its BM25."""
    if not keyword:
        return None
    top = min(keyword, key=lambda m: (-keyword[m], m))
    terms = parts.get(top) or {}
    total = sum(terms.values())
    if total <= 0:
        return None
    term, share = max(terms.items(), key=lambda kv: kv[1])
    return top if 0 < df.get(term, 0) <= RARE_DF and share >= RARE_SHARE * total else None
