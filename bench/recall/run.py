"""Run the retrieval-quality benchmark: `python -m bench.recall [--small] [--seed N] [--lang en|zh|all] [--json]`.

Generates the corpus, writes it as daily notes, ingests them into a fresh MEMORYD_HOME through the real
`ingest_daily` operation, asks every question through `retrieve`, asks the same questions of two plain
FTS5 BM25 baselines over the same turns, and prints recall@1/5/10 and MRR side by side.
"""
from __future__ import annotations

import argparse
import datetime as dt
import json
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

from .generate import generate
from .hybrid import AFTER, BEFORE, KEYWORD, LLM, RULES, VARIANTS, hybrid_report, run_hybrid, run_keyword_variants
from .model import LANGS, Corpus
from .score import Metrics, ratio, score, table
from .systems import Run, run_baselines, run_cli, run_memoryd, scopes

GOAL = 1.1   # issue 10: memoryd ≥ 1.1 × the stemmed baseline at recall@5, in English and in Chinese


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m bench.recall", description=__doc__.splitlines()[0])
    p.add_argument("--small", action="store_true", help="a tiny corpus (3 conversations) for a quick run")
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--lang", choices=("en", "zh", "all"), default="all")
    p.add_argument("--today", type=dt.date.fromisoformat, default=None, metavar="YYYY-MM-DD",
                   help="the day the questions are asked (default: today; the last sessions end just before it)")
    p.add_argument("--shared", action="store_true", help="every conversation in one agent (default: one agent each)")
    p.add_argument("--cli", type=int, nargs="?", const=30, default=0, metavar="N",
                   help="also ask about N questions (default 30) through the `memoryd retrieve --json` console script")
    p.add_argument("--misses", type=int, default=0, metavar="N",
                   help="also show N questions stemmed BM25 finds in its top 5 and memoryd does not")
    p.add_argument("--hybrid", nargs="?", const=AFTER, default="", metavar="RULES",
                   help="also hybrid retrieval right after a bulk ingest and after back-fill (needs the extra "
                        f"memoryd[embed]; minutes: every turn is embedded); after back-fill with these rules "
                        f"(default {AFTER}; known: {','.join(RULES)})")
    p.add_argument("--variants", default="", metavar="NAMES",
                   help="design choices measured against the default (keyword-*: keyword mode; the others "
                        "with --hybrid; known: "
                        "all," + ",".join(VARIANTS) + ")")
    p.add_argument("--llm-fake", action="store_true",
                   help="with --hybrid: also --mode llm's re-rank of hybrid-after's top 20 by a FAKE local LLM "
                        "(bench/recall/llm.py: the embedding model judges), against no re-rank")
    p.add_argument("--json", action="store_true", help="print the results as one JSON document")
    p.add_argument("--out", type=Path, default=None, help="keep the notes, MEMORYD_HOME, corpus.json and results here")
    return p.parse_args(argv)


def _percentiles(values: list[float]) -> dict[str, float]:
    if not values:
        return {"p50_ms": 0.0, "p95_ms": 0.0, "max_ms": 0.0}
    ordered = sorted(values)
    return {"p50_ms": round(statistics.median(ordered), 3), "p95_ms": round(ordered[int(0.95 * (len(ordered) - 1))], 3),
            "max_ms": round(ordered[-1], 3)}


def benchmark(corpus: Corpus, root: Path, shared: bool = False, cli_sample: int = 0,
              hybrid: tuple[str, ...] = (), variants: tuple[str, ...] = (), llm: bool = False) -> dict[str, Any]:
    """Run every system on the corpus (notes and MEMORYD_HOME under `root`) and return the results."""
    parts = scopes(corpus, shared)
    now = asked_at(corpus.today)
    runs: dict[str, Run] = {}
    runs["memoryd"], mem = run_memoryd(parts, root, now=now)
    runs.update(run_keyword_variants(parts, root, variants, now=now))
    variants = tuple(v for v in variants if VARIANTS[v][0] != KEYWORD)
    cost = None
    if hybrid:
        more, cost = run_hybrid(parts, root, {name: RULES[name] for name in hybrid}, variants=variants, llm=llm,
                                now=now)
        runs.update(more)
    runs.update(run_baselines(parts))
    scores = score(corpus.questions, {n: r.rankings for n, r in runs.items()})
    out: dict[str, Any] = {
        "corpus": {"seed": corpus.seed, "today": corpus.today.isoformat(), "conversations": len(corpus.conversations),
                   "turns": len(corpus.turns), "questions": len(corpus.questions), "agents": len(parts)},
        "scores": {n: {g: m.as_dict() for g, m in s.items()} for n, s in scores.items()},
        "ratio_r5": {g: _round(ratio(scores, "memoryd", "bm25-porter", g)) for g in ("all",) + LANGS},
        "hybrid_r5": {n: {g: _round(ratio(scores, n, "memoryd", g)) for g in ("all",) + LANGS}
                      for n in ((BEFORE,) + hybrid + variants + ((LLM,) if llm else ()) if hybrid else ())},
        "hybrid_cost": cost,
        "timing": {n: {"setup_s": round(r.setup_s, 3), **_percentiles(r.latencies_ms)} for n, r in runs.items()},
        "warnings": runs["memoryd"].warnings,
        "rankings": {n: r.rankings for n, r in runs.items()},
    }
    if cli_sample:
        cli = run_cli(mem, parts, cli_sample)
        asked = [q for q in corpus.questions if q.id in cli.rankings]
        sample = score(asked, {"memoryd-cli": cli.rankings, "memoryd": runs["memoryd"].rankings})
        out["cli"] = {"questions": len(asked), "scores": {n: s["all"].as_dict() for n, s in sample.items()},
                      "timing": _percentiles(cli.latencies_ms)}
    return out


