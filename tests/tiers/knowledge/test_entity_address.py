"""Names called by a word of address: Vietnamese given names written with their tones (`Thương`, `Dũng`) and the
word before them (`anh Lộc`, `chị Nguyệt`, `em Thư`, `bác Sáu`), as `Mr` does; `Miss <name>` (the name after it);
a church's `Sister <name>`, `Pastor <name>` and Indonesian `Bu <name>`, `Pak <name>` (part of how one is called,
kept whole as `Auntie <name>` is); each with a near miss. Every sentence is written here, none from a corpus."""
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
    ("bác Sáu brought mangoes from his garden", {"Sáu"}),
    ("tell em Monday is fine", set()),                                   # English `em`: them, a day after it
    ("anh ơi, the printer is jammed again", set()),                      # a call, no name
])
def test_vietnamese_names_and_words_of_address(text: str, want: set[str]) -> None:
    assert people(text) == want


@pytest.mark.parametrize("text, want", [
    ("Miss Odette says the hall is free on Friday", {"Odette"}),
    ("Sister Philomena runs the soup kitchen now", {"Sister Philomena"}),
    ("Pastor Okonjo will bless the food", {"Pastor Okonjo"}),
    ("the landlord is fine about it. Bu Wulan said so", {"Bu Wulan"}),
    ("I miss Odette already", set()),                                   # the verb, lowercase
])
def test_titles_of_address_before_a_name(text: str, want: set[str]) -> None:
    assert people(text) == want
