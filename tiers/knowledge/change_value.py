"""A value found in a text as a whole word (anywhere inside Chinese), case-folded, a day of the week in the plural
as that day: how tiers/knowledge/change.py and back_again.py tell that a memory names a value."""
from __future__ import annotations

import functools
import re

# a day of the week in the plural is that day: `from Thursdays` replaces what `on Thursday` said
_DAYS = re.compile(r"\b((?:mon|tues|wednes|thurs|fri|satur|sun)day)s\b")


def one_day(text: str) -> str:
    """`text` case-folded, a day of the week in the plural as that day (`on Thursdays` says Thursday)."""
    return _DAYS.sub(r"\1", text.casefold())


@functools.lru_cache(maxsize=4096)
def has(text: str, value: str) -> bool:
    """`value` in `text` as whole words (anywhere inside Chinese), case-folded, a day in the plural as that day."""
    return _value_rx(value).search(one_day(text)) is not None


@functools.lru_cache(maxsize=4096)
def _value_rx(value: str) -> re.Pattern[str]:
    """has's pattern of one value, compiled once (a value is looked for in many lines; a compile costs ~0.5 ms)."""
    v = one_day(value)
    left = _NOT_AFTER if v[:1].isascii() and v[:1].isalnum() else ""  # a Han character next to it is a break:
    right = _NOT_BEFORE if v[-1:].isascii() and v[-1:].isalnum() else ""  # `又改成22度了`, `换成Postgres了`
    return re.compile(left + re.escape(v) + right)


_NOT_AFTER, _NOT_BEFORE = r"(?<![^\W\u3400-\u9fff])", r"(?![^\W\u3400-\u9fff]|(?<=\d)[万亿千百十])"  # 38万 is no 38


def names_value(text: str, value: str) -> bool:
    """`text` names `value` as a whole word (anywhere inside Chinese)."""
    return has(text, value)
