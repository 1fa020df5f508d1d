"""Vietnamese names in English text: a given name written with its tones (`Huỳnh`, `Thương`, `Dũng`) is one word
of a name, and a word of address before it (`anh Lộc`, `chị Nguyệt`, `em Thư`, `bác Sáu`) says it is a person, as
`Mr` does; each with a near miss. Every sentence is written here, none from a corpus."""
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
