"""Benchmark `memoryd status` in a fresh process (goal ≤ 150 ms): median of N runs.

Run: .venv/bin/python bench/bench_status.py [--runs 10]
"""
from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def measure(cmd: list[str], env: dict[str, str], runs: int) -> tuple[list[float], list[float]]:
    """Wall and CPU (user+sys of the child) milliseconds per run; CPU is less sensitive to machine load."""
    wall, cpu = [], []
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t = time.perf_counter()
        subprocess.run(cmd, env=env, check=True, capture_output=True)
        wall.append((time.perf_counter() - t) * 1000)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu.append((after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000)
    return wall, cpu


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=10)
    args = ap.parse_args()
    exe = shutil.which("memoryd", path=str(Path(sys.executable).parent)) or "memoryd"
    with tempfile.TemporaryDirectory(prefix="memoryd-bench-") as tmp:
        env = {k: v for k, v in os.environ.items() if not k.startswith("MEMORYD_")}
        env["MEMORYD_HOME"] = str(Path(tmp) / "home")
        for i in range(20):  # a realistic agent: some warm facts, one consolidation run
            subprocess.run([exe, "store", f"fact number {i} about the garden and invoices", "--category",
                            "notes"], env=env, check=True, capture_output=True)
        subprocess.run([exe, "consolidate"], env=env, check=True, capture_output=True)
        cases = (("status", [exe, "status"]), ("status --json", [exe, "status", "--json"]),
                 ("--help", [exe, "--help"]), ("(python -c pass)", [sys.executable, "-c", "pass"]))
        for label, cmd in cases:
            wall, cpu = measure(cmd, env, args.runs)
            print(f"{label:17s} wall median {statistics.median(wall):6.1f} ms (min {min(wall):6.1f})   "
                  f"cpu median {statistics.median(cpu):6.1f} ms   (n={args.runs})")
        print("goal: memoryd status ≤ 150 ms wall in a fresh process")

if __name__ == "__main__":
    main()
