"""Run the knowledge benchmark: `python -m bench.knowledge [--small] [--seed N] [--today D] [--json] [--out DIR]`.

Generates the weeks (bench/knowledge/generate.py), lives them through memoryd day by day, asks every
question of memoryd and of plain FTS5 BM25 over every text given, and prints each measure beside the
baseline with its goal and what it means; `python -m bench.recall --small`'s recall@5 is run and printed too.
"""
from __future__ import annotations

import argparse
import datetime as dt
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from .generate import generate
from .metrics import score
from .model import ENTITY, Dataset
from .world import entity
from .systems import MemorydRun, run_baseline, run_memoryd, run_recall

MEANING = (
    "What each number is:",
    "- duplicate: share of all questions whose top 5 holds one fact twice (a warm and a cold copy, the chat",
    "  turn and the note's wording of it, the agent echoing it back); results are matched to the generated texts.",
    "- current at rank 1 / stale above: for each topic whose value changed, whether the first result names the",
    "  current value, and whether a result naming only an earlier value ranks above the first naming the current.",
    "- entity answered: 'what do we know about NAME?' is answered when a top-5 result, or the entity's page",
    "  (`memoryd entity show NAME --json`, when that command exists), names a current value of one of its topics;",
    "  'in entity list': the asked entities `memoryd entity list --json` names, by their name or their @handle.",
    "- filler: share of top 5 lists holding an acknowledgement or pleasantry (\"Good lesson. I'll avoid ...\").",
    "- held per 100 texts: warm entries + local-index rows (`status`) per 100 texts given (chat turns, note",
    "  lines, store calls) and per 100 chat turns; 'before' counts what ingest left before any consolidation,",
    "  'after' what is held at the end.",
    "- consolidation: wall time of `consolidate --mode daily` (run every N days) per 1,000 memories new since",
    "  the run before; the baseline column is BM25's index build per 1,000 texts.",
    "- recall@5: `python -m bench.recall --small` (keyword mode), memoryd beside its stemmed BM25 row.",
)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m bench.knowledge", description=__doc__.splitlines()[0])
    p.add_argument("--small", action="store_true", help="three weeks instead of twelve (seconds)")
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--today", type=dt.date.fromisoformat, default=None, metavar="YYYY-MM-DD",
                   help="the day the questions are asked (default: today; the last day lived is the day before)")
    p.add_argument("--every", type=int, default=7, metavar="DAYS", help="consolidate every DAYS days (default 7)")
    p.add_argument("--no-recall", action="store_true", help="skip running bench.recall --small")
    p.add_argument("--no-pages", action="store_true", help="skip `memoryd entity show` even where it exists")
    p.add_argument("--json", action="store_true", help="print the results as one JSON document")
    p.add_argument("--out", type=Path, default=None,
                   help="keep the OpenClaw files, MEMORYD_HOME, dataset.json and results.json here")
    args = p.parse_args(argv)
    if args.every < 1:
        p.error("--every must be at least 1")
    return args


def _names(obj: Any) -> set[str]:
    """Every "name" anywhere in an `entity list --json` document, casefolded."""
    if isinstance(obj, dict):
        found = {obj["name"].casefold()} if isinstance(obj.get("name"), str) else set()
        return found.union(*(_names(v) for v in obj.values()))
    if isinstance(obj, list):
        return set().union(*(_names(v) for v in obj))
    return set()


def listed_share(ds: Dataset, listing: str | None) -> float | None:
    """Share of the asked entities `entity list --json` names, by their name or their @handle (None: no list)."""
    if listing is None:
        return None
    try:
        names = _names(json.loads(listing))
    except ValueError:
        return 0.0
    asked = [entity(q.about) for q in ds.questions if q.kind == ENTITY]
    return round(sum(e.name.casefold() in names or e.handle.casefold() in names for e in asked) / len(asked), 4)


def per_1000(seconds: float, count: int) -> float | None:
    return round(seconds * 1000 / count, 4) if count > 0 else None


def results(ds: Dataset, mem: MemorydRun, base: dict[str, Any], build_s: float,
            recall: dict[str, Any] | None) -> dict[str, Any]:
    counts = ds.counts()
    texts = counts["inputs"]
    runs = mem.consolidations
    new, seconds = sum(r["new"] for r in runs), sum(r["seconds"] for r in runs)
    return {
        "dataset": {"seed": ds.seed, "today": ds.today.isoformat(), "days": ds.days, **counts,
                    "questions": {k: sum(q.kind == k for q in ds.questions) for k in ("current", "fact", "entity")}},
        "memoryd": {"module": mem.module, "mode": "keyword", "ingest_s": round(mem.ingest_s, 3),
                    "entity_command": mem.pages is not None, "entities_listed": listed_share(ds, mem.entity_list),
                    "warnings": len(mem.warnings)},
        "scores": {"memoryd": score(ds.questions, mem.ranked, mem.pages), "bm25": score(ds.questions, base)},
        "held": {"texts": texts, "turns": counts["turns"], "before": mem.created, "after": mem.kept,
                 "per_100_before": round(100 * mem.created / texts, 1),
                 "per_100_after": round(100 * mem.kept / texts, 1),
                 "per_100_turns_before": round(100 * mem.created / max(counts["turns"], 1), 1),
                 "per_100_turns_after": round(100 * mem.kept / max(counts["turns"], 1), 1)},
        "consolidation": {"runs": runs, "new": new, "seconds": round(seconds, 4), "s_per_1000": per_1000(seconds, new),
                          "bm25_build_s_per_1000": per_1000(build_s, texts)},
        "recall": recall,
    }


