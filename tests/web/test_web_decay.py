"""The day a warm entry leaves, by warm's own rule, and its decay curve."""
from __future__ import annotations

import math

import pytest

from memoryd.daemon.web import decay
from memoryd.tiers.memory.model import DAY
from memoryd.tiers.memory.warm import new_entry, split_due_for_cold

NOW = 1_700_000_000.0


def _due(entry: dict, at: float) -> bool:
    return bool(split_due_for_cold({"entries": [dict(entry)]}, at)[0])


@pytest.mark.parametrize("importance,accesses,age", [(0.9, 0, 0), (0.5, 0, 3), (0.3, 0, 0), (1.0, 12, 1),
                                                     (0.2, 0, 40), (0.06, 0, 0), (0.04, 0, 0)])
def test_days_left_is_the_first_day_the_rule_moves_it(importance: float, accesses: int, age: float) -> None:
    entry = new_entry("a fact", "misc", importance, NOW - age * DAY)
    entry["access_count"] = accesses
    left = decay.days_left(entry, NOW)
    assert left is not None
    assert _due(entry, NOW + left * DAY)
    if left:
        assert not _due(entry, NOW + (left - 1) * DAY)
    k = importance * (1 + 0.1 * accesses)  # score = k·exp(-age/30): below 0.3 past 30 days, or below 0.05
    first = min(max(30.0, 30 * math.log(k / 0.3)) if k > 0.3 else 30.0, 30 * math.log(k / 0.05) if k > 0.05 else 0.0)
    assert left == max(0, math.floor(first - age) + 1) or left == max(0, math.ceil(first - age))


def test_curve_starts_at_todays_score_and_decays() -> None:
    entry = new_entry("a fact", "misc", 0.8, NOW - 10 * DAY)
    points = decay.curve(entry, NOW, 30)
    assert points[0] == (0.0, pytest.approx(0.8 * math.exp(-10 / 30)))
    assert points[-1][0] == 30 and all(b[1] < a[1] for a, b in zip(points, points[1:]))
