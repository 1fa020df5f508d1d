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


@pytest.mark.parametrize("text, name", [
    ("翁太話佢今晚嚟", "翁太"),      # Cantonese: Mrs 翁, before 話 (says)
    ("卓sir叫我哋加班", "卓sir"),    # a surname and `sir`
    ("韋生話要加租", "韋生"),        # Mr 韋
    ("李生说明天来", "李生"),
])
def test_a_surname_and_a_cantonese_title_is_a_person(text: str, name: str) -> None:
    assert ("person", name) in found(text)


@pytest.mark.parametrize("text", ["花生很好吃", "这个价格高太多", "他人生第一次", "今天天气太热了"])
def test_a_title_character_inside_a_word_names_no_one(text: str) -> None:
    assert not {n for kind, n in found(text) if kind == "person"}


@pytest.mark.parametrize("text, name", [
    ("收工去咗麥當勞買早餐", ("org", "麥當勞")),        # a name every speaker knows, in traditional characters
    ("個女阿晴今年升中一", ("person", "阿晴")),          # Cantonese 個女 (my daughter) before her familiar name
    ("我儿子阿皓下周考试", ("person", "阿皓")),
])
def test_a_known_name_and_a_childs_familiar_name_are_found_in_any_script(text: str, name: tuple[str, str]) -> None:
    assert name in found(text)
