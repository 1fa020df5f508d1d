"""A Chinese full name beside, in brackets, what it is also called is a person, whichever comes first; two words in
brackets that share no character are no name and its nickname."""
from __future__ import annotations

import pytest

from memoryd.tiers.knowledge.entity_rules import extract


def people(text: str) -> set[str]:
    return {e.name for e in extract(text) if e.type == "person"}


@pytest.mark.parametrize("text, names", [
    ("夜班领班：樊志鹏（阿鹏），接替调走的同事。", {"樊志鹏"}),             # a role, a colon, the name, its nickname
    ("岑姐（岑秀娥）说下个月房租要涨", {"岑姐", "岑秀娥"}),                # the short form first: both are names
    ("店長鮑啟航（阿航）今天請假", {"鮑啟航"}),                          # traditional, kept as written
])
def test_a_full_name_and_what_it_is_also_called_is_a_person(text: str, names: set[str]) -> None:
    assert names <= people(text)


def test_words_in_brackets_that_share_no_character_name_no_one() -> None:
    assert not people("卜雅琴（降压药）每天一片") & {"卜雅琴"}  # a name's form, but the bracket says what it is for
    assert people("卜雅琴（雅琴）下周回来") >= {"卜雅琴"}
