"""daemon/heap.py on the real allocator, each case in a fresh interpreter (settings are per process)."""
from __future__ import annotations

import json
import os
import platform
import subprocess
import sys

import pytest

glibc = pytest.mark.skipif(not (platform.system() == "Linux" and platform.libc_ver()[0] == "glibc"),
                           reason="mallopt and malloc_trim are glibc's")

# A thread that once freed a big block (glibc then raises its thresholds to that size) allocates and
# frees 8 MiB in 2 MiB pieces: how much of that the process still holds (MiB).
KEPT = r"""
import json, sys, threading
from pathlib import Path
from memoryd.daemon import heap

def rss():
    line = [l for l in Path("/proc/self/status").read_text().splitlines() if l.startswith("VmRSS:")][0]
    return int(line.split()[1]) / 1024

tuned = heap.tune() if sys.argv[1] == "tune" else []
out = {}
def work():
    big = b"x" * (8 << 20); del big
    before = rss()
    blocks = [b"x" * (2 << 20) for _ in range(4)]
    del blocks
    out["kept"] = rss() - before
t = threading.Thread(target=work); t.start(); t.join()
print(json.dumps({"tuned": tuned, **out}))
"""


def _run(script: str, *args: str, env: dict[str, str] | None = None) -> dict:
    base = {k: v for k, v in os.environ.items() if not k.startswith(("MALLOC_", "OPENBLAS_"))}
    done = subprocess.run([sys.executable, "-c", script, *args], env={**base, **(env or {})},
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@glibc
def test_tune_lets_freed_blocks_go_back_to_the_os() -> None:
    untuned, tuned = _run(KEPT, "plain"), _run(KEPT, "tune")
    assert untuned["kept"] > 6  # glibc's defaults: the thread's arena keeps the 8 MiB
    assert tuned["kept"] < 1, tuned
    assert {"MALLOC_TRIM_THRESHOLD_", "MALLOC_MMAP_THRESHOLD_", "MALLOC_ARENA_MAX"} <= set(tuned["tuned"])


@glibc
def test_the_users_malloc_settings_win() -> None:
    got = _run(KEPT, "tune", env={"MALLOC_TRIM_THRESHOLD_": "67108864", "MALLOC_ARENA_MAX": "8"})
    assert "MALLOC_TRIM_THRESHOLD_" not in got["tuned"] and "MALLOC_ARENA_MAX" not in got["tuned"]
    assert "MALLOC_MMAP_THRESHOLD_" in got["tuned"]


THREADS = r"""
import json, os, sys
from memoryd.daemon import heap
tuned = heap.tune() if sys.argv[1] == "tune" else []
import numpy
print(json.dumps({"tuned": tuned, "threads": len(os.listdir("/proc/self/task"))}))
"""


@pytest.mark.skipif(not os.path.isdir("/proc/self/task") or (os.cpu_count() or 1) < 2, reason="needs /proc, 2 cores")
def test_tune_keeps_numpys_blas_to_one_thread() -> None:
    pytest.importorskip("numpy")
    plain, tuned = _run(THREADS, "plain"), _run(THREADS, "tune")
    assert plain["threads"] > 1  # OpenBLAS starts a pool thread per further core
    assert tuned["threads"] == 1 and "OPENBLAS_NUM_THREADS" in tuned["tuned"]
    assert "OPENBLAS_NUM_THREADS" not in _run(THREADS, "tune", env={"OPENBLAS_NUM_THREADS": "2"})["tuned"]
