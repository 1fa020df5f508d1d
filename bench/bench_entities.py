"""Entities on the recall benchmark's corpus: `python -m bench.bench_entities [--small]`.

Ingests the generated notes (bench/recall) through the real operations, asks every question in keyword mode
with no entity read yet (the hot-entity prior has nothing to apply) and again after `entity_refresh` (the
prior on), and prints recall@5/MRR side by side, with the time entity extraction took per 1,000 memories.
"""
from __future__ import annotations

import argparse
import datetime as dt
import tempfile
import time
from pathlib import Path

from bench.recall.generate import generate
from bench.recall.score import score, table
from bench.recall.systems import Memoryd, scopes


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="python -m bench.bench_entities", description=__doc__.splitlines()[0])
    p.add_argument("--small", action="store_true")
    p.add_argument("--seed", type=int, default=7)
    args = p.parse_args(argv)
    from memoryd.daemon.api import in_process

    corpus = generate(seed=args.seed, small=args.small, today=dt.date.today())
    with tempfile.TemporaryDirectory() as tmp:
        parts = scopes(corpus, False)
        mem = Memoryd(Path(tmp), retrieval={"mode": "keyword"})
        for scope in parts:
            mem.ingest(scope)
        rankings: dict[str, dict[str, list[str]]] = {"prior off": {}, "prior on": {}}
        for scope in parts:
            for q in scope.questions:
                rankings["prior off"][q.id] = mem.ask(scope, q.text)[0]
        t0, read, active = time.perf_counter(), 0, 0
        for scope in parts:
            api = in_process(mem.config(scope))
            read += api.call("entity_refresh", {"agent_id": scope.agent})["read"]
            active += sum(e["state"] == "active" for e in api.call("entity_list", {"agent_id": scope.agent})["entities"])
        spent = time.perf_counter() - t0
        for scope in parts:
            for q in scope.questions:
                rankings["prior on"][q.id] = mem.ask(scope, q.text)[0]
    print(f"{len(corpus.questions)} questions, {read} memories read for entities in {spent:.2f} s "
          f"({1000 * spent / max(read, 1):.0f} ms per 1,000), {active} active entities")
    print(table(score(corpus.questions, rankings)))


if __name__ == "__main__":
    main()
