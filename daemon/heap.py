"""The daemon's heap: allocator settings at start, and freed pages handed back to the OS after it drops
something big (glibc's mallopt and malloc_trim; elsewhere — macOS, musl — both do nothing).

Measured (bench/bench_daemon.py, hybrid, a year of daily notes): RSS after the year 151 → 129 MiB with
`tune()`, after the model left 93 → 74. Freeing the embedding model returns its memory to the allocator, not to
the OS: a process that had embedded 2,000 memories went 96 → 44 MiB on release and to 31 with the trim.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import gc
import functools
import os
import sys
from typing import Any

# mallopt parameters (glibc's malloc.h)
M_TRIM_THRESHOLD = -1
M_MMAP_THRESHOLD = -3
M_ARENA_MAX = -8
# Fixed thresholds: glibc otherwise raises both after each large free (up to 32/64 MiB), and the
# top of a thread's arena, which malloc_trim does not touch, then keeps the embedding's scratch.
THRESHOLD = 128 * 1024
ARENAS = 2  # one per core here; each thread that ever allocated otherwise keeps an arena of its own


@functools.lru_cache(maxsize=1)
def _libc() -> Any:
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        libc.malloc_trim, libc.mallopt  # both or neither: glibc
        return libc
    except (OSError, AttributeError):
        return None


def tune(env: dict[str, str] | None = None) -> list[str]:
    """Set once at daemon start, before any thread or numpy: what was set (a user's own MALLOC_* or
    OPENBLAS_NUM_THREADS environment wins). numpy's BLAS pool is one thread: the daemon never calls
    BLAS on anything big (similarities use einsum), and each pool thread keeps a buffer."""
    env = os.environ if env is None else env
    done = []
    if "numpy" not in sys.modules and "OPENBLAS_NUM_THREADS" not in env:
        os.environ["OPENBLAS_NUM_THREADS"] = "1"  # read when numpy loads OpenBLAS
        done.append("OPENBLAS_NUM_THREADS")
    libc = _libc()
    if libc is None:
        return done
    for name, param, value in (("MALLOC_TRIM_THRESHOLD_", M_TRIM_THRESHOLD, THRESHOLD),
                               ("MALLOC_MMAP_THRESHOLD_", M_MMAP_THRESHOLD, THRESHOLD),
                               ("MALLOC_ARENA_MAX", M_ARENA_MAX, ARENAS)):
        if name not in env and libc.mallopt(param, value) == 1:
            done.append(name)
    return done


def trim_heap() -> bool:
    """Collect garbage and give free heap back; whether the platform could."""
    gc.collect()
    libc = _libc()
    if libc is None:
        return False
    libc.malloc_trim(0)
    return True
