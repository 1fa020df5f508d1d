"""The kind model: labels map onto kinds, confidence is checked, decay follows seed 001."""
from __future__ import annotations

import pytest

from memoryd.tiers.base.errors import UsageError
from memoryd.tiers.knowledge import kinds


def test_older_memories_read_as_fact_and_retain_labels_map_onto_kinds():
    assert kinds.kind_of(None) == "fact"
    assert kinds.kind_of({"kind": "turn"}) == "fact"
    assert kinds.kind_of({"kind": "world"}) == "fact"
    assert kinds.kind_of({"kind": "experience"}) == "experience"
    assert kinds.kind_of({"kind": "opinion"}) == "opinion"
    assert kinds.kind_of({"kind": "observation"}) == "summary"
    assert kinds.kind_of({"kind": "world", "memory_kind": "belief"}) == "belief"


def test_confidence_only_for_beliefs_and_opinions():
    assert kinds.confidence_of({"memory_kind": "belief", "confidence": 0.4}) == 0.4
    assert kinds.confidence_of({"memory_kind": "fact", "confidence": 0.4}) is None
    assert kinds.confidence_of({"memory_kind": "opinion", "confidence": 1.5}) is None
    with pytest.raises(UsageError, match="unknown kind"):
        kinds.check_kind("rumour")
    with pytest.raises(UsageError, match="has no confidence"):
        kinds.check_kind("fact", 0.5)
    with pytest.raises(UsageError, match="from 0 to 1"):
        kinds.check_kind("belief", 2)
    assert kinds.check_kind("opinion", 1) == ("opinion", 1.0)


def test_decay_per_kind_slowed_by_importance():
    assert kinds.daily_decay("fact", 0.0) == pytest.approx(0.008)
    assert kinds.daily_decay("fact", 1.0) == pytest.approx(0.004)
    assert kinds.daily_decay("belief", 0.0) == pytest.approx(0.07)
    half_life_fact = next(d for d in range(1000) if kinds.decay_factor("fact", 0.0, d) < 0.5)
    half_life_belief = next(d for d in range(1000) if kinds.decay_factor("belief", 0.0, d) < 0.5)
    assert 80 <= half_life_fact <= 90 and 9 <= half_life_belief <= 11
