"""Hybrid ranking: the keyword ranking's exact BM25 fused with a local embedding model's cosine.

    candidates = keyword mode's (hot, warm, the index's BM25 top) + the index's nearest in meaning
    dense      = cosine of query and memory, min-max scaled over every memory of the agent (over at least
                 MIN_SPAN: a few memories must not stretch small differences to the whole scale); a keyword
                 candidate the nearest-k search did not return gets its stored vector's cosine, and the best
                 ON_THE_FLY keyword candidates still without one (right after a bulk ingest) are embedded now,
                 within ON_THE_FLY_S
    fused      = blend: w × dense + (1 − w) × bm25 / best bm25          ([retrieval] dense_weight = w)
                 rrf:   1 / (60 + bm25 rank) + 1 / (60 + dense rank)
                 a candidate still without a vector is on the same footing: its keyword share stands in
                 for its dense share (blend: bm25 / best bm25; rrf: its bm25 rank counts twice)
    final      = fused × (1 + BETA × prior) × (DATE_BOOST if the memory's date is in the asked range)
    rare token = keyword mode's first result stays first when most of its BM25 comes from one query term
                 held by at most RARE_DF memories (a number, an id, a code, a name asked for exactly)

The prior and the date boost are the keyword ranking's (tiers/retrieval/ranking.py), bounded the same way. The
vectors come from the local index (`VectorIndex`, implemented by memoryd.tiers.cold.vectors); the model from
tiers/retrieval/embed.py, the optional extra. Without it, retrieval says so and stays keyword.
"""
from __future__ import annotations

import time
from dataclasses import replace
from typing import Any, Callable, Iterable, Protocol, Sequence

from memoryd.tiers.retrieval import analyzer, embed, passage, ranking
from memoryd.tiers.base.errors import MemorydError
from memoryd.tiers.base.ports import ColdEntry
from memoryd.tiers.retrieval.fusion import MIN_SPAN, RRF_K, Dense, Fusion, fuse, rare_first
from memoryd.tiers.retrieval.candidate import Candidate, Meaning, Ranking, Score, time_view
from memoryd.tiers.retrieval.view import RetrievalView

__all__ = ["MIN_SPAN", "RRF_K", "Dense", "Fusion", "VectorIndex", "dense_side", "fuse", "rank"]

QUERY_CHARS = 256      # a query is embedded from its first QUERY_CHARS characters (~1 ms a character on
                       # 2 cores: a longer one would pass the 1 s bound); its words all still count for BM25
ON_THE_FLY = 0         # keyword candidates without a stored vector embedded during a retrieve (~25 ms each) ...
ON_THE_FLY_S = 0.25    # ... within this time. Off: measured on bench/recall right after a bulk ingest, embedding
                       # the best 8 cost recall@5 (0.594 against keyword's 0.604) and 0.4 s a query; with none
                       # embedded, hybrid ranks exactly as keyword mode until the back-fill has come
LIVE_INLINE = 8        # new warm/hot items a retrieve embeds and keeps; more (a bulk ingest into warm) are
                       # left to the back-fill (`memoryd embed`, the daemon), bar the best few keyword matches
IDS_PER_STMT = 500
MMR_POOL = 30                     # the top results maximal marginal relevance chooses among
MMR_LAMBDA: float | None = 0.7    # maximal marginal relevance over the top results (word overlap as similarity),
                                  # once every candidate has its vector: bench/recall after back-fill, recall@5
                                  # 0.767 against 0.739 without (no measurement before back-fill: not applied)


class VectorIndex(Protocol):
    """What hybrid retrieval asks of the local index (memoryd.tiers.cold.vectors.VectorStore)."""

    def live(self, agent_id: str, items: Sequence[tuple[str, str]], model: Callable[[], Any]) -> dict[str, bytes]:
        """Vectors of every warm and hot item (id, text), made for the new ones; the others dropped."""

    def nearest(self, agent_id: str, query: Any, k: int) -> tuple[list[tuple[str, float]], float, float]:
        """The k nearest memories of the index (id, cosine), and the lowest and highest cosine of all."""

    def covered(self, agent_id: str) -> int:
        """How many of the index's memories have a vector."""


