"""Unit tests for tiers.model: score formula, tier thresholds, ids and input validation."""
from __future__ import annotations

import math

import pytest

from memoryd.tiers.base.config import validate_agent_id
from memoryd.tiers.base.errors import UsageError
from memoryd.tiers.memory.model import (MAX_TEXT_BYTES, check_category, check_importance, check_text, content_id,
                                 normalize_text, score, tier_for)


def test_score_formula_matches_seed() -> None:
    assert score(1.0, 0, 0) == pytest.approx(1.0)
    assert score(0.8, 30, 0) == pytest.approx(0.8 * math.exp(-1))
    assert score(0.5, 15, 3) == pytest.approx(0.5 * math.exp(-0.5) * 1.3)
    assert score(0.6, 90, 10) == pytest.approx(0.6 * math.exp(-3) * 2.0)


def test_score_clamps_negative_age_and_access() -> None:
    assert score(0.5, -10, -3) == pytest.approx(0.5)


@pytest.mark.parametrize("value,tier", [
    (1.0, "hot"), (0.7, "hot"), (0.6999, "warm"), (0.3, "warm"), (0.2999, "cold"),
    (0.05, "cold"), (0.0499, "frozen"), (0.0, "frozen"),
])
def test_tier_thresholds(value: float, tier: str) -> None:
    assert tier_for(value) == tier


def test_content_id_is_16_hex_and_normalised() -> None:
    a = content_id("food", "Beijing  roast duck")
    assert len(a) == 16 and all(c in "0123456789abcdef" for c in a)
    assert a == content_id("food", "beijing roast duck ")
    assert a == content_id("FOOD", "Beijing\troast\nduck")
    assert a != content_id("food/x", "Beijing roast duck")
    assert normalize_text("ＡＢＣ  d") == "abc d"  # NFKC full-width


@pytest.mark.parametrize("bad", ["", "   ", "\n\t"])
def test_check_text_refuses_empty(bad: str) -> None:
    with pytest.raises(UsageError, match="empty"):
        check_text(bad)


def test_check_text_size_limit_counts_utf8_bytes() -> None:
    assert check_text("x" * MAX_TEXT_BYTES) == "x" * MAX_TEXT_BYTES
    with pytest.raises(UsageError, match="bytes"):
        check_text("x" * (MAX_TEXT_BYTES + 1))
    with pytest.raises(UsageError):
        check_text("鸭" * (MAX_TEXT_BYTES // 3 + 1))  # 3 bytes per char in UTF-8


@pytest.mark.parametrize("bad", [-0.01, 1.01, float("nan"), float("inf"), "abc"])
def test_check_importance_refuses(bad: object) -> None:
    with pytest.raises(UsageError):
        check_importance(bad)  # type: ignore[arg-type]


def test_check_importance_accepts_bounds() -> None:
    assert check_importance(0) == 0.0 and check_importance(1) == 1.0 and check_importance(None) is None
    assert check_importance("0.5") == 0.5  # type: ignore[arg-type]


@pytest.mark.parametrize("bad", ["", " ", "a//b", "/a", "a/", "a/b/c/d/e", "a b", "a/b?", "x" * 33])
def test_check_category_refuses(bad: str) -> None:
    with pytest.raises(UsageError):
        check_category(bad)


def test_check_category_accepts() -> None:
    assert check_category("projects/evoclaw") == "projects/evoclaw"
    assert check_category(" a/b/c/d ") == "a/b/c/d"
    assert check_category("美食/北京") == "美食/北京"


@pytest.mark.parametrize("bad", ["", "../x", "a b", "-lead", "_x", "x" * 65, "a/b", "é", "a.b"])
def test_agent_id_refused(bad: str) -> None:
    with pytest.raises(UsageError):
        validate_agent_id(bad)


@pytest.mark.parametrize("good", ["default", "a", "A-1_b", "9" * 64])
def test_agent_id_accepted(good: str) -> None:
    assert validate_agent_id(good) == good
