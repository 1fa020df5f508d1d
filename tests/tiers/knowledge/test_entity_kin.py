"""The owner's wider family named by how they are related (a nephew, a cousin, the in-laws, 表哥, 外甥, 婆姨), people
named by the verbs only a person does (`rang`, `reckoned`), Cantonese familiar names (`阿<Latin name>`) and firms
named by their trade (布行, 补习社, 茶餐厅): each with a near miss; every sentence written here, none from a corpus."""
from __future__ import annotations

import pytest

from memoryd.tiers.knowledge.entity_fold import groups
from memoryd.tiers.knowledge.entity_kin import relation_of
from memoryd.tiers.knowledge.entity_rules import extract


def people(text: str) -> set[str]:
    return {e.name for e in extract(text) if e.type == "person"}


@pytest.mark.parametrize("text, want", [
    ("my nephew wants a lift to the match", {"my nephew"}),
    ("my cousin is over from Swindon for the weekend", {"my cousin"}),
    ("my brother-in-law has a tow bar on his van", {"my brother-in-law"}),   # not `my brother`
    ("my cousin Thibault is over from Lyon", {"Thibault"}),                 # the name is the person
    ("his cousin is over, and a nephew of the landlord", set()),             # someone else's family
    ("我表哥明天开车过来", {"我表哥"}),
    ("外甥女周末来住两天", {"外甥女"}),
    ("婆姨说晚上炖羊肉", {"婆姨"}),                                           # the northern word for one's wife
    ("孩她妈今天值夜班", {"孩她妈"}),
    ("个仔今日考数学", {"个仔"}),                                             # Cantonese: my son
    ("我表哥们都来了", set()),                                                # 们: a group, no one person
    ("一个外甥都没来", set()),                                                # not a word of its own
])
def test_the_owners_wider_family_are_people(text: str, want: set[str]) -> None:
    assert people(text) == want


def test_each_relation_folds_apart() -> None:
    """`我表哥` and `表哥` are one cousin, `表妹` another; `婆姨` is the wife `我老婆` names."""
    assert relation_of("我表哥") == relation_of("表哥") != relation_of("表妹")
    assert relation_of("婆姨") == relation_of("我老婆") and relation_of("my nephew") != relation_of("my niece")
    rows = [("person:我表哥", "我表哥", "person", 3), ("person:表哥", "表哥", "person", 2), ("person:表妹", "表妹", "person", 2)]
    assert [sorted(g) for g in groups(rows).values()] == [["person:我表哥", "person:表哥"]]


@pytest.mark.parametrize("text, want", [
    ("Oswin rang about the boiler", {"Oswin"}),
    ("Perpetua reckoned the quote was fair", {"Perpetua"}),
    ("Monday rang true for everyone", set()),
])
def test_a_verb_only_a_person_does_after_a_name(text: str, want: set[str]) -> None:
    assert people(text) == want


@pytest.mark.parametrize("text, want", [
    ("阿Toph话今日唔得闲", {"Toph"}),
    ("阿June琴日请咗假", {"June"}),     # a month's name is a given name after 阿
    ("阿Sir话唔使排队", set()),          # a title, no name
])
def test_a_cantonese_familiar_latin_name(text: str, want: set[str]) -> None:
    assert people(text) == want


@pytest.mark.parametrize("text, want", [
    ("瑞祥布行嘅布今日到咗", {"瑞祥布行"}),
    ("个仔去咗博雅补习社", {"博雅补习社"}),
    ("约咗喺金凤茶餐厅倾", {"金凤茶餐厅"}),
    ("买了套实木家具", set()),          # a kind of furniture, no firm
])
def test_a_firm_named_by_its_trade(text: str, want: set[str]) -> None:
    assert {e.name for e in extract(text) if e.type == "org"} == want
