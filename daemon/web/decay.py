"""When each warm entry leaves for cold, by warm's own eviction rule (tiers/memory/warm.py), and its decay curve."""
from __future__ import annotations

from typing import Any

from memoryd.tiers.knowledge.fading import said_score
from memoryd.tiers.memory.model import DAY
from memoryd.tiers.memory.warm import split_due_for_cold

HORIZON_DAYS = 3650  # past ten years: "not in sight"


def _due(entry: dict[str, Any], at: float) -> bool:
    """Whether warm's consolidation at time `at` would move the entry to cold (a copy is rescored)."""
    out, _ = split_due_for_cold({"entries": [dict(entry)]}, at)
    return bool(out)


def days_left(entry: dict[str, Any], now: float) -> int | None:
    """Whole days until the entry is due for cold (0: at the next consolidation); None past the horizon.

    The rule only gets truer with time (the score decays, the age grows), so a bisection over days finds
    the first due day with ~12 evaluations of the real rule."""
    if _due(entry, now):
        return 0
    if not _due(entry, now + HORIZON_DAYS * DAY):
        return None
    lo, hi = 0, HORIZON_DAYS  # not due at lo, due at hi
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if _due(entry, now + mid * DAY):
            hi = mid
        else:
            lo = mid
    return hi


def curve(entry: dict[str, Any], now: float, days: int, points: int = 24) -> list[tuple[float, float]]:
    """(day from now, score) from today to `days` ahead, as warm's score formula decays it."""
    span = max(days, 1)
    out = []
    for i in range(points + 1):
        d = span * i / points
        out.append((d, said_score(entry, now + d * DAY)))  # aged from when it was said, as warm scores it
    return out
