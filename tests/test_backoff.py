"""The one retry policy (tiers/backoff.py): growth, cap, jitter bounds, bad parameters."""
from __future__ import annotations

import random

import pytest

from memoryd.tiers.backoff import Backoff


def test_doubles_from_the_base_then_stays_at_the_cap():
    policy = Backoff(base=30, cap=1800)
    assert [policy.delay(n) for n in range(0, 9)] == [30, 30, 60, 120, 240, 480, 960, 1800, 1800]
    assert policy.delay(10_000) == 1800  # no overflow after a very long outage


def test_jitter_spreads_each_delay_within_its_band():
    policy = Backoff(base=5, cap=900, jitter=0.5)
    rng = random.Random(7)
    for attempts in range(1, 12):
        plain = min(900, 5 * 2 ** (attempts - 1))
        delays = [policy.delay(attempts, rng) for _ in range(200)]
        assert all(0.5 * plain <= d <= 1.5 * plain for d in delays)
        assert max(delays) - min(delays) > 0.5 * plain  # really spread, not one value


@pytest.mark.parametrize("kwargs", [dict(base=0, cap=1), dict(base=5, cap=1), dict(base=1, cap=2, jitter=1.0),
                                    dict(base=1, cap=2, jitter=-0.1)])
def test_bad_parameters_are_refused(kwargs):
    with pytest.raises(ValueError):
        Backoff(**kwargs)
