"""Retrieval reinforcement without rewriting warm: accesses are appended to a small log and folded
into warm-memory.json by the next write (store, consolidation, sync), not fsync'd per retrieve.

Each line records absolute counts ({id: [access_count, last_access]}), so folding is a max and
folding twice changes nothing (a state read with the log applied and written back stays right).
Losing the log's tail in a power cut loses a few access counts, never a memory.
"""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

MAX_LOG_BYTES = 1 << 20  # past this, the next write folds it anyway; reads stay cheap


class AccessLog:
    def __init__(self, path: Path) -> None:
        self.path = path

    def pending(self) -> dict[str, tuple[int, int]]:
        """{id: (access_count, last_access)}: the highest recorded per id."""
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            return {}
        out: dict[str, tuple[int, int]] = {}
        for line in data.splitlines():
            try:
                row = json.loads(line)
            except ValueError:
                continue  # a torn last line
            if not isinstance(row, dict):
                continue
            for mid, value in row.items():
                if isinstance(value, list) and len(value) == 2 and all(isinstance(v, int) for v in value):
                    old = out.get(mid, (0, 0))
                    out[mid] = (max(old[0], value[0]), max(old[1], value[1]))
        return out

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

    def fold(self, warm: dict[str, Any], pending: dict[str, tuple[int, int]] | None = None) -> list[str]:
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
