"""The eviction log: an append-only JSON Lines record of everything pruned, evicted or forgotten."""
from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path
from typing import Any, Iterable

from .atomic import atomic_write_text

MAX_LOG_BYTES = 1 << 20  # rotated to evictions.jsonl.1 past 1 MiB


class EvictionLog:
    def __init__(self, path: Path) -> None:
        self.path = path

    def append(self, rows: Iterable[dict[str, Any]], now: float) -> int:
        """Append rows (what/why/when), fsynced; the caller holds the agent lock."""
        lines = []
        for row in rows:
            clean = {k: v for k, v in row.items() if k != "entry"}
            clean["ts"] = int(now)
            lines.append(json.dumps(clean, ensure_ascii=False, sort_keys=True))
        if not lines:
            return 0
        self._rotate_if_big()
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.write(fd, ("\n".join(lines) + "\n").encode("utf-8"))
            os.fsync(fd)
        finally:
            os.close(fd)
        return len(lines)

    def _rotate_if_big(self) -> None:
        try:
            if self.path.stat().st_size > MAX_LOG_BYTES:
                os.replace(self.path, self.path.with_name(self.path.name + ".1"))
        except FileNotFoundError:
            pass

    def scrub(self, ids: set[str]) -> int:
        """Blank the text previews of rows about these ids (after a forget); returns rows changed."""
        changed = 0
        for path in (self.path.with_name(self.path.name + ".1"), self.path):
            try:
                lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
            except FileNotFoundError:
                continue
            out = []
            for line in lines:
                try:
                    row = json.loads(line)
                except ValueError:
                    continue  # a torn line from a crash: dropped on rewrite
                if row.get("id") in ids and row.get("what"):
                    row["what"] = ""
                    changed += 1
                out.append(json.dumps(row, ensure_ascii=False, sort_keys=True))
            atomic_write_text(path, "".join(line + "\n" for line in out))
        return changed

    def rows(self) -> list[dict[str, Any]]:
        """All readable rows, oldest first (a torn last line from a crash is skipped)."""
        out: list[dict[str, Any]] = []
        for path in (self.path.with_name(self.path.name + ".1"), self.path):
            try:
                text = path.read_text(encoding="utf-8", errors="replace")
            except FileNotFoundError:
                continue
            for line in text.splitlines():
                try:
                    out.append(json.loads(line))
                except ValueError:
                    continue
        return out

    def summary(self) -> dict[str, Any]:
        rows = self.rows()
        by = Counter(f"{r.get('tier')}/{r.get('kind')}" for r in rows)
        return {"total": len(rows), "by_kind": dict(sorted(by.items())),
                "last": rows[-1] if rows else None}
