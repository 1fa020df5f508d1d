"""Names called by a word of address: Vietnamese given names written with their tones (`Thương`, `Dũng`) and the
word before them (`anh Lộc`, `chị Nguyệt`, `em Thư`, `bác Khải`), as `Mr` does; `Miss <name>` (the name after it);
a church's `Sister <name>`, `Pastor <name>` and Indonesian `Bu <name>`, `Pak <name>` (part of how one is called,
kept whole as `Auntie <name>` is); Chinese `<given>哥/姐/叔/嫂` (`跟琇姐`, `叫他钫哥`) and titles of a works, a ship
or a clinic after a surname (`邝厂长`, `闫船长`, `詹大夫`); a family name's lowercase particle (`van der`, `de`); each
with a near miss. Every sentence is written here, none from a corpus."""
from __future__ import annotations

import pytest

from memoryd.tiers.knowledge.entity_rules import extract


def people(text: str) -> set[str]:
    return {e.name for e in extract(text) if e.type == "person"}


@pytest.mark.parametrize("text, want", [
    ("Thương said the shipment is late again", {"Thương"}),              # ư, ơ: letters of a name
    ("Dũng says the bank closes early on Friday", {"Dũng"}),
    ("the supplies come from anh Lộc every other week", {"Lộc"}),         # a word of address before the name
    ("chị Nguyệt wants the back room on Sundays", {"Nguyệt"}),
    ("em Thư is new, she does the pedicures", {"Thư"}),
    ("bác Khải brought mangoes from his garden", {"Khải"}),
    ("tell em Monday is fine", set()),                                   # English `em`: them, a day after it
    ("anh ơi, the printer is jammed again", set()),                      # a call, no name
])
def test_vietnamese_names_and_words_of_address(text: str, want: set[str]) -> None:
    assert people(text) == want


@pytest.mark.parametrize("text, want", [
    ("Miss Odette says the hall is free on Friday", {"Odette"}),
    ("Sister Philomena runs the soup kitchen now", {"Sister Philomena"}),
    ("Pastor Okonjo will bless the food", {"Pastor Okonjo"}),
    ("the landlord is fine about it. Bu Kemala said so", {"Bu Kemala"}),
    ("I miss Odette already", set()),                                   # the verb, lowercase
])
def test_titles_of_address_before_a_name(text: str, want: set[str]) -> None:
    assert people(text) == want


@pytest.mark.parametrize("text, want", [
    ("周末约琇姐去爬山", {"琇姐"}),
    ("我们都叫他钫哥，人很凶", {"钫哥"}),
    ("崧叔说下礼拜来修屋顶", {"崧叔"}),
    ("邝厂长说下个月涨工资", {"邝厂长"}),
    ("闫船长，明天几点开船？", {"闫船长"}),
    ("我大哥和表姐都来了", set()),                       # kin words, no names
    ("月底飞温哥华，哥们几个送我", set()),               # a city, and buddies
    ("她想做姐姐，不想做妹妹", set()),
    ("玉婷姐说下礼拜来", {"玉婷"}),                        # a given name of two and an elder word: the name
    ("我跟秋菊姐讲好了", {"秋菊"}),                        # not `菊姐` (a surname's character and a title) inside it
    ("邻居大姐帮我收的快递", set()),
])
def test_chinese_elder_words_and_titles_after_a_name(text: str, want: set[str]) -> None:
    assert people(text) == want


@pytest.mark.parametrize("text, want", [
    ("I told Ines van der Kolk about the invoice", {"Ines van der Kolk"}),   # a family name's particle
    ("I told Ana de Souza the truck is late", {"Ana de Souza"}),
    ("I told Bram the van is ready", {"Bram"}),                             # `van`, a word, after one name
])
def test_a_family_names_lowercase_particle_stays_in_the_name(text: str, want: set[str]) -> None:
    assert people(text) == want
