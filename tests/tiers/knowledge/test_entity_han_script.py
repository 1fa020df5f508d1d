"""Names in traditional characters and written Cantonese are read by the same (simplified) vocabularies, and kept
as written: one character for one, every place kept."""
from __future__ import annotations

import pytest

from memoryd.tiers.knowledge.entity_rules import extract
from memoryd.tiers.knowledge.han_script import as_written, simplified


def found(text: str) -> set[tuple[str, str]]:
    return {(e.type, e.name) for e in extract(text)}


def test_a_text_is_read_simplified_one_character_for_one() -> None:
    text = "蕙芝喺聖德醫院做護士，佢話琴日好忙。"
    read = simplified(text)
    assert read == "蕙芝在圣德医院做护士，他话琴日好忙。" and len(read) == len(text)
    assert as_written("圣德医院", read, text) == "聖德醫院"
    assert simplified("苏禾在澄湾医院上班") == "苏禾在澄湾医院上班"  # simplified text reads as it is


@pytest.mark.parametrize("text, name", [
    ("蕙芝喺聖德醫院做護士", ("org", "聖德醫院")),             # a hospital, traditional, after Cantonese 喺
    ("阿岚而家喺青洲理工學院讀夜校", ("org", "青洲理工學院")),
    ("佢喺翠峰娛樂場返工，做咗三年", ("org", "翠峰娛樂場")),     # a casino is a body too
    ("苏禾在澄湾医院上班", ("org", "澄湾医院")),                # simplified: as before
])
def test_a_name_in_traditional_or_cantonese_writing_is_found_as_written(text: str, name: tuple[str, str]) -> None:
    assert name in found(text)


@pytest.mark.parametrize("text", ["我啱啱先返到屋企", "澳門有好多娛樂場", "我去了娱乐场玩"])
def test_words_of_cantonese_and_of_quantity_are_no_names(text: str) -> None:
    assert not {n for kind, n in found(text) if kind in ("person", "org")}
