"""Sync benchmarks: push latency/bytes after a conversation, restore time with 10k/100k cold rows, convergence.

Bytes are sealed bytes sent (ciphertext in the statements, as Session.bytes_sent counts them); beside each push's
critical bytes stands the sealed size of its change alone (the changed items' values, no stamps).

Run: .venv/bin/python bench/bench_sync.py [--url http://127.0.0.1:8080] [--cold 10000,100000] [--rounds 20]
Without --url it starts a private sqld (the test fixture's binary) on loopback.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "bench"))
from sqld_url import database_url  # noqa: E402

from memoryd.sync.critical import pull_now, push_now  # noqa: E402
from memoryd.sync.crypto.keys import ensure_key, import_key  # noqa: E402
from memoryd.sync.restore import restore  # noqa: E402
from memoryd.tiers.memory import hot, tree, warm  # noqa: E402
from memoryd.tiers.memory.agent import AgentMemory  # noqa: E402
from memoryd.tiers.cold.source import LazyIndex  # noqa: E402
from memoryd.tiers.base.atomic import dumps  # noqa: E402
from memoryd.tiers.base.config import load_config  # noqa: E402

AGENT = "bench"


def device(root: Path, name: str, url: str):
    return load_config({"MEMORYD_HOME": str(root / name), "MEMORYD_DB_URL": url})


def fill(mem: AgentMemory) -> None:
    """Hot, warm and tree close to their limits."""
    def full(state: dict, now: float) -> None:
        for i in range(8):
            hot.set_identity(state["hot"], f"key{i}", f"identity value number {i}")
            hot.upsert_project(state["hot"], f"project{i}", f"description of project {i}", "active", now)
        for i in range(12):
            hot.add_lesson(state["hot"], f"lesson {i}: always check the backups of system {i}", "ops", 0.8, now)
            hot.add_event(state["hot"], f"event {i} happened", now)
        for i in range(9):
            for j in range(3):
                tree.add_node(state["tree"], f"area{i}/topic{j}", f"topic {j} of area {i}", now)
        for i in range(220):
            text = f"fact {i}: the service s{i} runs on host h{i % 17} port {9000 + i}, owner team t{i % 7}"
            warm.add_or_reinforce(state["warm"], warm.new_entry(text, f"area{i % 9}/topic{i % 3}", 0.5, now,
                                                                {"topics": ["infra"], "i": i}), now)
    mem.change(full, "bench")


def conversation(mem: AgentMemory, n: int) -> None:
    for k in range(3):
        mem.store(f"conversation {n} note {k}: user prefers option {k} for deploys", "area1/topic1")
    mem.change(lambda s, now: hot.add_event(s["hot"], f"conversation {n} ended", now), "bench")


def pct(values: list[float], p: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def bench_push(root: Path, url: str, rounds: int) -> tuple[object, bytes]:
    from memoryd.sync.remote.db import connect

    a = device(root, "a", url)
    key = ensure_key(a, AGENT)
    mem = AgentMemory(a, AGENT, archive=LazyIndex(a))
    mem.init()
    fill(mem)
    t0 = time.perf_counter()
    first = push_now(a, AGENT)
    print(f"initial push (full hot/warm/tree): {1000 * (time.perf_counter() - t0):.1f} ms, "
          f"{first['bytes_sent']} bytes ciphertext (state {sum(len(dumps(v)) for v in mem.read_state().values())} bytes JSON)")
    for label, db in (("fresh connection per push", None), ("reused connection (daemon)", connect(a))):
        times, sizes, trips, changes, ratios = [], [], [], [], []
        for n in range(rounds):
            conversation(mem, n if db is None else n + 1000)
            t0 = time.perf_counter()
            r = push_now(a, AGENT, db=db)
            times.append(1000 * (time.perf_counter() - t0))
            sizes.append(r["bytes_sent"])
            trips.append(r["round_trips"])
            changes.append(r.get("change_bytes", 0))
            ratios.append((r["critical_bytes"], r.get("change_bytes", 0), "snapshot" in r))
        t0 = time.perf_counter()
        unchanged = push_now(a, AGENT, db=db)
        t_unchanged = 1000 * (time.perf_counter() - t0)
        print(f"push after a conversation [{label}]: median {statistics.median(times):.1f} ms, "
              f"p95 {pct(times, 95):.1f} ms, bytes sent median {int(statistics.median(sizes))}, "
              f"round trips {max(trips)} (+1 ping on connect when fresh); unchanged push {t_unchanged:.2f} ms, "
              f"{unchanged['round_trips']} round trips")
        print(f"  sealed size of the change (its items alone) median {int(statistics.median(changes))} bytes; "
              "each push, critical bytes sent / sealed change: " + ", ".join(
                  f"{c}/{ch}{' +snapshot' if snap else ''}" for c, ch, snap in ratios))
        if db is not None:
            db.close()
    return a, key


def bench_restore(root: Path, url: str, a, key: bytes, cold_counts: list[int]) -> None:
    """Device a archives N memories (local index), uploads them sealed; a new device restores all of it."""
    from memoryd.sync.critical import push_now
    from memoryd.tiers.cold.source import open_index

    have = 0
    for target in cold_counts:
        t0 = time.perf_counter()
        with open_index(a) as archive:
            while have < target:
                n = min(5000, target - have)
                archive.put(AGENT, [{"id": f"{i:016x}", "text": f"cold memory {i} about host h{i % 97} and team t{i % 13}",
                                     "category": f"area{i % 9}", "importance": 0.2, "created_at": 1_700_000_000 + i,
                                     "access_count": i % 5, "metadata": {}} for i in range(have, have + n)])
                have += n
        fill_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        pushed = push_now(a, AGENT)
        upload_s = time.perf_counter() - t0
        b = device(root, f"restore{target}", url)
        t0 = time.perf_counter()
        report = restore(b, AGENT, key=key)
        wall = time.perf_counter() - t0
        with open_index(b) as index:
            from memoryd.tiers.retrieval import analyzer

            t1 = time.perf_counter()
            found = index.search(AGENT, analyzer.query_terms(f"cold memory {target - 1}"), 5)
            first_search = (time.perf_counter() - t1) * 1000
        print(f"restore with {report['cold_count']} cold memories (the whole sealed log, verified, indexed): "
              f"{wall:.2f} s; searchable at once ({first_search:.1f} ms, hit: {bool(found)}); "
              f"upload of the new rows took {upload_s:.2f} s ({pushed.get('cold', {}).get('uploaded')} rows); "
              f"local archiving took {fill_s:.1f} s")


def bench_converge(root: Path, url: str, key: bytes, rounds: int) -> None:
    x, y = device(root, "x", url), device(root, "y", url)
    for c in (x, y):
        import_key(c, AGENT, key)
        restore(c, AGENT, key=key, force=True)
    times = []
    for n in range(rounds):
        AgentMemory(x, AGENT, archive=LazyIndex(x)).store(f"x concurrent fact {n}", "area2/topic0")
        AgentMemory(y, AGENT, archive=LazyIndex(y)).store(f"y concurrent fact {n}", "area3/topic0")
        t0 = time.perf_counter()
        push_now(x, AGENT)
        push_now(y, AGENT)  # conflict: pull, merge, push
        pull_now(x, AGENT)
        times.append(1000 * (time.perf_counter() - t0))
        assert AgentMemory(x, AGENT, archive=LazyIndex(x)).read_state() == AgentMemory(y, AGENT, archive=LazyIndex(y)).read_state()
    print(f"two devices converge after concurrent changes: median {statistics.median(times):.1f} ms, "
          f"p95 {pct(times, 95):.1f} ms (push, conflicting push + merge, pull)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--url", help="libSQL URL (default: a private sqld on loopback)")
    ap.add_argument("--cold", default="10000,100000", help="cold archive sizes for the restore benchmark")
    ap.add_argument("--rounds", type=int, default=20)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        with database_url(root, args.url) as url:
            a, key = bench_push(root, url, args.rounds)
            bench_converge(root, url, key, args.rounds)
            bench_restore(root, url, a, key, [int(n) for n in args.cold.split(",") if n])


if __name__ == "__main__":
    main()
