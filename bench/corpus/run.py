"""`python -m bench.corpus run [--split dev|test|held|all] [--json] [--mode keyword|hybrid] [FILE…]`: memoryd with its
knowledge layer, memoryd with the layer off, and plain BM25, in one run over the corpus's conversations."""
from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path
from typing import Any

from .parse import parse
from .score import score, total
from .systems import run_bm25, run_memoryd

HERE = Path(__file__).resolve().parent
ROWS = (  # measure, goal, what it is
    ("current_at_1", "≥ 0.7", "'what is X now': the first result names the current value"),
    ("stale_above", "≤ 0.1", "an earlier value ranks above the current one (or is there without it)"),
    ("stable_recall5", "≥ off", "a stable look-alike's value in the top 5"),
    ("duplicate_top5", "low", "a top 5 holding one fact twice"),
    ("supersede_precision", "≥ 0.95", "supersessions held at the end that are a real change of that fact"),
    ("supersede", "", "supersessions held at the end"),
    ("true_fact_hidden", "0", "superseded memories whose fact is still current"),
    ("update_precision", "≥ 0.95", "memories updated in part (one of their facts replaced, the rest current)"),
    ("update", "", "memories updated in part"),
    ("merge_precision", "≥ 0.95", "memories absorbed into another that said the same"),
    ("merge", "", "memories absorbed"),
    ("swap_in_precision", "≥ 0.95", "results placed by the knowledge layer for an earlier value the words found"),
    ("swap_in", "", "results placed so"),
    ("hot_lesson_precision", "≥ 0.95", "hot lessons that are lessons the person gave"),
    ("hot_lessons", "", "hot lessons"),
    ("hot_lesson_recall", "", "the person's own {lesson} lines that hot holds (an assistant's echo never goes to hot)"),
    ("owner_profile_precision", "≥ 0.95", "owner-profile values that are the owner's own current facts or standing rules"),
    ("owner_profile", "", "owner-profile keys"),
    ("hot_stale_values", "0", "changed facts whose earlier value hot still shows"),
    ("hot_current_values", "", "changed facts whose current value hot shows"),
    ("review_precision", "", "review questions asked (the agent decides) that are a real change of one fact"),
    ("review_questions", "", "review questions open at the end"),
    ("review_unplaced", "", "review questions with a member the scorer cannot place in the conversation"),
    ("entity_precision", "≥ 0.95", "listed entities that are tagged entities"),
    ("entity_recall", "≥ 0.85", "tagged entities listed"),
    ("entity_recall_core", "≥ 0.85", "tagged people, projects and organisations listed"),
    ("ingest_s", "", "seconds to take everything in"),
)


def files(split: str, given: list[str]) -> list[Path]:
    if given:
        return [Path(f) for f in given]
    out = sorted(HERE.glob("*.convo"))
    return [p for p in out if split == "all" or parse(p).split == split]


def bench(paths: list[Path], mode: str) -> dict[str, Any]:
    per: dict[str, list[dict[str, Any]]] = {"memoryd": [], "knowledge_off": [], "bm25": []}
    for path in paths:
        conv = parse(path)
        for name, knowledge in (("memoryd", True), ("knowledge_off", False)):
            with tempfile.TemporaryDirectory(prefix="memoryd-corpus-") as tmp:
                run = run_memoryd(conv, Path(tmp), knowledge=knowledge, mode=mode)
                row = score(conv, run) | {"ingest_s": round(run.ingest_s, 2),
                                          "consolidate_s": round(run.consolidate_s, 2)}
                per[name].append(row | {"file": path.name})
        per["bm25"].append(score(conv, run_bm25(conv), actions=False) | {"file": path.name})
    return {"files": [p.name for p in paths], "mode": mode, "per_file": per,
            "total": {k: total([{x: y for x, y in r.items() if x != "file"} for r in v]) for k, v in per.items()}}


def report(res: dict[str, Any]) -> str:
    t = res["total"]
    lines = [f"corpus: {', '.join(res['files'])} ({res['mode']} mode)",
             f"{'measure':26} {'memoryd':>9} {'layer off':>9} {'bm25':>7}  goal     what"]
    for key, goal, what in ROWS:
        vals = [t[s].get(key) for s in ("memoryd", "knowledge_off", "bm25")]
        cells = ["-" if v is None else (f"{v:.3f}" if isinstance(v, float) else str(v)) for v in vals]
        lines.append(f"{key:26} {cells[0]:>9} {cells[1]:>9} {cells[2]:>7}  {goal:8} {what}")
    rules = t["memoryd"].get("by_rule") or {}
    if rules:
        lines.append("change rules (pairs right/held): " + ", ".join(f"{k} {v['right']}/{v['pairs']}"
                                                                    for k, v in rules.items()))
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.corpus run")
    p.add_argument("files", nargs="*")
    p.add_argument("--split", choices=("dev", "test", "held", "all"), default="test")
    p.add_argument("--mode", choices=("keyword", "hybrid"), default="keyword")
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    t0 = time.perf_counter()
    res = bench(files(args.split, args.files), args.mode)
    res["seconds"] = round(time.perf_counter() - t0, 1)
    print(json.dumps(res, indent=1, ensure_ascii=False) if args.json else report(res) + f"\n({res['seconds']} s)")
    return 0
