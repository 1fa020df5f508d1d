"""Entities measured: the hot-entity prior off and on (keyword mode), and the rules' precision: `python -m bench.bench_entities [--small]`.

1. The recall benchmark's corpus (bench/recall): every question asked with no entity read yet (the prior has
   nothing to apply) and again after `entity_refresh` (the prior on); recall@5/MRR side by side, with the
   time entity extraction took per 1,000 memories. Its sessions are 6–16 days apart, so entities stay cool.
2. A busy week, where entities are hot: the knowledge benchmark's world (bench/knowledge/world.py) told
   through `store` with Retain-style @tags, three of its entities every day (their values changing through
   the week), every other once; each topic's question asked with the prior off and on, keyword mode: the
   current value at rank 1 and in the top 5, for questions about hot and about cool entities.
3. The rules' precision and recall on bench/entity_cases.py (sentences with the entities they name).
"""
from __future__ import annotations

import argparse
import datetime as dt
import tempfile
import time
import zlib
from pathlib import Path
from typing import Any

from bench.recall.generate import generate
from bench.recall.score import score, table
from bench.recall.systems import Memoryd, scopes

BUSY_DAYS = 7
_LEADS = ("Update:", "Reminder:", "FYI:", "Status:", "Note:", "Again:", "Recap:")  # one a day: no two days alike


def recall_corpus(seed: int, small: bool) -> None:
    from memoryd.daemon.api import in_process

    corpus = generate(seed=seed, small=small, today=dt.date.today())
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
    print(f"1. recall corpus: {len(corpus.questions)} questions, {read} memories read for entities in {spent:.2f} s "
          f"({1000 * spent / max(read, 1):.2f} s per 1,000), {active} active entities")
    print(table(score(corpus.questions, rankings)))


HOT = ("Project Atlas", "Alice Chen", "Project Orion")  # talked about all week; every other entity once


def _busy_texts(today: dt.date) -> tuple[list[tuple[str, str, str, str]], dict[str, str]]:
    """(text, category, date, @handle) of every store call of the week, and topic key → its current value."""
    from bench.knowledge.world import TOPICS, entity

    told: list[tuple[str, str, str, str]] = []
    current: dict[str, str] = {}
    for t in TOPICS:
        e = entity(t.entity)
        days = range(BUSY_DAYS) if t.entity in HOT else [zlib.crc32(t.key.encode()) % 2 + 1]  # cool: once, early
        for d in days:
            value = t.values[min(d * len(t.values) // BUSY_DAYS, len(t.values) - 1)] if t.entity in HOT else t.values[0]
            date = (today - dt.timedelta(days=BUSY_DAYS - d)).isoformat()
            for template in ((t.note, t.say[0], t.hint[0]) if t.entity in HOT else (t.note,)):
                text = template.format(v=value).split(": ", 1)[-1] if template is t.note else template.format(v=value)
                told.append((f"{_LEADS[d % len(_LEADS)]} {text}", e.category, date, e.handle))
            current[t.key] = value
    return told, current


def _found(results: list[dict[str, Any]], value: str) -> int | None:
    for rank, r in enumerate(results[:5], start=1):
        if value.casefold() in str(r.get("text", "")).casefold():
            return rank
    return None


def busy_week(seed: int) -> None:
    from bench.knowledge.world import TOPICS
    from memoryd.daemon.api import in_process
    from memoryd.tiers.base.config import load_config

    today = dt.date.today()
    told, current = _busy_texts(today)
    with tempfile.TemporaryDirectory() as tmp:
        env = {"MEMORYD_HOME": str(Path(tmp) / "home"), "MEMORYD_WORKSPACE": str(Path(tmp) / "ws"),
               "OPENCLAW_STATE_DIR": str(Path(tmp) / "oc"), "MEMORYD_RETRIEVAL_MODE": "keyword"}
        api = in_process(load_config(env), shared=True)
        try:
            api.init(agent_id="busy")
            for text, category, date, handle in told:
                api.store(agent_id="busy", text=text, category=category, metadata={"date": date, "entities": [handle]})

            lists: dict[str, list[list[str]]] = {}

            def ask() -> dict[str, int | None]:
                out: dict[str, int | None] = {}
                for t in TOPICS:
                    results = api.retrieve(agent_id="busy", query=t.ask, limit=5)["results"]
                    lists.setdefault(t.key, []).append([r["id"] for r in results])
                    out[t.key] = _found(results, current[t.key])
                return out
            off = ask()
            api.entity_refresh(agent_id="busy")
            hot = [e for e in api.entity_list(agent_id="busy")["entities"] if e["state"] == "active"]
            on = ask()
        finally:
            api.close()
    print(f"\n2. busy week: {len(told)} store calls over {BUSY_DAYS} days naming {len(HOT)} entities daily and the "
          f"others once; {len(hot)} active: " + ", ".join(f"{e['name']} {e['hotness']:.2f}" for e in hot))
    moved = sum(a != b for a, b in lists.values())
    print(f"the prior changed the top 5 of {moved} of {len(lists)} questions")
    hot_keys = {t.key for t in TOPICS if t.entity in HOT}
    print(f"{'questions':<26} {'n':>3} {'R@1 off':>8} {'R@1 on':>7} {'R@5 off':>8} {'R@5 on':>7}")
    for label, keys in (("all", set(off)), ("about a hot entity", hot_keys), ("about a cool one", set(off) - hot_keys)):
        def share(ranks: dict[str, int | None], k: int) -> float:
            return sum(ranks[q] is not None and ranks[q] <= k for q in keys) / max(len(keys), 1)
        print(f"{label:<26} {len(keys):>3} {share(off, 1):>8.3f} {share(on, 1):>7.3f} {share(off, 5):>8.3f} "
              f"{share(on, 5):>7.3f}")


def precision() -> None:
    from bench.entity_cases import score as cases
    from memoryd.tiers.knowledge.entity_rules import TYPES, extract

    r = cases(extract, TYPES)
    print(f"\n3. entity rules on {r['sentences']} sentences (en + zh): precision {r['precision']:.3f}, "
          f"recall {r['recall']:.3f}; people: precision {r['person_precision']:.3f}, recall {r['person_recall']:.3f}")
    for w in r["wrong"]:
        print(f"   {w['text']!r}: extra {w['extra']}, missed {w['missed']}")


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="python -m bench.bench_entities", description=__doc__.splitlines()[0])
    p.add_argument("--small", action="store_true")
    p.add_argument("--seed", type=int, default=7)
    args = p.parse_args(argv)
    recall_corpus(args.seed, args.small)
    busy_week(args.seed)
    precision()


if __name__ == "__main__":
    main()
