"""Rule importance: seed 001 intrinsic types + explicit signals, seed 000 content signals, en + zh."""
from __future__ import annotations

import pytest
from hypothesis import given, strategies as st

from memoryd.tiers.distillation.importance import rule_importance


@pytest.mark.parametrize("text,expected,kind", [
    ("我对花生过敏", 1.0, "health"),
    ("I am allergic to peanuts", 1.0, "health"),
    ("My name is Zhang San", 1.0, "identity"),
    ("我叫张三", 1.0, "identity"),
    ("我讨厌香菜", 0.8, "preference"),
    ("I prefer TypeScript over JavaScript", 0.8, "preference"),
    ("我换工作了，现在在一家新公司", 0.8, "status_change"),
    ("My wife Anna works as a nurse at the clinic", 0.8, "relationship"),
    ("I went to Beijing yesterday with some friends", 0.5, "general"),
    ("今天下午开会", 0.2, "temporary"),
])
def test_intrinsic_types(text: str, expected: float, kind: str) -> None:
    value, reasons = rule_importance(text)
    assert value == expected
    assert reasons[0].startswith(f"intrinsic:{kind}=")


def test_explicit_signals_add_and_subtract() -> None:
    base, _ = rule_importance("The staging server lives in the Frankfurt region now")
    up, reasons = rule_importance("Remember: the staging server lives in the Frankfurt region now")
    assert up == pytest.approx(min(1.0, base + 0.5)) and "signal:remember+0.5" in reasons
    imp, reasons = rule_importance("Important: the staging server lives in the Frankfurt region now")
    assert imp == pytest.approx(base + 0.3) and "signal:important+0.3" in reasons
    down, reasons = rule_importance("By the way, the staging server lives in the Frankfurt region now")
    assert down == pytest.approx(base - 0.2) and "signal:by_the_way-0.2" in reasons


def test_chinese_signals() -> None:
    assert rule_importance("记住：服务器在法兰克福机房，不要迁移")[0] == 1.0
    v, reasons = rule_importance("顺便说一下，办公室楼下的咖啡机换了一个新的牌子")
    assert v == pytest.approx(0.3) and "signal:by_the_way-0.2" in reasons
    v, reasons = rule_importance("这一点很重要：数据库每天凌晨三点备份一次")
    assert v == pytest.approx(0.8) and "signal:important+0.3" in reasons


def test_negations_do_not_boost() -> None:
    v, reasons = rule_importance("This is not important but the wiki moved to a new host")
    assert v == pytest.approx(0.3) and "signal:important+0.3" not in reasons
    v, reasons = rule_importance("I don't remember where the meeting notes were saved last time")
    assert v == pytest.approx(0.5) and "signal:remember+0.5" not in reasons


def test_content_signals_are_capped() -> None:
    v, reasons = rule_importance("Budget $5000 for project v1.2.3 config bug, need it by 2026-09-15")
    assert v == pytest.approx(0.7)  # 0.5 + at most 0.2 of content signals
    assert {"content:money+0.2", "content:version+0.1", "content:error+0.15"} <= set(reasons)


def test_short_text_penalty_and_category() -> None:
    assert rule_importance("ok cool") == (0.25, ["intrinsic:general=0.5", "short:x0.5"])
    v, reasons = rule_importance("lunch plans", "preferences/food")
    assert v == 0.8 and reasons[0] == "intrinsic:category:preferences=0.8"
    assert rule_importance("记住我叫张三")[0] == 1.0


@given(st.text(max_size=200), st.text(max_size=30))
def test_value_always_in_range(text: str, category: str) -> None:
    v, reasons = rule_importance(text, category)
    assert 0.0 <= v <= 1.0
    assert reasons and reasons[0].startswith("intrinsic:")