class Completer:
    """Gives cosines to keyword candidates the nearest-k search did not bring: their stored vector, or,
    for the best few without one, a vector made now (kept for this retrieve only: storing is the back-fill's)."""

    def __init__(self, view: RetrievalView, store: VectorIndex, model: embed.Embedder, qv: Any) -> None:
        self.view, self.store, self.model, self.qv = view, store, model, qv

    def complete(self, dense: Dense, ranked: Sequence[tuple[str, str]]) -> None:
        """`ranked`: (id, passage) of the keyword-matching candidates, best BM25 first."""
        todo = [(mid, text) for mid, text in ranked if mid not in dense.sims]
        if not todo:
            return
        try:
            dense.sims.update(_sims(stored_vectors(self.store, self.view.agent_id, [m for m, _ in todo]), self.qv))
        except MemorydError as exc:
            self.view.warn(f"local index vectors not read: {exc.message}")
            return
        missing = [(mid, text) for mid, text in todo if mid not in dense.sims][:ON_THE_FLY]
        deadline = time.monotonic() + ON_THE_FLY_S
        for start in range(0, len(missing), 2):
            if time.monotonic() >= deadline:
                break
            batch = missing[start:start + 2]
            vecs = self.model.passages([text for _, text in batch])
            for (mid, _), vec in zip(batch, vecs):
                dense.sims[mid] = float(vec @ self.qv)
                dense.fresh.add(mid)


def stored_vectors(store: Any, agent: str, ids: Sequence[str]) -> dict[str, bytes]:
    """The index's stored vectors of these memories (those that have one)."""
    by_ids = getattr(store, "vectors_of", None)
    if by_ids is not None:
        return dict(by_ids(agent, ids))
    host = getattr(store, "index", None)
    if host is None or not ids:
        return {}
    out: dict[str, bytes] = {}
    for start in range(0, len(ids), IDS_PER_STMT):
        chunk = list(ids[start:start + IDS_PER_STMT])
        rows = host.read("SELECT m.id, v.vec FROM memories m JOIN vectors v ON v.rowid = m.rowid WHERE m.agent_id = ? "
                         f"AND m.id IN ({', '.join('?' * len(chunk))})", [agent, *chunk])
        out.update((r[0], bytes(r[1])) for r in rows)
    return out


def live_vectors(view: RetrievalView, store: VectorIndex, items: list[tuple[str, str]], model: Any) -> dict[str, bytes]:
    """Vectors of the warm and hot items ((id, passage): tiers/retrieval/passage.py): through `store.live` (which embeds the new ones) when at most
    LIVE_INLINE are new, else the ones already made, with a warning (a retrieve must not embed a bulk)."""
    cached = cached_live(store, view.agent_id)
    if cached is None:
        return store.live(view.agent_id, items, lambda: model)
    have = {mid: vec for mid, text in items if (found := cached.get(mid)) and found[0] == embed.digest(text)
            for vec in (found[1],)}
    new = len(items) - len(have)
    if new <= LIVE_INLINE:
        return store.live(view.agent_id, items, lambda: model)
    view.warn(f"{new} warm and hot memories have no vector yet (`memoryd embed` adds them): they are found "
              "by their words only")
    return have


def cached_live(store: Any, agent: str) -> dict[str, tuple[bytes, bytes]] | None:
    """The stored warm/hot vectors {id: (digest, vector)}, read without embedding or pruning (None: unknown)."""
    host = getattr(store, "index", None)
    if host is None:
        return None
    return {mid: (bytes(dig), bytes(vec)) for mid, dig, vec in
            host.read("SELECT id, digest, vec FROM live_vectors WHERE agent_id = ?", [agent])}


def dense_side(view: RetrievalView, query: str, live: list[dict[str, Any]], rows: list[dict[str, Any]], k: int,
               to_row: Callable[[ColdEntry], dict[str, Any]]) -> tuple[Dense, Completer] | None:
    """Cosines for every candidate; the index's nearest memories join the gathered `rows` (in place, before
    they become candidates). None, with a warning, when the model or the vectors cannot be had (the caller
    ranks by keywords alone)."""
    archive, agent = view.archive, view.agent_id
    if len(query) > QUERY_CHARS:
        view.warn(f"query embedded from its first {QUERY_CHARS} of {len(query)} characters "
                  "(every word still counts for keyword matching)")
        query = query[:QUERY_CHARS]
    try:
        model = embed.load()
        qv = model.query(query)
        store: VectorIndex | None = getattr(archive, "vectors", None) if archive is not None else None
        if archive is None or store is None:
            return None
        sims = _sims(live_vectors(view, store, passage.live_items(live), model), qv)
        near, lo, hi = store.nearest(agent, qv, k)
        unseen = archive.count(agent) - store.covered(agent)
    except MemorydError as exc:
        view.warn(f"{exc.message}; used keyword search")
        return None
    complete = unseen <= 0 and len(sims) == len(live)
    if unseen > 0:
        view.warn(f"{unseen} memories of the local index have no vector yet (`memoryd embed` adds "
                  "them): they are found by their words only")
    bounds = ([lo, hi] if near else []) + list(sims.values())
    lo, hi = (min(bounds), max(bounds)) if bounds else (0.0, 0.0)
    sims.update(near)
    seen = {c["id"] for c in rows}
    more = [i for i, _ in near if i not in seen]
    if more:
        try:
            rows += [to_row(e) for e in archive.get(agent, more)]
        except MemorydError as exc:
            view.warn(f"local index not searched by meaning: {exc.message}")
    return Dense(sims, lo, hi, complete=complete), Completer(view, store, model, qv)


