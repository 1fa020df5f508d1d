"""Key benchmarks: `key rotate --reseal` (time, bytes) beside the first upload of the same archive, enrolment
round trips, and an unchanged sync with and without the key check.

Run: .venv/bin/python bench/bench_keys.py [--url http://127.0.0.1:8080] [--rows 10000,100000] [--rounds 30]
Without --url it starts a private sqld (the test fixture's binary) on loopback.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "bench"))
from sqld_url import database_url  # noqa: E402

from memoryd.sync import devices  # noqa: E402
from memoryd.sync.critical import pull_now, push_now  # noqa: E402
from memoryd.sync.crypto.keys import ensure_key, import_key  # noqa: E402
from memoryd.sync.remote import db as dbmod  # noqa: E402
from memoryd.sync.reseal import reseal  # noqa: E402
from memoryd.sync.session import Session  # noqa: E402
from memoryd.tiers.base.config import load_config  # noqa: E402
from memoryd.tiers.cold.source import open_index  # noqa: E402
from memoryd.tiers.memory.agent import AgentMemory  # noqa: E402

AGENT = "bench"  # each benchmark below uses its own agent (its own keys) on the one server


def device(root: Path, name: str, url: str, key: bytes | None = None, agent: str = AGENT) -> Any:
    config = load_config({"MEMORYD_HOME": str(root / name), "MEMORYD_DB_URL": url, "MEMORYD_RETRIEVAL_MODE": "keyword"})
    if key is not None:
        import_key(config, agent, key)
    AgentMemory(config, agent).init()
    return config


def fill(config: Any, n: int, agent: str = AGENT) -> None:
    index = open_index(config)
    try:
        for start in range(0, n, 5000):
            index.put(agent, [{"id": f"m{i:07d}", "text": f"archived fact {i}: the harbour crane {i % 97} was "
                               f"serviced by team {i % 13} after the storm", "category": "ops/harbour",
                               "importance": 0.5, "created_at": 1_700_000_000 + i, "metadata": {}}
                              for i in range(start, min(n, start + 5000))])
    finally:
        index.close()


class Counter:
    """Round trips to the database (execute and batch calls), counted around a block."""

    def __init__(self) -> None:
        self.n = 0
        self._orig = (dbmod.Database.execute, dbmod.Database.batch)

    def __enter__(self) -> "Counter":
        ex, ba = self._orig

        def execute(db: Any, *a: Any, **k: Any) -> Any:
            self.n += 1
            return ex(db, *a, **k)

        def batch(db: Any, *a: Any, **k: Any) -> Any:
            self.n += 1
            return ba(db, *a, **k)

        dbmod.Database.execute, dbmod.Database.batch = execute, batch  # type: ignore[method-assign]
        return self

    def __exit__(self, *exc: Any) -> None:
        dbmod.Database.execute, dbmod.Database.batch = self._orig  # type: ignore[method-assign]


def bench_reseal(root: Path, url: str, n: int) -> None:
    config = device(root, f"r{n}", url, agent=f"reseal{n}")
    ensure_key(config, f"reseal{n}")
    fill(config, n, f"reseal{n}")
    t0 = time.perf_counter()
    first = push_now(config, f"reseal{n}")
    upload = time.perf_counter() - t0
    t0 = time.perf_counter()
    report = reseal(config, f"reseal{n}")
    took = time.perf_counter() - t0
    print(f"reseal {n:>7} memories: {took:7.2f} s, {report['bytes_sent'] / 1e6:7.1f} MB sent "
          f"({report['uploaded']} rows, {report['versions']} versions); first upload of the same archive "
          f"{upload:6.2f} s (ratio {took / upload:4.2f}); push status {first['status']}")


def bench_enrol(root: Path, url: str) -> None:
    a = device(root, "ea", url, agent="enrol")
    ensure_key(a, "enrol")
    push_now(a, "enrol", force=True)
    rows = []
    for i in range(5):
        b = load_config({"MEMORYD_HOME": str(root / f"eb{i}"), "MEMORYD_DB_URL": url})
        with Counter() as made:
            t0 = time.perf_counter()
            code = devices.create_code(a, "enrol")["code"]
            t_code = time.perf_counter() - t0
        with Counter() as joined:
            t0 = time.perf_counter()
            devices.join_with_code(b, "enrol", code)
            t_join = time.perf_counter() - t0
        rows.append((made.n, t_code, joined.n, t_join))
    print(f"enrolment by code: create {rows[-1][0]} round trips, {statistics.median(r[1] for r in rows) * 1e3:.0f} ms; "
          f"join {rows[-1][2]} round trips, {statistics.median(r[3] for r in rows) * 1e3:.0f} ms "
          f"(scrypt n=2^15 on both sides; median of {len(rows)})")


def bench_unchanged(root: Path, url: str, rounds: int) -> None:
    a = device(root, "ua", url, agent="unchanged")
    ensure_key(a, "unchanged")
    fill(a, 200, "unchanged")
    push_now(a, "unchanged")
    pull_now(a, "unchanged")

    def timed() -> tuple[float, int]:
        times, trips = [], 0
        for _ in range(rounds):
            with Counter() as c:
                t0 = time.perf_counter()
                assert pull_now(a, "unchanged")["status"] == "current"
                times.append(time.perf_counter() - t0)
            trips = c.n
        return statistics.median(times), trips

    with_check, trips_with = timed()
    orig = Session._check_due
    Session._check_due = lambda self: False  # type: ignore[method-assign]
    try:
        without, trips_without = timed()
    finally:
        Session._check_due = orig  # type: ignore[method-assign]
    print(f"unchanged sync: {with_check * 1e3:.2f} ms, {trips_with} round trips with the key check; "
          f"{without * 1e3:.2f} ms, {trips_without} round trips without (median of {rounds})")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--url", help="libSQL URL (default: a private sqld on loopback)")
    ap.add_argument("--rows", default="10000,100000", help="archive sizes for the reseal benchmark")
    ap.add_argument("--rounds", type=int, default=30)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        with database_url(root, args.url) as url:
            bench_unchanged(root, url, args.rounds)
            bench_enrol(root, url)
            for n in [int(x) for x in args.rows.split(",") if x]:
                bench_reseal(root, url, n)


if __name__ == "__main__":
    main()
