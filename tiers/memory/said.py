"""Valid time: when a memory was said (its note's date and section, its turn's timestamp), apart from when
memoryd learned it (`created_at`).

A memory's own time, first found wins:
    metadata `time` as a full ISO timestamp    (an OpenClaw or transcript turn: "2026-03-05T09:12:00Z")
    metadata `date` (+ `time` HH:MM)           (a daily note's day and its `## HH:MM` section)
    metadata `said_at` before `created_at`     (given by the caller: an API store of something said earlier)
    `created_at`                               (a fact stored from the CLI or MCP: said when stored)
and a memory said again later (metadata `said_at`, ISO, tiers/knowledge/truth.py) is as new as that.
Dates without a zone are UTC, as `retrieve --since/--until` and the local index's `day` read them.
Warm decay and archiving (said_age_days), sealing, the digest and retrieval's date filters (said_day) read
them, so a year of old notes imported today lands where its age puts it; `created_at` stays "when memoryd
learned it".
"""
from __future__ import annotations

import functools
import time
from datetime import datetime, timezone
from typing import Any, Mapping

SAID_AGAIN_KEY = "said_at"  # the same key as tiers/knowledge/kinds.SAID_AT_KEY (kept here: no import upwards)


@functools.lru_cache(maxsize=8192)
def iso_seconds(text: str) -> float | None:
    """Epoch seconds of an ISO date or timestamp ("2026-03-05", "2026-03-05T09:12", "…Z", "…+01:00"), or None.
    Cached: warm rescores every entry at every write, and a year of notes shares a few thousand stamps."""
    if len(text) < 10 or text[4:5] != "-" or not text[:4].isdigit():
        return None
    try:
        when = datetime.fromisoformat(text.replace("Z", "+00:00") if text.endswith("Z") else text)
    except ValueError:
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return when.timestamp()


def _own(meta: Mapping[str, Any]) -> float | None:
    """The memory's own time from its metadata (a turn's timestamp, a note's date and section), or None."""
    date, at = meta.get("date"), meta.get("time")
    if isinstance(at, str) and len(at) > 10:
        found = iso_seconds(at)
        if found is not None:
            return found
    if isinstance(date, str) and len(date) == 10:
        if isinstance(at, str) and len(at) == 5 and at[2:3] == ":":
            found = _day_and_clock(date, at)
            if found is not None:
                return found
        return iso_seconds(date)
    return None


def _day_and_clock(date: str, at: str) -> float | None:
    """iso_seconds(f"{date}T{at}") for a note's day and `HH:MM`: the day's seconds (a year of notes has a few
    hundred days, each parsed once) plus the clock's, where each stamp of a year's notes was parsed anew."""
    hh, mm = at[:2], at[3:]
    if hh.isascii() and hh.isdigit() and mm.isascii() and mm.isdigit() and int(hh) < 24 and int(mm) < 60:
        day = iso_seconds(date)
        if day is not None and date[4:5] == "-" and date[7:8] == "-":  # YYYY-MM-DD, not another 10-char form
            return day + int(hh) * 3600 + int(mm) * 60
    return iso_seconds(f"{date}T{at}")


def first_said(memory: Mapping[str, Any]) -> float:
    """When the memory was first said (epoch seconds): its own time, else when it was stored — or a `said_at`
    given before that by whoever stored it (truth.said_again only ever sets a later one)."""
    meta = memory.get("metadata") or {}
    own = _own(meta)
    if own is not None:
        return own
    stored = float(memory.get("created_at") or 0)
    given = meta.get(SAID_AGAIN_KEY)
    earlier = iso_seconds(given) if isinstance(given, str) else None
    return earlier if earlier is not None and earlier < stored else stored


def said_at(memory: Mapping[str, Any]) -> float:
    """When the memory was last said (epoch seconds): first_said, or a later saying of it (`said_at`)."""
    first = first_said(memory)
    again = (memory.get("metadata") or {}).get(SAID_AGAIN_KEY)
    if isinstance(again, str):
        later = iso_seconds(again)
        if later is not None and later > first:
            return later
    return first


def said_day(memory: Mapping[str, Any]) -> str:
    """The UTC day (YYYY-MM-DD) the memory was first said: the day a digest or a date filter files it under."""
    date = (memory.get("metadata") or {}).get("date")
    if isinstance(date, str) and len(date) == 10 and iso_seconds(date) is not None:
        return date
    return time.strftime("%Y-%m-%d", time.gmtime(first_said(memory)))


def said_age_days(memory: Mapping[str, Any], now: float) -> float:
    """The age the score decays by: days since the memory was first said, on the clock `now` (never negative:
    a note dated ahead). A saying again counts as an access (reinforcement), as it always did, not as youth."""
    return max(0.0, (now - first_said(memory)) / 86400.0)
