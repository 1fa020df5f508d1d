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
    """`value` in `text` as whole words (anywhere inside Chinese), case-folded, a day in the plural as that day.
    A search and a look at the two characters around each find: a value is looked for in many lines, and a
    pattern compiled per value cost ~4 ms (its Unicode class), more than the whole search."""
    said, v = one_day(text), one_day(value)
    if not v:
        return True  # as a search for nothing finds it
    edge_left = v[0].isascii() and v[0].isalnum()  # a Han character next to it is a break:
    edge_right = v[-1].isascii() and v[-1].isalnum()  # `又改成22度了`, `换成Postgres了`
    at = said.find(v)
    while at >= 0:
        end = at + len(v)
        if not (edge_left and at and _word(said[at - 1])) and \
                not (edge_right and end < len(said) and (_word(said[end]) or
                                                         (v[-1].isdigit() and said[end] in "万亿千百十"))):
            return True  # `38万` is no 38
        at = said.find(v, at + 1)
    return False


def _word(char: str) -> bool:
    """A character of a word that is not Han (a letter, a digit, `_`): no break beside a value."""
    return (char.isalnum() or char == "_") and not "\u3400" <= char <= "\u9fff"


names_value = has  # the name its readers use: `text` names `value` as a whole word (anywhere inside Chinese)
