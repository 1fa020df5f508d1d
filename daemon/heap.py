"""Hand freed heap pages back to the OS (glibc's malloc_trim) after the daemon drops something big.

Freeing the embedding model returns its memory to Python's allocator, not to the OS: measured, a
process that had embedded 2,000 memories went 96 → 44 MiB on release and to 31 MiB with the trim.
Elsewhere (macOS, musl) there is no such call and this does nothing.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import gc
import functools
from typing import Any


@functools.lru_cache(maxsize=1)
def _malloc_trim() -> Any:
    try:
        return ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6").malloc_trim
    except (OSError, AttributeError):
        return None


def trim_heap() -> bool:
    """Collect garbage and give free heap back; whether the platform could."""
    gc.collect()
    trim = _malloc_trim()
    if trim is None:
        return False
    trim(0)
    return True
