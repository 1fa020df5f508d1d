"""Benchmark: `memoryd retrieve` with a server URL against the same command on `file:` (goal: within 1.2x).

Reading never needs the server: the command must not load the network client nor open a connection.
Run: python bench/bench_remote_url.py [--runs 15] [--facts 2000]
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def wall(cmd: list[str], env: dict[str, str], runs: int) -> float:
    samples = []
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run(cmd, env=env, check=True, capture_output=True)
        samples.append(time.perf_counter() - t0)
    return statistics.median(samples) * 1000


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--facts", type=int, default=2000)
    args = ap.parse_args()
    exe = shutil.which("memoryd", path=str(Path(sys.executable).parent)) or "memoryd"
    with tempfile.TemporaryDirectory() as tmp:
        env = {k: v for k, v in os.environ.items() if not k.startswith("MEMORYD_") or k == "MEMORYD_RETRIEVAL_MODE"}
        env["MEMORYD_HOME"] = str(Path(tmp) / "home")
        from memoryd.daemon.engine import Engine
        from memoryd.tiers.base.config import load_config

        os.environ.update(env)
        past = time.time() - 60 * 86400
        with Engine(load_config()).memory("default", clock=lambda: past) as mem:
            mem.store_many([(f"fact {i} about service s{i % 50} on port {8000 + i}", "infra", 0.3, None)
                            for i in range(args.facts)])
        cmd = [exe, "retrieve", "service s7 port 8007", "--json"]
        local = wall(cmd, env, args.runs)
        remote_env = dict(env, MEMORYD_DB_URL="http://127.0.0.1:9", MEMORYD_DB_TOKEN="unused")  # nothing listens
        remote = wall(cmd, remote_env, args.runs)
        status = wall([exe, "status", "--json"], env, args.runs)
        print(f"retrieve on file: {local:.0f} ms | with a server URL (server down) {remote:.0f} ms "
              f"= {remote / local:.2f}x (goal <= 1.2x) | status {status:.0f} ms; retrieve/status {local / status:.2f}x")


if __name__ == "__main__":
    main()
