"""A Chinese full name said with no cue before it (tiers/knowledge/entity_people.py, rule `full`): read only where
what follows makes it a person's (a possessive, a demonstrative, a verb of saying, another script); every name
invented here."""
from __future__ import annotations

import pytest

from memoryd.tiers.knowledge.entity_rules import extract


def people(text: str) -> set[str]:
    return {e.name for e in extract(text) if e.type == "person"}


@pytest.mark.parametrize("text, name", [
    ("鲍思萱的方案周五前要交", "鲍思萱"),
    ("昨天开会，柯雅婷说预算还得砍", "柯雅婷"),
    ("詹晓琳那边还没回消息", "詹晓琳"),
    ("邝子豪 will send the draft tonight", "邝子豪"),
])
def test_a_full_name_before_a_possessive_a_verb_of_saying_or_latin_is_a_person(text: str, name: str) -> None:
    assert name in people(text)


@pytest.mark.parametrize("text", [
    "韩语英语都要考",      # a surname's character opening common words
    "黄金海岸的房子涨价了",
    "高铁站人很多",
    "苏格兰的威士忌",      # the shape of a name, but a place: not_names
    "白玉兰的花开了",      # … and a flower
    "邝子豪今天请假",      # before other Han characters the rule stays silent: where a word ends is not known
])
def test_a_common_word_of_that_shape_or_a_name_run_into_a_clause_is_no_person(text: str) -> None:
    assert not {n for n in people(text) if len(n) == 3}
