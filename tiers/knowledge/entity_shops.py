"""Chinese shops named by their owner and their trade (`阿X海鲜`, `老X腊味`, `X家牛油`, `X记面馆`): the part before
the trade must have a name's form (a familiar name, a surname and 家, a character and 记), so `自家腊味`, `老家海鲜`
and `笔记装修` name no shop. A firm's trade name of two characters of good fortune before its trade (`祥瑞纸业`,
`嘉荣陶瓷厂`) names a firm wherever it stands. Vocabularies: lang/entities_zh.json (`shop_trades`, `_about_shops`,
`firm_name_chars`, `firm_trades`, `_about_firms`)."""
from __future__ import annotations

import re
from functools import lru_cache
from typing import Callable

from memoryd.tiers.knowledge.entity_vocab import vocabulary

Add = Callable[[str, str], None]
_HAN = "\u4e00-\u9fff"


@lru_cache(maxsize=1)
def _rules() -> tuple[re.Pattern[str], frozenset[str], frozenset[str], frozenset[str]]:
    d = vocabulary("zh")
    surnames, trades = d["surnames"], "|".join(sorted(d["shop_trades"], key=len, reverse=True))
    owner = f"阿[{_HAN}]|[老小][{surnames}]|[{surnames}]家|[{_HAN}]记"
    edge = f"(?:(?<![{_HAN}])|(?<=[{re.escape(d['clause_breaks'])}]))"  # the name starts a word or follows a break
    return (re.compile(f"{edge}({owner})(?:{trades})"), frozenset(d["shop_not_familiar"]),
            frozenset(d["shop_not_ji"]), frozenset(w[-1] for w in d["shop_trades"]))


@lru_cache(maxsize=1)
def _firms() -> tuple[re.Pattern[str], frozenset[str]]:
    d = vocabulary("zh")
    chars, trades = d["firm_name_chars"], "|".join(sorted(d["firm_trades"], key=len, reverse=True))
    return re.compile(f"(?<![{chars}])[{chars}]{{2}}(?:{trades})(?:厂|店|行)?"), frozenset(chars)


def chinese_firms(text: str) -> list[str]:
    """The firms `text` (simplified characters) names by a trade name of good fortune and its trade."""
    rx, chars = _firms()
    if chars.isdisjoint(text):
        return []  # none of the characters: the cheap test first (ingest reads every memory)
    return [m.group(0) for m in rx.finditer(text)]


def chinese_shops(text: str, add: Add) -> None:
    """Add each shop `text` (simplified characters) names by its owner's name and trade."""
    rx, not_familiar, not_ji, trade_ends = _rules()
    if trade_ends.isdisjoint(text):
        return  # no trade word ends here: the cheap test first (ingest reads every memory)
    for m in rx.finditer(text):
        owner = m.group(1)
        if owner in not_familiar or (owner.endswith("记") and owner in not_ji):
            continue
        add("org", m.group(0))
