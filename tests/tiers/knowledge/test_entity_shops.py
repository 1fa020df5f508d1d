"""A Chinese shop named by its owner and its trade is an organisation; a trade word after words that are no name
(homemade, hometown, a notebook, an aunt) names no shop."""
from __future__ import annotations

import pytest

from memoryd.tiers.knowledge.entity_rules import extract


def orgs(text: str) -> set[str]:
    return {e.name for e in extract(text) if e.type == "org"}


@pytest.mark.parametrize("text, shop", [
    ("今天去阿茂海鲜拿货，价格又涨了", "阿茂海鲜"),          # a familiar name: 阿 and a character
    ("樊家牛油这周送货晚了两天", "樊家牛油"),               # a surname and 家
    ("中午在胜记面馆随便吃了点", "胜记面馆"),               # a character and 记
    ("我们今天去勝記燒臘吃飯", "勝記燒臘"),                 # traditional, kept as written
])
def test_a_shop_named_by_its_owner_and_trade_is_an_organisation(text: str, shop: str) -> None:
    assert shop in orgs(text)


@pytest.mark.parametrize("text", [
    "我妈寄了点自家腊味过来",       # homemade
    "老家海鲜就是便宜",             # the hometown's seafood
    "我的笔记装修那段写完了",       # a notebook
    "阿姨海鲜过敏，别点虾",         # an aunt
])
def test_a_trade_word_after_words_that_are_no_name_names_no_shop(text: str) -> None:
    assert not any(name.endswith(("腊味", "海鲜", "装修")) for name in orgs(text))


@pytest.mark.parametrize("text, firm", [
    ("这批货改从祥瑞纸业进，便宜一点", "祥瑞纸业"),          # after a verb: the trade name starts the firm
    ("样品寄到嘉荣陶瓷厂了", "嘉荣陶瓷厂"),                  # 厂 after the trade word is part of the name
    ("盛昌冷库那边说下周满仓", "盛昌冷库"),
])
def test_a_trade_name_of_good_fortune_before_its_trade_is_a_firm(text: str, firm: str) -> None:
    assert firm in orgs(text)
    assert not any(name.endswith(firm) and name != firm for name in orgs(text))


@pytest.mark.parametrize("text", [
    "这个厂去年换了老板",               # a trade word alone
    "我想开个小玩具厂",                 # no trade name before it
])
def test_a_trade_word_without_a_trade_name_names_no_firm(text: str) -> None:
    assert not any(name.endswith(("厂", "玩具厂")) for name in orgs(text))
