"""Traditional Chinese read as simplified, one character for one: the entity rules' vocabularies are written in
simplified characters (医院, 大学, 说), and a text written in traditional ones (醫院, 大學, 說), or in written
Cantonese (喺, 嘅, 咗), is read through `simplified()`. Each position keeps its place, so a name found in the read
form is cut from the text as written (`as_written`): `翠峰娛樂場`, never a spelling the writer did not use.
Tables: lang/zh_t2s.json.
"""
from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources


@lru_cache(maxsize=1)
def _table() -> dict[int, str]:
    raw = json.loads(resources.files("memoryd.tiers.knowledge").joinpath("lang/zh_t2s.json").read_text("utf-8"))
    pairs = {}
    for key in ("t2s", "yue"):  # written Cantonese last: 係 is read as 是, not as the 系 of 關係
        chars = list(raw[key])  # from, to, from, to, …
        pairs.update(zip(chars[0::2], chars[1::2]))
    return str.maketrans(pairs)


def simplified(text: str) -> str:
    """`text` with each traditional character written as its simplified one (the same length, every place kept)."""
    return text.translate(_table())


def as_written(name: str, read: str, text: str) -> str:
    """`name`, found in `read` (the simplified form of `text`), as `text` writes it."""
    if read is text:
        return name
    at = read.find(name)
    return text[at:at + len(name)] if at >= 0 else name
