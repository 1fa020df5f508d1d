"""Rows of the local index: validation of entries, their terms and dates, and small SQL helpers."""
from __future__ import annotations

import json
import math
import re
from typing import Any, Callable, Iterator, Mapping, Sequence

from memoryd.tiers.retrieval import analyzer
from memoryd.tiers.base.errors import UsageError
from memoryd.tiers.base.ports import ColdEntry
from memoryd.tiers.memory.said import said_day

PAGE = 500
TERM_RE = re.compile(r"[^\W_]+")
IDS_PER_STMT = 500
COLUMNS = "m.id, m.text, m.category, m.importance, m.created_at, m.access_count, m.last_access, m.metadata, m.day"
Progress = Callable[[int, int], None]


def reporter(progress: Progress | None, label: str, total: int) -> Callable[..., None]:
    """Count steps to `progress(done, total)` if given, else to the context's reporter (a bar on a
    terminal) when the work is big enough to be worth one."""
    if progress is not None:
        done = [0]

        def tell(n: int = 1) -> None:
            done[0] += n
            progress(done[0], max(total, done[0]))
        return tell
    if total < 500:
        return lambda n=1: None
    from memoryd.tiers.base.progress import current_progress

    return current_progress().start(label, total)


def marks(n: int) -> str:
    return ", ".join("?" * n)


def chunks(items: Sequence[Any], size: int) -> Iterator[Sequence[Any]]:
    for i in range(0, len(items), size):
        yield items[i:i + size]


def entry_day(created_at: float, metadata: Mapping[str, Any]) -> str:
    """A memory's date: the UTC day it was said (tiers/memory/said.py: a note's own date, a turn's
    timestamp), else the day it was stored."""
    return said_day({"created_at": created_at, "metadata": metadata})


def check_entry(entry: ColdEntry, n: int = 0) -> ColdEntry:
    """A validated, normalised copy of one entry (UsageError naming what is wrong)."""
    try:
        mid, text, category = entry["id"], entry["text"], entry["category"]
        created = float(entry["created_at"])
        importance = entry.get("importance")
        importance = None if importance is None else float(importance)
        access = int(entry.get("access_count") or 0)
        last = entry.get("last_access")
        last = None if last is None else int(float(last))
    except (KeyError, TypeError, ValueError) as exc:
        raise UsageError(f"cold entry #{n} is malformed: {type(exc).__name__} {exc}") from None
    if not (isinstance(mid, str) and mid and isinstance(text, str) and text and isinstance(category, str)):
        raise UsageError(f"cold entry #{n} needs a non-empty id, text and category")
    if not math.isfinite(created) or (importance is not None and not math.isfinite(importance)):
        raise UsageError(f"cold entry #{n} has a non-finite number")
    meta = entry.get("metadata") or {}
    if not isinstance(meta, dict):
        raise UsageError(f"cold entry #{n}: metadata must be an object")
    return {"id": mid, "text": text, "category": category, "importance": importance, "created_at": int(created),
            "access_count": access, "last_access": last, "metadata": meta}


def row_entry(row: Sequence[Any]) -> ColdEntry:
    """The entry of one row read with COLUMNS (the cold tier's own: `day`, `tier`)."""
    mid, text, category, importance, created, access, last, meta, day = row[:9]
    try:
        metadata = json.loads(meta) if meta else {}
    except ValueError:
        metadata = {}  # a hand-edited row must not break search
    return {"id": mid, "text": text, "category": category, "importance": importance, "created_at": created,
            "access_count": int(access or 0), "last_access": last,
            "metadata": metadata if isinstance(metadata, dict) else {}, "day": day, "tier": "cold"}


def terms_text(text: str, category: str) -> tuple[str, int]:
    found = analyzer.document(text, category)
    return " ".join(found), len(found)
