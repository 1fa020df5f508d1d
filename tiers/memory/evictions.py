"""The eviction log: an append-only JSON Lines record of everything pruned, evicted or forgotten."""
from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable

from memoryd.tiers.base.atomic import atomic_write_text
from memoryd.tiers.base.errors import StoreError

if TYPE_CHECKING:
    from memoryd.tiers.memory.types import Eviction

# the fields of a row that never hold a memory's text; after a forget its rows keep only these
ID_FIELDS = frozenset({"id", "kind", "tier", "ts", "action", "run", "why", "members", "ids", "category"})
MAX_LOG_BYTES = 1 << 20  # rotated to evictions.jsonl.1 past 1 MiB
# json.dumps(row, ensure_ascii=False, sort_keys=True) without a new encoder per row (a year's ingest logs thousands)
_ROW = json.JSONEncoder(ensure_ascii=False, sort_keys=True)


class EvictionLog:
    def __init__(self, path: Path) -> None:
        self.path = path

    def append(self, rows: Iterable[Eviction], now: float) -> int:
        """Append rows (what/why/when), fsynced; the caller holds the agent lock."""
        lines = []
        for row in rows:
            clean = {k: v for k, v in row.items() if k != "entry"}
            clean["ts"] = int(now)
            lines.append(_ROW.encode(clean))
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
        """Blank every text field (previews, descriptions) of rows about these ids (after a forget): they keep
        ids, kinds and times only; returns rows changed."""
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
                texts = [k for k, v in row.items() if k not in ID_FIELDS and isinstance(v, str) and v]
                if row.get("id") in ids and texts:
                    row.update(dict.fromkeys(texts, ""))
                    changed += 1
                out.append(json.dumps(row, ensure_ascii=False, sort_keys=True))
            atomic_write_text(path, "".join(line + "\n" for line in out))
        return changed

    def rows(self) -> list[Eviction]:
        """All readable rows, oldest first (a torn last line from a crash is skipped)."""
        out: list[Eviction] = []
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
        """Counts per tier/kind and the last row. Cached beside the log and brought up to date from
        the bytes appended since (the log only grows until rotated): status stays cheap after a year."""
        cache_path = self.path.with_name(".evictions-summary.json")
        old = self.path.with_name(self.path.name + ".1")
        stamp = [_size(old), _mtime(old)]
        cache = _read_cache(cache_path)
        size = _size(self.path)
        if cache is None or cache.get("rotated") != stamp or cache.get("offset", 0) > size:
            base = self._count(old.read_bytes() if stamp[0] else b"", Counter(), None)
            cache = {"rotated": stamp, "offset": 0, "total": base[0], "by_kind": dict(base[1]), "last": base[2]}
        if size > cache["offset"]:
            with open(self.path, "rb") as fh:
                fh.seek(cache["offset"])
                chunk = fh.read(size - cache["offset"])
            chunk = chunk[: chunk.rfind(b"\n") + 1]  # a torn last line waits
            total, by, last = self._count(chunk, Counter(cache["by_kind"]), cache["last"])
            cache.update(offset=cache["offset"] + len(chunk), total=cache["total"] + total, by_kind=dict(by), last=last)
            try:  # derived data: no fsync, and a failed write only means recounting next time
                atomic_write_text(cache_path, json.dumps(cache), durable=False)
            except (OSError, StoreError):
                pass
        return {"total": cache["total"], "by_kind": dict(sorted(cache["by_kind"].items())), "last": cache["last"]}

    @staticmethod
    def _count(data: bytes, by: Counter, last: Any) -> tuple[int, Counter, Any]:
        total = 0
        for line in data.decode("utf-8", errors="replace").splitlines():
            try:
                row = json.loads(line)
            except ValueError:
                continue
            total += 1
            by[f"{row.get('tier')}/{row.get('kind')}"] += 1
            last = row
        return total, by, last


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except FileNotFoundError:
        return 0


def _mtime(path: Path) -> int:
    try:
        return path.stat().st_mtime_ns
    except FileNotFoundError:
        return 0


def _read_cache(path: Path) -> dict[str, Any] | None:
    try:
        cache = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    ok = isinstance(cache, dict) and isinstance(cache.get("by_kind"), dict) and isinstance(cache.get("offset"), int)
    return cache if ok else None
