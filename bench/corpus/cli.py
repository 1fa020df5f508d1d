"""The corpus's command line: `check FILE…` prints each file's counts or its first error; `run` the benchmark."""
from __future__ import annotations

import sys
from pathlib import Path

from .parse import CorpusError, parse
from .truth import Truth

MINIMUM = {"turns": 250, "topics_changing": 10, "topics_stable": 8}


def check(paths: list[str]) -> int:
    bad = 0
    for path in paths:
        try:
            conv = parse(path)
            truth = Truth(conv)
            truth.check()
        except CorpusError as e:
            print(f"error: {e}", file=sys.stderr)
            bad += 1
            continue
        counts = truth.counts()
        short = [f"{k} {counts[k]} < {v}" for k, v in MINIMUM.items() if counts[k] < v]
        print(f"{Path(path).name}: split {conv.split}, " + ", ".join(f"{k} {v}" for k, v in counts.items()))
        if short:
            print(f"  below the minimum: {'; '.join(short)}", file=sys.stderr)
            bad += 1
    return 1 if bad else 0


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["check"] and args[1:]:
        return check(args[1:])
    if args[:1] == ["run"]:
        from .run import main as run_main
        return run_main(args[1:])
    print("usage: python -m bench.corpus check FILE… | run [--split test] [--json]", file=sys.stderr)
    return 2