def asked_at(today: dt.date) -> float:
    """Noon (UTC) of the day the questions are asked: memoryd's clock in every call of the run."""
    return dt.datetime(today.year, today.month, today.day, 12, tzinfo=dt.timezone.utc).timestamp()


def _round(x: float | None) -> float | None:
    return None if x is None else round(x, 3)


def report(res: dict[str, Any]) -> str:
    c = res["corpus"]
    scores = {n: {g: Metrics(**m) for g, m in s.items()} for n, s in res["scores"].items()}
    main_table = {n: s for n, s in scores.items() if n not in res["hybrid_r5"]}
    lines = [f"recall benchmark: {c['conversations']} conversations, {c['turns']} turns, {c['questions']} questions, "
             f"{c['agents']} agent(s), seed {c['seed']}, asked on {c['today']}", "", table(main_table), ""]
    if res["hybrid_r5"]:
        lines += [hybrid_report(res, scores), ""]
    for g, r in res["ratio_r5"].items():
        if r is not None:
            verdict = "meets" if r >= GOAL else "below"
            lines.append(f"memoryd / bm25-porter at recall@5, {g:<3}: {r:5.2f}x  ({verdict} the {GOAL}x goal)")
    lines.append("")
    for n, t in res["timing"].items():
        what = "ingest" if n == "memoryd" else "index"
        lines.append(f"{n:<12} {what} {t['setup_s']:7.2f} s   retrieve p50 {t['p50_ms']:8.2f} ms   p95 {t['p95_ms']:8.2f} ms")
    if "cli" in res:
        cli = res["cli"]
        s = cli["scores"]
        lines.append(f"console script on {cli['questions']} questions: recall@5 {s['memoryd-cli']['r5']:.3f} "
                     f"(in-process on the same questions {s['memoryd']['r5']:.3f}), p50 {cli['timing']['p50_ms']:.0f} ms, "
                     f"p95 {cli['timing']['p95_ms']:.0f} ms")
    if res["warnings"]:
        top = sorted(res["warnings"].items(), key=lambda kv: -kv[1])[:5]
        lines += ["", "memoryd warnings (count × message):"] + [f"  {n} × {m[:120]}" for m, n in top]
    return "\n".join(lines)


def misses(corpus: Corpus, rankings: dict[str, dict[str, list[str]]], n: int) -> str:
    """Questions stemmed BM25 answers in its top 5 and memoryd does not: where to look first."""
    from .score import first_hit

    index, out = corpus.turn_index(), []
    for q in corpus.questions:
        if len(out) >= n:
            break
        mine, theirs = first_hit(q, rankings["memoryd"][q.id], 5), first_hit(q, rankings["bm25-porter"][q.id], 5)
        if theirs and not mine:
            out.append(f"{q.id} [{q.kind}] {q.text}\n  evidence: " + " | ".join(index[e].line for e in q.evidence)
                       + "".join(f"\n  memoryd {i}: {index[t].line}" for i, t in enumerate(rankings["memoryd"][q.id][:3], 1)))
    return "\n".join(out)


def hybrid_rules(spec: str) -> tuple[str, ...]:
    names = tuple(n.strip() for n in spec.split(",") if n.strip())
    unknown = [n for n in names if n not in RULES]
    if unknown:
        raise SystemExit(f"--hybrid: unknown rule {unknown[0]!r}; known: {', '.join(RULES)}")
    if names:
        from memoryd.tiers.retrieval import embed

        if not embed.available():
            raise SystemExit(f"--hybrid: {embed.MISSING}")
    return names


def variant_names(spec: str) -> tuple[str, ...]:
    names = tuple(VARIANTS) if spec.strip() == "all" else tuple(n.strip() for n in spec.split(",") if n.strip())
    unknown = [n for n in names if n not in VARIANTS]
    if unknown:
        raise SystemExit(f"--variants: unknown {unknown[0]!r}; known: {', '.join(VARIANTS)}")
    return names


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    langs = LANGS if args.lang == "all" else (args.lang,)
    corpus = generate(args.seed, args.today or dt.date.today(), small=args.small, langs=langs)
    with tempfile.TemporaryDirectory(prefix="recall-") as tmp:
        root = args.out or Path(tmp)
        root.mkdir(parents=True, exist_ok=True)
        res = benchmark(corpus, root, shared=args.shared, cli_sample=args.cli, hybrid=hybrid_rules(args.hybrid),
                        variants=variant_names(args.variants), llm=args.llm_fake)
    if args.out:
        (args.out / "corpus.json").write_text(json.dumps(corpus.as_dict(), ensure_ascii=False, indent=1), encoding="utf-8")
        (args.out / "results.json").write_text(json.dumps(res, ensure_ascii=False, indent=1), encoding="utf-8")
    if args.json:
        print(json.dumps({k: v for k, v in res.items() if k != "rankings"}, ensure_ascii=False, indent=1))
    else:
        print(report(res))
        if args.misses:
            print("\n" + misses(corpus, res["rankings"], args.misses))
    return 0


if __name__ == "__main__":
    sys.exit(main())
