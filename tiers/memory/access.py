"""Retrieval reinforcement without rewriting warm: accesses are appended to a small log and folded
into warm-memory.json by the next write (store, consolidation, sync), not fsync'd per retrieve.

Each line records absolute counts ({id: [access_count, last_access]}), so folding is a max and
folding twice changes nothing (a state read with the log applied and written back stays right).
Losing the log's tail in a power cut loses a few access counts, never a memory.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import json
import os
import threading
from dataclasses import dataclass
from pathlib import Path

if TYPE_CHECKING:
    from memoryd.tiers.memory.types import WarmState

MAX_LOG_BYTES = 1 << 20  # past this, the next write folds it anyway; reads stay cheap
HEAD = 64  # bytes compared to tell a grown log from a new one that reused the inode


@dataclass(frozen=True)
class _Parsed:
    """What this process has parsed of one log: which file, how far, its first bytes, the counts."""

    dev: int
    ino: int
    offset: int
    head: bytes
    counts: dict[str, tuple[int, int]]

    def same_file(self, fd: int, st: os.stat_result) -> bool:
        return ((self.dev, self.ino) == (st.st_dev, st.st_ino) and st.st_size >= self.offset
                and os.pread(fd, len(self.head), 0) == self.head)


_seen: dict[Path, _Parsed] = {}
_lock = threading.Lock()


def _merge(out: dict[str, tuple[int, int]], data: bytes) -> None:
    for line in data.splitlines():
        try:
            row = json.loads(line)
        except ValueError:
            continue  # a torn line (a writer killed mid-append)
        if not isinstance(row, dict):
            continue
        for mid, value in row.items():
            if isinstance(value, list) and len(value) == 2 and all(isinstance(v, int) for v in value):
                old = out.get(mid, (0, 0))
                out[mid] = (max(old[0], value[0]), max(old[1], value[1]))


class AccessLog:
    def __init__(self, path: Path) -> None:
        self.path = path

    def pending(self) -> dict[str, tuple[int, int]]:
        """{id: (access_count, last_access)}: the highest recorded per id.

        Every retrieve asks, and between writes the log only grows: a long-lived process (the daemon)
        parses only the lines appended since it last looked (parsing the whole log each time cost a
        read-heavy agent ~7 ms per retrieve)."""
        try:
            fd = os.open(self.path, os.O_RDONLY)
        except FileNotFoundError:
            with _lock:
                _seen.pop(self.path, None)
            return {}
        try:
            st = os.fstat(fd)
            with _lock:
                known = _seen.get(self.path)
            start, out = 0, {}
            if known is not None and known.same_file(fd, st):
                start, out = known.offset, dict(known.counts)
            data = os.pread(fd, max(0, st.st_size - start), start) if st.st_size > start else b""
            end = data.rfind(b"\n") + 1  # a line still being written waits for the next call
            _merge(out, data[:end])
            head = os.pread(fd, HEAD, 0) if start + end else b""
        finally:
            os.close(fd)
        with _lock:
            _seen[self.path] = _Parsed(st.st_dev, st.st_ino, start + end, head[:start + end], out)
        return dict(out)

    def record(self, counts: dict[str, tuple[int, int]]) -> None:
        """Append one line (caller holds the agent lock); no fsync: counts are not worth one."""
        if not counts:
            return
        line = json.dumps({k: list(v) for k, v in counts.items()}, separators=(",", ":")) + "\n"
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.write(fd, line.encode("utf-8"))
        finally:
            os.close(fd)

    def fold(self, warm: WarmState, pending: dict[str, tuple[int, int]] | None = None) -> list[str]:
        """Apply recorded counts to warm entries (max, so idempotent); returns the changed categories."""
        pending = self.pending() if pending is None else pending
        changed = []
        for e in warm["entries"]:
            rec = pending.get(e["id"])
            if rec and (rec[0] > e["access_count"] or rec[1] > int(e.get("last_access") or 0)):
                e["access_count"] = max(e["access_count"], rec[0])
                e["last_access"] = max(int(e.get("last_access") or 0), rec[1])
                changed.append(e["category"])
        return changed

    def clear(self) -> None:
        self.path.unlink(missing_ok=True)