def _sims(vectors: dict[str, bytes], qv: Any) -> dict[str, float]:
    if not vectors:
        return {}
    ids = list(vectors)
    rows, scales = embed.unpack([vectors[i] for i in ids], len(qv))
    return dict(zip(ids, embed.similarities(rows, scales, qv).tolist()))


def rank(query: Sequence[str], cands: Iterable[Candidate], corpus: ranking.Corpus, path_scores: dict[str, float],
         limit: int, in_range: Any, dense: Dense, fusion: Fusion, completer: Completer | None = None
         ) -> list[Candidate]:
    """The best `limit` candidates by fused score × the keyword ranking's prior and date boost, each with its
    Ranking."""
    from memoryd.tiers.retrieval.filters import path_boost
    from memoryd.tiers.retrieval.time_rule import time_factor

    scored = []
    for cand in cands:
        text, parts = ranking.bm25(query, cand.terms, corpus)
        scored.append((cand, text, parts, *path_boost(cand.category, path_scores)))
    if completer is not None:
        by_words = sorted((s for s in scored if s[1] > 0), key=lambda s: (-s[1], s[0].id))
        completer.complete(dense, [(c.id, passage.live_passage(c.row)) for c, *_ in by_words])  # dated, as stored
    fused = fuse(fusion, {c.id: text for c, text, *_ in scored}, dense)
    results, keyword, terms = [], {}, {}
    for cand, text, parts, path, via in scored:
        base, cos = fused[cand.id], dense.sims.get(cand.id)
        if base <= 0 and path <= 0 and cos is None:
            continue  # neither a word nor a vector nor the tree relates it to the question
        p = ranking.prior_of(cand, path, in_range)
        boost = 1 + ranking.BETA * p
        final = (base if base > 0 else 1e-6 * (1 + path)) * boost
        seen = time_view(cand) if in_range else None  # what the time rule reads: the date and the words
        dated = in_range(seen) if in_range else None
        if dated:
            final *= ranking.DATE_BOOST
        final *= (timely := time_factor(in_range, seen))
        if text > 0:
            keyword[cand.id] = text * boost * (ranking.DATE_BOOST if dated else 1.0) * timely
            terms[cand.id] = parts
        meaning = (cos, dense.scaled(cand.id), fusion.describe(), base, cand.id in dense.fresh)
        results.append([round(final, 6), cand, (text, tuple(parts.items()), p, boost, cand.score, via, path, dated,
                                                timely), meaning, False])
    _keep_rare_first(results, keyword, terms, corpus)
    results.sort(key=lambda r: (-r[0], r[1].id))
    lam = MMR_LAMBDA if dense.complete and (fusion.rule != "blend" or fusion.weight > 0) else None
    # only the results kept become new candidates (most candidates of a retrieve match some common word)
    kept = [replace(cand, ranking=Ranking(round(why[0], 4), final, Score(*why, Meaning(*meaning), rare)))
            for final, cand, why, meaning, rare in results[:max(limit, MMR_POOL) if lam is not None else limit]]
    return diverse(kept, limit, lam) if lam is not None else kept


def diverse(ranked: list[Candidate], limit: int, lam: float, pool: int = MMR_POOL) -> list[Candidate]:
    """Maximal marginal relevance: each next result maximises lam × relevance − (1 − lam) × its largest
    word overlap (Jaccard) with those already chosen; relevance is the rank scaled to the best."""
    head = ranked[:pool]
    if len(head) <= 1:
        return head[:limit]
    best = head[0].rank or 1.0
    words = {r.id: set(analyzer.terms(r.text)) for r in head}

    def overlap(a: str, b: str) -> float:
        union = words[a] | words[b]
        return len(words[a] & words[b]) / len(union) if union else 0.0

    chosen, left = [head[0]], head[1:]
    while left and len(chosen) < limit:
        pick = max(left, key=lambda r: lam * r.rank / best
                   - (1 - lam) * max(overlap(r.id, c.id) for c in chosen))
        chosen.append(pick)
        left.remove(pick)
    return chosen


def _keep_rare_first(results: list[list[Any]], keyword: dict[str, float], parts: dict[str, dict[str, float]],
                     corpus: ranking.Corpus) -> None:
    """Keyword mode's first result, when an exact rare term made it so, placed just above the best (each of
    `results`: [rank, candidate, …, rare_first])."""
    top = rare_first(keyword, parts, corpus.df)
    if top is None:
        return
    best = max(r[0] for r in results)
    for r in results:
        if r[1].id == top and r[0] < best:
            r[0], r[-1] = round(best * 1.000001 + 1e-6, 6), True
