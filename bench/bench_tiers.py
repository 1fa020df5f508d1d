"""Benchmark the tiers: store throughput and retrieve latency at the warm/hot caps; cold search at 10k/100k.

Run: .venv/bin/python bench/bench_tiers.py [--stores N] [--retrieves N] [--cold 10000,100000]
Prints numbers only; nothing here is a pass/fail test.
"""
from __future__ import annotations

import argparse
import os
import random
import statistics
import tempfile
import time
from pathlib import Path

from memoryd.tiers.memory import hot as H
from memoryd.tiers.memory import warm as W
from memoryd.tiers.memory.agent import AgentMemory
from memoryd.tiers.cold.source import LazyIndex  # noqa: E402
from memoryd.tiers.base.atomic import dumps
from memoryd.tiers.base.config import load_config

WORDS = ("duck beijing server deploy tea alice meeting docs bug python rust kernel garden invoice "
         "北京 烤鸭 会议 服务器 部署 文档 花园 发票").split()
CATS = ["notes", "projects/evoclaw", "people/alice", "food/北京", "ops/deploy/prod", "misc", "dev/python"]


def pct(values: list[float], p: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def sentence(rng: random.Random, n: int) -> str:
    return " ".join(rng.choices(WORDS, k=n))


def fill_to_caps(mem: AgentMemory, rng: random.Random) -> None:
    """Warm right at 50 KB and hot at ~5 KB, written in one go."""
    state = mem.read_state()
    now = mem.clock()
    i = 0
    while W.warm_size(state["warm"]) < 52 * 1024:
        i += 1
        W.add_or_reinforce(state["warm"], W.new_entry(f"fact {i} " + sentence(rng, 40), rng.choice(CATS),
                                                      round(rng.uniform(0.3, 1.0), 3), now - i * 600), now)
    for j in range(20):
        H.add_lesson(state["hot"], f"lesson {j} " + sentence(rng, 25), "lessons", rng.uniform(0.5, 1), now)
    for j in range(10):
        H.add_event(state["hot"], f"event {j} " + sentence(rng, 20), now + j)
    mem.write_state(state, "bench fill")


def bench_env(**values: str) -> dict[str, str]:
    """The bench's own home, with the retrieval mode of this shell (MEMORYD_RETRIEVAL_MODE=keyword|hybrid):
    hybrid embeds every row as it is archived, ~40 ms each on this machine."""
    mode = os.environ.get("MEMORYD_RETRIEVAL_MODE")
    return {**values, **({"MEMORYD_RETRIEVAL_MODE": mode} if mode else {})}


def bench_store_retrieve(home: Path, stores: int, retrieves: int) -> None:
    config = load_config(bench_env(MEMORYD_HOME=str(home)))
    mem = AgentMemory(config, "bench", archive=LazyIndex(config))
    rng = random.Random(1)
    fill_to_caps(mem, rng)
    state = mem.read_state()
    print(f"state: hot {len(dumps(state['hot']))} B, warm {len(dumps(state['warm']))} B "
          f"({len(state['warm']['entries'])} entries), tree {len(state['tree']['nodes'])} nodes")
    t = time.perf_counter()
    for i in range(stores):
        mem.store(f"new fact {i} " + sentence(rng, 30), rng.choice(CATS), round(rng.uniform(0.3, 1.0), 3))
    dt = time.perf_counter() - t
    print(f"store (warm at cap, rule distil, fsync'd): {stores / dt:.1f} stores/s  ({dt / stores * 1000:.1f} ms each)")
    lat = []
    for _ in range(retrieves):
        q = " ".join(rng.choices(WORDS, k=rng.randint(1, 3)))
        t = time.perf_counter()
        mem.retrieve(q, limit=10)
        lat.append((time.perf_counter() - t) * 1000)
    print(f"retrieve (hot+warm at cap, no archive, incl. reinforcement write): "
          f"p50 {statistics.median(lat):.1f} ms  p95 {pct(lat, 95):.1f} ms  (n={retrieves})")


def bench_cold(home: Path, rows: int, queries: int) -> None:
    from memoryd.tiers.cold.source import open_index as open_archive

    config = load_config(bench_env(MEMORYD_HOME=str(home), MEMORYD_DB_URL=f"file:{home / f'cold-{rows}.db'}"))
    archive = open_archive(config)
    rng = random.Random(rows)
    now = time.time()
    try:
        t = time.perf_counter()
        batch = []
        for i in range(rows):
            batch.append({"id": f"{i:016x}", "text": f"cold fact {i} " + sentence(rng, 12), "category": rng.choice(CATS),
                          "importance": round(rng.uniform(0.05, 1.0), 3), "created_at": now - rng.uniform(30, 900) * 86400,
                          "access_count": rng.randint(0, 5), "metadata": {}})
            if len(batch) == 5000:
                archive.put("bench", batch)
                batch = []
        if batch:
            archive.put("bench", batch)
        load_s = time.perf_counter() - t
        print(f"cold {rows} rows on file: loaded in {load_s:.1f} s ({rows / load_s:.0f} rows/s); count={archive.count('bench')}")
        for label, pool in (("english", WORDS[:15]), ("chinese", WORDS[15:])):
            lat = []
            for _ in range(queries):
                q = " ".join(rng.choices(pool, k=rng.randint(1, 2)))
                t = time.perf_counter()
                archive.search("bench", q, limit=10)
                lat.append((time.perf_counter() - t) * 1000)
            print(f"  archive.search {label:7s}: p50 {statistics.median(lat):.1f} ms  p95 {pct(lat, 95):.1f} ms")
        mem = AgentMemory(config, "bench", archive=archive)
        lat = []
        for _ in range(queries):
            q = " ".join(rng.choices(WORDS, k=rng.randint(1, 2)))
            t = time.perf_counter()
            mem.retrieve(q, limit=10)
            lat.append((time.perf_counter() - t) * 1000)
        print(f"  AgentMemory.retrieve (hot+warm+cold): p50 {statistics.median(lat):.1f} ms  p95 {pct(lat, 95):.1f} ms")
    finally:
        archive.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--stores", type=int, default=200)
    ap.add_argument("--retrieves", type=int, default=200)
    ap.add_argument("--cold", default="10000,100000", help="comma-separated cold row counts ('' to skip)")
    ap.add_argument("--queries", type=int, default=50)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="memoryd-bench-") as tmp:
        home = Path(tmp) / "home"
        bench_store_retrieve(home, args.stores, args.retrieves)
        for rows in [int(x) for x in args.cold.split(",") if x.strip()]:
            bench_cold(home, rows, args.queries)


if __name__ == "__main__":
    main()
