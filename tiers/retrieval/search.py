"""The retrieve pipeline: candidates from hot, warm and the local index, one BM25 ranking, reinforcement."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memoryd.tiers.retrieval import analyzer, ranking, when
from memoryd.tiers.base.errors import MemorydError
from memoryd.tiers.memory.model import DAY, score
from memoryd.tiers.retrieval.filters import Filters, score_paths

if TYPE_CHECKING:
    from memoryd.tiers.memory.agent import AgentMemory

COLD_FACTOR = 4   # local-index hits fetched per result asked for (then re-ranked with every tier)
COLD_MIN = 40


def retrieve(mem: AgentMemory, query: str, limit: int = 10, *, url: str | None = None,
             paths: dict[str, float] | None = None, filters: Filters | None = None) -> list[dict[str, Any]]:
    """Search hot, warm and cold; `paths` (from LLM tree search) replaces keyword path scores.

    With filters (url, entity, date range) only warm and cold facts that pass are considered, and
    the query may be empty (then the best-scored matches come first)."""
    from memoryd.tiers.memory.agent import check_query

    filters = filters or Filters(url=url)
    query = check_query(query, limit, filters)
    now = mem.clock()
    with mem.locked():
        state = mem.files.load_all()
        pending = mem.accesses.pending()
        mem.accesses.fold(state["warm"], pending)
        terms = analyzer.query_terms(query)
        cands = [dict(e, tier="warm", path=e["category"]) for e in state["warm"]["entries"]]
        if not filters:
            cands += hot_candidates(state["hot"])
        corpus = ranking.local_corpus(cands, terms)
        cands += _cold_candidates(mem, terms, query, limit, now, {c["id"] for c in cands}, filters, corpus)
        dense = _dense(mem, query, state, cands, limit, now)
        cands = [c for c in cands if c["tier"] == "hot" or filters.matches(c)]
        for c in cands:
            c["date"] = when.memory_date(c)
        if query:
            span = when.question_range(query, now)
            path_scores = score_paths(terms, state["tree"]["nodes"]) if paths is None else paths
            in_range = (lambda c: when.day_in(c["date"], span)) if span else None
            if dense is not None:  # [retrieval] mode = "hybrid" (tiers/retrieval/hybrid.py)
                from memoryd.tiers.retrieval.hybrid import Fusion, rank

                results = rank(terms, cands, corpus, path_scores, limit, in_range, dense,
                               Fusion.from_section(mem.config.section("retrieval")))
            else:
                results = ranking.rank(terms, cands, corpus, path_scores, limit, in_range)
        else:
            cands.sort(key=lambda c: (-c["score"], c["id"]))
            results = [dict(c, relevance=1.0, rank=c["score"], reason=f"{filters.describe()} in {c['tier']}")
                       for c in cands[:limit]]
        _reinforce(mem, state, results, pending, now)
    return results


def hot_candidates(hot: dict) -> list[dict]:
    ctx = hot["active_context"]
    rows = [(x["id"], x["text"], f"lessons/{x['category']}", x["importance"], x.get("timestamp"))
            for x in hot["critical_lessons"]]
    rows += [(p["id"], f"{p['name']}: {p.get('description', '')} ({p.get('status', '')})", "active_context/projects",
              0.9, p.get("updated_at")) for p in ctx["projects"]]
    rows += [(e["id"], e["text"], "active_context/events", 0.85, e.get("timestamp")) for e in ctx["events"]]
    rows += [(t["id"], f"{t['text']} ({t['status']})", "active_context/tasks", 0.85, t.get("timestamp"))
             for t in ctx["tasks"]]
    rows += [(f"identity:{k}", f"{k}: {v}", "identity", 1.0, None) for k, v in hot["identity"].items()]
    rows += [(f"profile:{k}", f"{k}: {v}", "owner_profile", 1.0, None) for k, v in hot["owner_profile"].items()]
    return [{"id": i, "text": t, "category": c, "score": s, "tier": "hot", "path": c, "timestamp": ts}
            for i, t, c, s, ts in rows]


def _cold_candidates(mem: AgentMemory, terms: list[str], query: str, limit: int, now: float, seen: set[str],
                     filters: Filters, corpus: ranking.Corpus) -> list[dict]:
    if mem.archive is None:
        return []
    want = max(limit * COLD_FACTOR, COLD_MIN) * (3 if filters else 1)
    try:
        if terms:
            docs, n_terms, df = mem.archive.term_stats(mem.agent_id, terms)
            corpus.add(docs, n_terms, df)
            hits = mem.archive.search(mem.agent_id, analyzer.probe_terms(terms, df, docs), want)
        elif not query and (filters.entity or filters.url):  # a filter's own words find candidates
            words = analyzer.query_terms(filters.entity or filters.url or "")
            hits = mem.archive.search(mem.agent_id, words, want) if words else []
        elif not query and (filters.since is not None or filters.until is not None):
            hits = mem.archive.dated(mem.agent_id, filters.since, filters.until, want)
        else:
            hits = []
    except MemorydError as exc:
        mem.warnings.append(f"local index not searched: {exc.message}")
        return []
    out = []
    for e in hits:
        if e["id"] in seen:
            continue  # also in warm (a crash between archiving and rewriting warm): warm's copy wins
        seen.add(e["id"])
        out.append(cold_candidate(e, now))
    return out


def cold_candidate(e: dict, now: float) -> dict:
    s = score(float(e.get("importance") or 0.5), (now - e["created_at"]) / DAY, int(e.get("access_count") or 0))
    return dict(e, score=round(s, 4), tier="cold", path=e["category"])


def _dense(mem: AgentMemory, query: str, state: dict, cands: list[dict], limit: int, now: float) -> Any:
    """Hybrid mode: the embedding side (tiers/retrieval/hybrid.py), or None (keyword mode, or no model)."""
    from memoryd.tiers.retrieval.embed import hybrid_ready

    ready, warning = hybrid_ready(mem.config) if query else (False, None)
    if warning:
        mem.warnings.append(warning)
    if not ready:
        return None
    from memoryd.tiers.retrieval import hybrid

    live = [c for c in cands if c["tier"] == "warm"] + hot_candidates(state["hot"])
    return hybrid.dense_side(mem, query, live, cands, max(limit * COLD_FACTOR, COLD_MIN),
                             lambda e: cold_candidate(e, now))


def _reinforce(mem: AgentMemory, state: dict, results: list[dict], pending: dict, now: float) -> None:
    """Accesses (warm and cold) go to the access log; the next write folds them into warm and the index."""
    warm = {e["id"]: e for e in state["warm"]["entries"]}
    counts = {}
    for r in results:
        if r["tier"] == "warm" and r["id"] in warm:
            n = warm[r["id"]]["access_count"] + 1
        elif r["tier"] == "cold":
            n = max(int(r.get("access_count") or 0), pending.get(r["id"], (0, 0))[0]) + 1
        else:
            continue
        counts[r["id"]] = (n, int(now))
        r.update(access_count=n, last_access=int(now))
    mem.accesses.record(counts)