def _f(x: Any, digits: int = 3) -> str:
    return "n/a" if x is None else f"{x:.{digits}f}" if isinstance(x, float) else str(x)


def report(res: dict[str, Any]) -> str:
    d, m, b = res["dataset"], res["scores"]["memoryd"], res["scores"]["bm25"]
    held, cons, rec = res["held"], res["consolidation"], res["recall"]
    q = d["questions"]
    rows = [
        ("top-5 lists holding a duplicate", "0", m["duplicate_share"], b["duplicate_share"]),
        ("'what is X now': current value at rank 1", ">= 0.95", m["current"]["at1"], b["current"]["at1"]),
        ("'what is X now': a stale value above the current", "0", m["current"]["stale_above"],
         b["current"]["stale_above"]),
        ("'what is X now': current value in the top 5", "", m["current"]["in5"], b["current"]["in5"]),
        ("unchanging facts: value in the top 5", "", m["fact"]["in5"], b["fact"]["in5"]),
        ("entity questions answered (page or top 5)", ">= 0.9", m["entity"]["answered"], b["entity"]["answered"]),
        ("  ... by the top 5 / by the entity's page", "",
         f"{_f(m['entity']['by_top5'])} / {_f(m['entity']['by_page'])}", f"{_f(b['entity']['by_top5'])} / n/a"),
        ("  ... asked entities in `entity list` (name or @handle)", "", res["memoryd"]["entities_listed"], None),
        ("top-5 lists holding filler", "0", m["filler_share"], b["filler_share"]),
        ("memories held per 100 texts, before / after", "", f"{held['per_100_before']:.1f} / "
         f"{held['per_100_after']:.1f}", "100.0 / 100.0"),
        ("  ... per 100 chat turns, before / after", "", f"{held['per_100_turns_before']:.1f} / "
         f"{held['per_100_turns_after']:.1f}", "{0:.1f} / {0:.1f}".format(100 * held["texts"] / max(held["turns"], 1))),
        ("consolidation s per 1,000 new memories", "", _f(cons["s_per_1000"]),
         f"{_f(cons['bm25_build_s_per_1000'])} (index build)"),
    ]
    if rec is not None:
        rows.append(("recall@5, bench.recall --small (keyword)", ">= main", rec.get("memoryd_r5", rec.get("error")),
                     rec.get("bm25_porter_r5")))
    lines = [f"knowledge benchmark: {d['days']} days, {d['inputs']} texts given ({d['turns']} chat turns, "
             f"{d['note']} note lines, {d['store']} store calls; {d['filler']} filler), "
             f"{d['changes']} changes of fact; "
             f"{q['current']} 'now' + {q['fact']} fact + {q['entity']} entity questions; seed {d['seed']}, "
             f"asked on {d['today']}",
             f"memoryd: {res['memoryd']['module']} (keyword mode); ingest {res['memoryd']['ingest_s']:.2f} s, "
             f"{len(cons['runs'])} consolidations ({cons['new']} new memories, {cons['seconds']:.3f} s); "
             f"entity command: {'yes' if res['memoryd']['entity_command'] else 'no'}", ""]
    lines.append(f"{'measure':<52} {'goal':>8} {'memoryd':>14} {'bm25 (every text)':>22}")
    for name, goal, mine, theirs in rows:
        lines.append(f"{name:<52} {goal:>8} {_f(mine):>14} {_f(theirs):>22}")
    return "\n".join(lines + [""] + list(MEANING))


def benchmark(ds: Dataset, root: Path, every: int = 7, recall: bool = True, pages: bool = True) -> dict[str, Any]:
    """Every system on the dataset (files and MEMORYD_HOME under `root`); the results and the rankings."""
    t0 = time.perf_counter()
    mem = run_memoryd(ds, root, every=every, pages=pages)
    base, build_s = run_baseline(ds)
    res = results(ds, mem, base, build_s, run_recall(ds.today.isoformat()) if recall else None)
    res["rankings"] = {"memoryd": {k: [h.input for h in v] for k, v in mem.ranked.items()},
                       "bm25": {k: [h.input for h in v] for k, v in base.items()}}
    res["elapsed_s"] = round(time.perf_counter() - t0, 2)
    return res


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    ds = generate(args.seed, args.today or dt.date.today(), small=args.small)
    with tempfile.TemporaryDirectory(prefix="kbench-") as tmp:
        root = args.out or Path(tmp)
        root.mkdir(parents=True, exist_ok=True)
        res = benchmark(ds, root, every=args.every, recall=not args.no_recall, pages=not args.no_pages)
    if args.out:
        (args.out / "dataset.json").write_text(json.dumps(ds.as_dict(), ensure_ascii=False, indent=1), encoding="utf-8")
        (args.out / "results.json").write_text(json.dumps(res, ensure_ascii=False, indent=1), encoding="utf-8")
    if args.json:
        print(json.dumps({k: v for k, v in res.items() if k != "rankings"}, ensure_ascii=False, indent=1))
    else:
        print(report(res))
    return 0


if __name__ == "__main__":
    sys.exit(main())
