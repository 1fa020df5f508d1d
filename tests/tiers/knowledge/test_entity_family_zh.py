"""Chinese people named by a word of family before their full name, Tibetan names (no surname), and a firm named
after a verb that takes one (tiers/knowledge/entity_people.py, entity_things_zh.py); every name invented here."""
from __future__ import annotations

import pytest

from memoryd.tiers.knowledge.entity_rules import extract


def found(text: str, kind: str) -> set[str]:
    return {e.name for e in extract(text) if e.type == kind}


@pytest.mark.parametrize("text, name", [
    ("我婆娘蔺婉秋下礼拜回老家", "蔺婉秋"),
    ("老母亲邬静怡腿脚不太好", "邬静怡"),
    ("家婆甄婉秋仍然每天去公园散步", "甄婉秋"),     # 仍 ends the clause, not the name
    ("表哥邬柏舟的修车铺开张了", "邬柏舟"),
])
def test_a_full_name_right_after_a_word_of_family_is_a_person(text: str, name: str) -> None:
    assert name in found(text, "person")


@pytest.mark.parametrize("text", [
    "女儿高兴就好",              # a surname's character opening a common word
    "我妈高血压又犯了",          # characters no given name has
    "老公金项链丢了",
    "妻子尤敏明天回来",          # a two-character name: where it ends is not known, so nothing is read
    "儿子高考完了",
])
def test_a_word_after_a_word_of_family_that_runs_into_a_clause_is_no_name(text: str) -> None:
    assert not {n for n in found(text, "person") if len(n) == 3 and n[0] in "高金尤"}


@pytest.mark.parametrize("text, names", [
    ("周末请扎西顿珠帮忙搬家", {"扎西顿珠"}),             # two words of a Tibetan name
    ("索朗旺姆说明天来看店", {"索朗旺姆"}),
    ("贡嘎阿佳送了一袋糌粑", {"贡嘎"}),                  # one, before a word of respect
])
def test_a_tibetan_name_is_two_of_its_words_or_one_before_a_word_of_respect(text: str, names: set[str]) -> None:
    assert names <= found(text, "person")


@pytest.mark.parametrize("text", ["扎西德勒！新年快乐", "阳台上的格桑花开了", "达瓦说明天见"])
def test_a_greeting_a_flower_or_one_word_alone_names_no_tibetan(text: str) -> None:
    assert not found(text, "person") & {"扎西德勒", "格桑", "达瓦"}


@pytest.mark.parametrize("text, org", [
    ("我们一直找岚山旅行社订机票", "岚山旅行社"),
    ("下周跟澄湖物流对接一下", "澄湖物流"),
])
def test_a_firm_after_a_verb_that_takes_one_is_named(text: str, org: str) -> None:
    assert found(text, "org") == {org}


def test_asking_twice_starts_no_firm_name() -> None:
    assert not {o for o in found("你帮我问问 澄湖超市几点关门", "org") if o.startswith("问")}


@pytest.mark.parametrize("text, name", [
    ("雨婷说她明天不来了", "雨婷"),          # a given name alone, before a verb of a person, opening the line
    ("对了，思颖觉得价钱太高", "思颖"),       # opening a clause
    ("我跟梓涵说了", "梓涵"),                # after a cue of a person
])
def test_a_given_name_said_without_its_surname_before_a_verb_of_a_person_is_a_person(text: str, name: str) -> None:
    assert ("person", name) in {(e.type, e.name) for e in extract(text)}


@pytest.mark.parametrize("text", ["大家说好了", "朋友觉得不错", "学生说太难", "英文说得不好", "我觉得若琳说得对"])
def test_a_common_word_before_a_verb_of_a_person_or_a_name_inside_a_clause_names_no_one(text: str) -> None:
    """Words whose last character ends few given names (家, 友, 生, 文) are no name; a name after 觉得 inside a
    clause is left unread (silent, not guessed)."""
    assert not [e for e in extract(text) if e.type == "person"]
