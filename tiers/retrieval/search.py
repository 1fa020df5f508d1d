"""A retrieve: candidates from hot, warm and the local index, through the declared stages of
tiers/retrieval/pipeline.py (admit, rank, current, fold, summaries), then reinforcement.

The rows gathered (warm entries, hot items, index rows) become frozen candidates at one point (`_candidates`)
and the results become the API's dicts at one point (the end of `retrieve`)."""
from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from memoryd.tiers.retrieval import analyzer, pipeline, ranking, when
from memoryd.tiers.base.errors import MemorydError
from memoryd.tiers.base.ports import ColdEntry
from memoryd.tiers.knowledge.fading import said_score
from memoryd.tiers.retrieval.filters import Filters, score_paths
from memoryd.tiers.retrieval.candidate import Candidate
from memoryd.tiers.retrieval.time_rule import time_rule
from memoryd.tiers.retrieval.view import RetrievalView

if TYPE_CHECKING:
    from memoryd.tiers.memory.types import AgentState, HotState

COLD_FACTOR = 4   # local-index hits fetched per result asked for (then re-ranked with every tier)
COLD_MIN = 40
MAX_QUERY_CHARS = 2000   # a query is read up to here (its first MAX_QUERY_TERMS distinct terms count for BM25;
                         # hybrid embeds its first hybrid.QUERY_CHARS): any query answers within a second


def retrieve(view: RetrievalView, query: str, limit: int, *, paths: dict[str, float] | None,
             filters: Filters) -> list[dict[str, Any]]:
    """Search hot, warm and cold for a checked query (AgentMemory.retrieve checks it and holds the lock);
    `paths` (from LLM tree search) replaces keyword path scores.

    With filters (url, entity, date range) only warm and cold facts that pass are considered, and
    the query may be empty (then the best-scored matches come first)."""
    state, now = view.state, view.now
    if len(query) > MAX_QUERY_CHARS:
        view.warn(f"query cut to its first {MAX_QUERY_CHARS} of {len(query)} characters")
        query = query[:MAX_QUERY_CHARS]
    rule = time_rule(query, now) if query else None   # a question about time (tiers/retrieval/time_rule.py)
    terms = rule.content(analyzer.query_terms(query)) if rule else analyzer.query_terms(query)
    rows: list[dict[str, Any]] = [dict(e, tier="warm", path=e["category"]) for e in state["warm"]["entries"]]
    if filters.takes_hot():
        rows += hot_candidates(state["hot"])
    local = len(rows)  # hot and warm: BM25's statistics count every one of them, whatever the filters
    corpus = ranking.Corpus()
    rows += _cold_rows(view, terms, query, limit, {r["id"] for r in rows}, filters, corpus)
    dense = _dense(view, query, state, rows, limit)
    _date_hot_by_source(view, rows)
    cands = _candidates(rows, filters, corpus, terms, local)
    ask = pipeline.Ask(view, query, terms, limit, filters, corpus,
                       (score_paths(terms, state["tree"]["nodes"]) if paths is None else paths) if query else {},
                       rule.prepare([{"date": c.date} for c in cands]) if rule and query else None, dense,
                       lambda ids: _fetch(view, ids, filters))
    results = _reinforce(view, pipeline.run(ask, cands))  # the declared stages (tiers/retrieval/pipeline.py)
    return [r.to_json() for r in results]


def _candidates(rows: list[dict[str, Any]], filters: Filters, corpus: ranking.Corpus, terms: list[str],
                local: int) -> list[Candidate]:
    """The gathered rows as candidates (the one way in) that pass the filters. The first `local` rows (warm and
    hot) count in BM25's statistics whatever the filters; hot items pass every filter that lets hot in."""
    mine = [Candidate.of(r) for r in rows[:local]]
    stats = ranking.local_corpus(mine, terms)
    corpus.add(stats.docs, stats.terms, stats.df)
    if not filters:
        return mine + [Candidate.of(r) for r in rows[local:]]
    return ([c for c in mine if c.tier == "hot" or filters.matches(c.row)]
            + [Candidate.of(r) for r in rows[local:] if filters.matches(r)])


def hot_candidates(hot: HotState) -> list[dict[str, Any]]:
    """Hot's items as rows a retrieve gathers (and the web view and the embedder list)."""
    ctx = hot["active_context"]
    rows: list[tuple[str, str, str, float, int | None, str | None]] = [
        (x["id"], x["text"], f"lessons/{x['category']}", x["importance"], x.get("timestamp"), None)
        for x in hot["critical_lessons"]]
    sources = {x["id"]: x["source_id"] for x in [*hot["critical_lessons"], *ctx["events"], *ctx["tasks"]]
               if x.get("source_id")}
    rows += [(p["id"], f"{p['name']}: {p.get('description', '')} ({p.get('status', '')})", "active_context/projects",
              0.9, p.get("updated_at"), None) for p in ctx["projects"]]
    rows += [(e["id"], e["text"], "active_context/events", 0.85, e.get("timestamp"), _undated(e["text"]))
             for e in ctx["events"]]
    rows += [(t["id"], f"{t['text']} ({t['status']})", "active_context/tasks", 0.85, t.get("timestamp"),
              _undated(t["text"]) or t["text"]) for t in ctx["tasks"]]  # said without the status hot added
    rows += [(f"identity:{k}", f"{k}: {v}", "identity", 1.0, None, _sentence(v)) for k, v in hot["identity"].items()]
    rows += [(f"profile:{k}", f"{k}: {v}", "owner_profile", 1.0, None, _sentence(v))
             for k, v in hot["owner_profile"].items()]
    return [{"id": i, "text": t, "category": c, "score": s, "tier": "hot", "path": c, "timestamp": ts,
             **({"said": said} if said else {}), **({"source_id": sources[i]} if i in sources else {})}
            for i, t, c, s, ts, said in rows]


