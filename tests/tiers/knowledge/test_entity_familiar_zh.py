"""`阿` and a character of a given name at a word's start is a familiar name whatever follows; not before a
character of a transliterated name, before 妈/们, nor where 阿 asks a question in Wu."""
from __future__ import annotations

import pytest

from memoryd.tiers.knowledge.entity_rules import extract


def people(text: str) -> set[str]:
    return {e.name for e in extract(text) if e.type == "person"}


@pytest.mark.parametrize("text, name", [
    ("阿蕙住在城西，离我们店挺远", "阿蕙"),        # a verb no rule of a person lists
    ("阿瑶今晚也来吃饭", "阿瑶"),                  # a word of time after it
    ("阿蕙今日出嚟飲茶", "阿蕙"),                  # written Cantonese
])
def test_a_familiar_name_with_a_is_a_person_whatever_follows(text: str, name: str) -> None:
    assert name in people(text)


@pytest.mark.parametrize("text", [
    "阿好吃蟹？",          # Wu: can he eat crab?
    "阿是明天去？",
    "阿蕙妈们在门口排队",   # 妈们: a group of elders
    "阿迪尔明天到",         # a transliterated name goes on
])
def test_what_only_looks_like_one_is_no_familiar_name(text: str) -> None:
    assert not any(n in ("阿好", "阿是", "阿蕙", "阿迪") for n in people(text))
