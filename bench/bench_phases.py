"""Phased consolidation on a large local index: time and peak memory of a daily run (sealing) and a monthly run
(+ restructure) beside a quick run of the same agent, per 1,000 cold memories.

Usage: python bench/bench_phases.py [--memories 20000] [--session 20]
Each run is a fresh process (`memoryd consolidate`), so its peak RSS (ru_maxrss of the child) is its own.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from memoryd.tiers.base.config import load_config
from memoryd.tiers.cold.source import open_index
from memoryd.tiers.memory.model import DAY

MEMORYD = shutil.which("memoryd", path=str(Path(sys.executable).parent)) or "memoryd"
WORDS = ("deploy server invoice customer kettle tea garden python budget alice bob release migration "
         "database backup review meeting travel train ticket").split()


def build(home: Path, memories: int, session: int) -> None:
    # keyword mode: in hybrid mode a put embeds what lacks a vector (~50 ms a text) — here every member,
    # since these rows skipped the backfill; on a device the members have theirs and only a summary is new
    (home / "config.toml").write_text('[retrieval]\nmode = "keyword"\n')
    config = load_config({"MEMORYD_HOME": str(home)})
    index = open_index(config)
    now = time.time()
    try:
        rows = []
        for i in range(memories):
            words = " ".join(WORDS[(i * k) % len(WORDS)] for k in (1, 3, 7, 11))
            rows.append({"id": f"m{i:07d}", "category": f"topic{i % 8}", "created_at": now - 90 * DAY + i,
                         "importance": 0.3, "metadata": {"session_id": f"s{i // session}"},
                         "text": f"Turn {i} on 2024-05-{i % 28 + 1:02d}: {words}, item {i % 97}."})
            if len(rows) == 5000:
                index.put("bench", rows)
                rows = []
        index.put("bench", rows)
    finally:
        index.close()
    for topic in range(8):  # the topics are tree nodes: the monthly run may split them
        subprocess.run([MEMORYD, "tree", "add", f"topic{topic}", "--agent-id", "bench"], check=True,
                       env=dict(os.environ, MEMORYD_HOME=str(home)), capture_output=True)


def run(home: Path, mode: str) -> tuple[float, float, dict]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    t0 = time.perf_counter()
    out = subprocess.run([MEMORYD, "consolidate", "--mode", mode, "--agent-id",
                          "bench", "--json"], check=True, capture_output=True, text=True,
                         env=dict(os.environ, MEMORYD_HOME=str(home)))
    wall = time.perf_counter() - t0
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return wall, max(peak, before) / 1024, json.loads(out.stdout)["counts"]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--memories", type=int, default=20000)
    ap.add_argument("--session", type=int, default=20)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        build(home, args.memories, args.session)
        per = args.memories / 1000
        for mode in ("quick", "daily", "monthly", "daily"):
            wall, peak, counts = run(home, mode)
            shown = {k: counts.get(k) for k in ("summaries", "sealed", "restructured", "to_cold") if k in counts}
            print(f"consolidate_{mode}_s {wall:.2f}  ({wall / per:.3f} s per 1,000 cold memories; "
                  f"peak rss so far {peak:.0f} MB) {shown}")


if __name__ == "__main__":
    main()
