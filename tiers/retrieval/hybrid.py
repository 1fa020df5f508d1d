"""Hybrid ranking: the keyword ranking's exact BM25 fused with a local embedding model's cosine.

    candidates = keyword mode's (hot, warm, the index's BM25 top) + the index's nearest in meaning
    dense      = cosine of query and memory, min-max scaled over every memory of the agent (over at least
                 MIN_SPAN: a few memories must not stretch small differences to the whole scale)
    fused      = blend: w × dense + (1 − w) × bm25 / best bm25          ([retrieval] dense_weight = w)
                 rrf:   1 / (60 + bm25 rank) + 1 / (60 + dense rank)
    final      = fused × (1 + BETA × prior) × (DATE_BOOST if the memory's date is in the asked range)

The prior and the date boost are the keyword ranking's (tiers/retrieval/ranking.py), bounded the same way. The
vectors come from the local index (`VectorIndex`, implemented by memoryd.tiers.cold.vectors); the model from
tiers/retrieval/embed.py, the optional extra. Without it, retrieval says so and stays keyword.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping, Protocol, Sequence

from memoryd.tiers.retrieval import embed, ranking
from memoryd.tiers.base.errors import MemorydError
from memoryd.tiers.base.ports import ColdEntry
from memoryd.tiers.retrieval.ranking import Candidate
from memoryd.tiers.retrieval.view import RetrievalView

RRF_K = 60
MIN_SPAN = 0.1   # cosines are scaled over at least this range: a handful of memories must not turn a
                 # 0.02 difference in meaning into the whole 0..1 scale (an agent's conversation spans
                 # 0.08-0.19 between its least and most similar memory; wider spans are not touched)


class VectorIndex(Protocol):
    """What hybrid retrieval asks of the local index (memoryd.tiers.cold.vectors.VectorStore)."""

    def live(self, agent_id: str, items: Sequence[tuple[str, str]], model: Callable[[], Any]) -> dict[str, bytes]:
        """Vectors of every warm and hot item (id, text), made for the new ones; the others dropped."""

    def nearest(self, agent_id: str, query: Any, k: int) -> tuple[list[tuple[str, float]], float, float]:
        """The k nearest memories of the index (id, cosine), and the lowest and highest cosine of all."""

    def covered(self, agent_id: str) -> int:
        """How many of the index's memories have a vector."""


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

    def scaled(self, mid: str) -> float:
        cos = self.sims.get(mid)
        lo = min(self.lo, self.hi - MIN_SPAN)
        if cos is None or self.hi <= lo:
            return 0.0
        return min(1.0, max(0.0, (cos - lo) / (self.hi - lo)))


def dense_side(view: RetrievalView, query: str, live: list[Candidate], cands: list[Candidate], k: int,
               to_candidate: Callable[[ColdEntry], Candidate]) -> Dense | None:
    """Cosines for every candidate; the index's nearest memories join `cands` (in place). None, with a
    warning, when the model or the vectors cannot be had (the caller ranks by keywords alone)."""
    archive, agent = view.archive, view.agent_id
    try:
        model = embed.load()
        qv = model.query(query)
        store: VectorIndex | None = getattr(archive, "vectors", None) if archive is not None else None
        if archive is None or store is None:
            return None
        sims = _live_sims(store.live(agent, [(c["id"], c["text"]) for c in live], lambda: model), qv)
        near, lo, hi = store.nearest(agent, qv, k)
        unseen = archive.count(agent) - store.covered(agent)
    except MemorydError as exc:
        view.warn(f"{exc.message}; used keyword search")
        return None
    if unseen > 0:
        view.warn(f"{unseen} memories of the local index have no vector yet (`memoryd embed` adds "
                  "them): they are found by their words only")
    bounds = ([lo, hi] if near else []) + list(sims.values())
    lo, hi = (min(bounds), max(bounds)) if bounds else (0.0, 0.0)
    sims.update(near)
    seen = {c["id"] for c in cands}
    more = [i for i, _ in near if i not in seen]
    if more:
        try:
            cands += [to_candidate(e) for e in archive.get(agent, more)]
        except MemorydError as exc:
            view.warn(f"local index not searched by meaning: {exc.message}")
    return Dense(sims, lo, hi)


