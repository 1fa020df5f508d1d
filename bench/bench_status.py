"""Benchmark `memoryd status` in a fresh process (goal ≤ 150 ms): median of N runs.

Run: .venv/bin/python bench/bench_status.py [--runs 10]
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
        for label, extra in (("status", []), ("status --json", ["--json"]), ("--help", None)):
            cmd = [exe, "--help"] if extra is None else [exe, "status", *extra]
            times = []
            for _ in range(args.runs):
                t = time.perf_counter()
                subprocess.run(cmd, env=env, check=True, capture_output=True)
                times.append((time.perf_counter() - t) * 1000)
            print(f"memoryd {label:14s} median {statistics.median(times):6.1f} ms  min {min(times):6.1f} ms  "
                  f"max {max(times):6.1f} ms  (n={args.runs}; goal for status ≤ 150 ms)")
        t = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], env=env, check=True)
        print(f"(bare python start-up on this machine: {(time.perf_counter() - t) * 1000:.1f} ms)")


if __name__ == "__main__":
    main()
