"""How hot an entity is (seed 000): +0.05 per mention, ×0.95 per day; active ≥ 0.5, cold ≤ 0.1.

Stored as (value, day): the value as of that day number (unix day), decayed lazily when read. Adding or
removing a mention of any day is exact whatever the order mentions arrive in (a pull of older memories,
a forget), so the stored value always equals Σ 0.05 × 0.95^(day − mention day) over the mentions held.
"""
from __future__ import annotations

import datetime as dt

STEP = 0.05
DECAY = 0.95
ACTIVE = 0.5
COLD = 0.1
DAY = 86400


def day_of(ts: float) -> int:
    """The unix day number of a unix time."""
    return int(ts // DAY)


_EPOCH = dt.date(1970, 1, 1).toordinal()


def day_text(day: int) -> str:
    """A unix day number as YYYY-MM-DD."""
    return dt.date.fromordinal(day + _EPOCH).isoformat()


def day_number(date: str) -> int:
    """YYYY-MM-DD as a unix day number (ValueError when it is no date)."""
    return dt.date.fromisoformat(date).toordinal() - _EPOCH


def at(value: float, day: int, today: int) -> float:
    """The value stored as of `day`, read on `today` (no growth when `today` is earlier)."""
    return value * DECAY ** max(today - day, 0)


def add(value: float, day: int, mention_day: int) -> tuple[float, int]:
    """One more mention on `mention_day`: the new (value, day)."""
    if mention_day >= day:
        return at(value, day, mention_day) + STEP, mention_day
    return value + STEP * DECAY ** (day - mention_day), day


def remove(value: float, day: int, mention_day: int) -> tuple[float, int]:
    """One mention of `mention_day` less (a forget): the new (value, day), never below 0."""
    return max(value - STEP * DECAY ** max(day - mention_day, 0), 0.0), day


def state(value: float) -> str:
    """active, cold or warm: what retrieval and sealing read from a hotness."""
    if value >= ACTIVE - 1e-9:
        return "active"
    if value <= COLD + 1e-9:
        return "cold"
    return "warm"