def _live_sims(vectors: dict[str, bytes], qv: Any) -> dict[str, float]:
    if not vectors:
        return {}
    ids = list(vectors)
    rows, scales = embed.unpack([vectors[i] for i in ids], len(qv))
    return dict(zip(ids, embed.similarities(rows, scales, qv).tolist()))


def fuse(fusion: Fusion, text: dict[str, float], dense: Dense) -> dict[str, float]:
    """Each candidate's fused score from its BM25 (`text`, 0 when no term matched) and its cosine."""
    if fusion.rule == "rrf":
        return _rrf(text, dense)
    best = max(text.values(), default=0.0)
    w = fusion.weight
    return {mid: w * dense.scaled(mid) + (1 - w) * (t / best if best > 0 else 0.0) for mid, t in text.items()}


def _rrf(text: dict[str, float], dense: Dense) -> dict[str, float]:
    out = {mid: 0.0 for mid in text}
    by_text = sorted((m for m, t in text.items() if t > 0), key=lambda m: (-text[m], m))
    by_dense = sorted((m for m in text if m in dense.sims), key=lambda m: (-dense.sims[m], m))
    for ranked in (by_text, by_dense):
        for r, mid in enumerate(ranked, start=1):
            out[mid] += 1.0 / (RRF_K + r)
    return out


def rank(query: Sequence[str], cands: Iterable[Candidate], corpus: ranking.Corpus, path_scores: dict[str, float],
         limit: int, in_range: Any, dense: Dense, fusion: Fusion) -> list[Candidate]:
    """The best `limit` candidates by fused score × the keyword ranking's prior and date boost, explained."""
    from memoryd.tiers.retrieval.filters import path_boost

    scored = []
    for cand in cands:
        text, parts = ranking.bm25(query, ranking.doc_terms(cand), corpus)
        scored.append((cand, text, parts, *path_boost(cand.get("category", ""), path_scores)))
    fused = fuse(fusion, {c["id"]: text for c, text, *_ in scored}, dense)
    results = []
    for cand, text, parts, path, via in scored:
        base, cos = fused[cand["id"]], dense.sims.get(cand["id"])
        if base <= 0 and path <= 0 and cos is None:
            continue  # neither a word nor a vector nor the tree relates it to the question
        p = ranking.prior(float(cand.get("score") or 0.0), path)
        final = (base if base > 0 else 1e-6 * (1 + path)) * (1 + ranking.BETA * p)
        dated = in_range(cand) if in_range else None
        if dated:
            final *= ranking.DATE_BOOST
        meaning = f"meaning {cos:.3f} ({fusion.describe()}: {base:.3f}); " if cos is not None else "no vector yet; "
        out = {k: v for k, v in cand.items() if k != "_terms"}
        out.update(relevance=round(text, 4), rank=round(final, 6),
                   ranking={"bm25": round(text, 4), "terms": {t: round(w, 4) for t, w in parts.items()},
                            "dense": None if cos is None else round(cos, 4), "dense_scaled": round(dense.scaled(cand["id"]), 4),
                            "fusion": fusion.describe(), "fused": round(base, 6), "prior": round(p, 4),
                            "boost": round(1 + ranking.BETA * p, 4), "memory_score": cand.get("score"), "path": via,
                            "path_score": round(path, 4), "date_match": dated},
                   reason=meaning + ranking._reason(parts, text, p, via, path, dated, cand["tier"]))
        results.append(out)
    results.sort(key=lambda r: (-r["rank"], r["id"]))
    return results[:limit]