def _date_hot_by_source(view: RetrievalView, rows: list[dict[str, Any]]) -> None:
    """A hot item made from a memory is dated when that memory was said, not when hot took it in (its
    timestamp): a lesson from a July note must not rank as today's news for a "now" question. Sets the hot
    row's `day`, which when.memory_date reads for a row without metadata."""
    wanted = {r["source_id"] for r in rows if r["tier"] == "hot" and r.get("source_id")}
    if not wanted:
        return
    dates = {r["id"]: when.memory_date(r) for r in rows if r["id"] in wanted}
    rest = sorted(wanted - set(dates))
    if rest and view.archive is not None:
        try:
            dates.update((e["id"], when.memory_date(e)) for e in view.archive.get(view.agent_id, rest))
        except MemorydError:
            pass  # left as hot dated it
    for r in rows:
        if r["tier"] == "hot" and dates.get(r.get("source_id") or ""):
            r["day"] = dates[r["source_id"]]


def _sentence(value: str) -> str | None:
    """A profile or identity value that is a memory's own sentence ("@alice-chen: Alice Chen prefers async
    updates"): compared with other memories by these words, not with the key hot filed it under."""
    return value if len(str(value).split()) >= 3 else None


def _undated(text: str) -> str | None:
    """A hot event's or task's words without the date hot added ("… on June 3 (2027-06-03)"): the memory
    it came from says them (tiers/distillation/fact_rules.Fact.hot_text)."""
    from memoryd.tiers.memory.hot import DAY_SAID

    cut = DAY_SAID.sub("", text)
    return cut if cut != text else None


def _cold_rows(view: RetrievalView, terms: list[str], query: str, limit: int, seen: set[str],
              filters: Filters, corpus: ranking.Corpus) -> list[dict[str, Any]]:
    archive, agent = view.archive, view.agent_id
    if archive is None:
        return []
    want = max(limit * COLD_FACTOR, COLD_MIN) * (3 if filters else 1)
    try:
        if terms:
            docs, n_terms, df = archive.term_stats(agent, terms)
            corpus.add(docs, n_terms, df)
            hits = archive.search(agent, analyzer.probe_terms(terms, df, docs), want)
        elif not query and (filters.entity or filters.url):  # a filter's own words find candidates
            words = analyzer.query_terms(filters.entity or filters.url or "")
            hits = archive.search(agent, words, want) if words else []
        elif not query and (filters.since is not None or filters.until is not None):
            hits = archive.dated(agent, filters.since, filters.until, want)
        elif not query and filters.kind:
            hits = archive.of_kind(agent, filters.kind, want)
        else:
            hits = []
    except MemorydError as exc:
        view.warn(f"local index not searched: {exc.message}")
        return []
    out = []
    for e in hits:
        if e["id"] in seen:
            continue  # also in warm (a crash between archiving and rewriting warm): warm's copy wins
        seen.add(e["id"])
        out.append(cold_row(e, view.now))
    return out


def _fetch(view: RetrievalView, ids: list[str], filters: Filters) -> list[Candidate]:
    """Warm entries and index rows by id, as candidates that pass the filters (a successor the query's words
    did not reach)."""
    warm = {e["id"]: e for e in view.state["warm"]["entries"]}
    out = [dict(warm[i], tier="warm", path=warm[i]["category"]) for i in ids if i in warm]
    rest = [i for i in ids if i not in warm]
    if rest and view.archive is not None:
        try:
            out += [cold_row(e, view.now) for e in view.archive.get(view.agent_id, rest)]
        except MemorydError:
            pass  # the stale result is then left out, as before
    return [Candidate.of(r) for r in out if filters.matches(r)]


def cold_row(e: ColdEntry, now: float) -> dict[str, Any]:
    """An index row as gathered: its score aged from when it was said, its tier and path."""
    s = said_score(dict(e, importance=float(e.get("importance") or 0.5)), now)  # aged from when it was said
    return dict(e, score=round(s, 4), tier="cold", path=e["category"])


def _dense(view: RetrievalView, query: str, state: AgentState, rows: list[dict[str, Any]], limit: int) -> Any:
    """Hybrid mode: the embedding side (tiers/retrieval/hybrid.py), or None (keyword mode, or no model)."""
    from memoryd.tiers.retrieval.embed import hybrid_status

    ready, warning = hybrid_status(view.settings.get("mode"), view.mode_chosen) if query else (False, None)
    if warning:
        view.warn(warning)
    if not ready:
        return None
    from memoryd.tiers.retrieval import hybrid

    live = [r for r in rows if r["tier"] == "warm"] + hot_candidates(state["hot"])
    return hybrid.dense_side(view, query, live, rows, max(limit * COLD_FACTOR, COLD_MIN),
                             lambda e: cold_row(e, view.now))


def _reinforce(view: RetrievalView, results: list[Candidate]) -> list[Candidate]:
    """Accesses (warm and cold) go to the access log; the next write folds them into warm and the index.
    Returns the results with their new access count."""
    warm = {e["id"]: e for e in view.state["warm"]["entries"]}
    now = view.now
    counts = {}
    out = []
    for r in results:
        if r.tier == "warm" and r.id in warm:
            n = warm[r.id]["access_count"] + 1
        elif r.tier == "cold":
            n = max(int(r.row.get("access_count") or 0), view.pending.get(r.id, (0, 0))[0]) + 1
        else:
            out.append(r)
            continue
        counts[r.id] = (n, int(now))
        out.append(replace(r, access=(n, int(now))))
    view.record_accesses(counts)
    return out
