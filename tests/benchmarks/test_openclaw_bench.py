"""bench/bench_openclaw.py runs (on a small store): an incremental sync reads only the new events."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench" / "bench_openclaw.py"


def test_bench_runs_and_an_incremental_sync_takes_only_the_new_events(home: Path) -> None:
    env = dict(os.environ, BENCH_OPENCLAW_SESSIONS="2", MEMORYD_RETRIEVAL_MODE="keyword")
    done = subprocess.run([sys.executable, str(BENCH)], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "400 events in 2 sessions" in out and "retrieval mode keyword" in out
    assert re.search(r"\+10 events: +[\d.]+ ms +\(10 turns", out), out
    assert re.search(r"nothing new: +[\d.]+ ms", out) and "distillation per turn" in out
