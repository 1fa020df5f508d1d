"""A change back said without its from-to: "the pony's feed: from <A> to <B>", later "she's back on <A> as of today"
(换回<A>, 改回<A>, 改回来 还是<A>). The memory that stated <A> and was replaced by the change to <B> states what is
true again, so the maintain pass leaves it current (maintain._back_again reads a change back said as a from-to
itself).

Right or silent: the later memory names <A> right after a word of going back (`back_to` in lang/<code>.json:
back on, switched back to, 换回, 改回 …); a plain `back to` / `back with` / 又回到 (`back_to_now`) also needs a word
of now (`now_words`: now, as of, again …), since "went back to <place>" is a trip, not a change — unless <A> is an
amount (`back to $3.15`, 又回到12块): no trip goes back to one; and it names <B>, the value it goes back from, or,
after a word that can only mean a change back (改回, switched back to, or a plain one before an amount), the thing
the change to <B> named (`发货时效改回<A>`).
"""
from __future__ import annotations

import functools
import re
from typing import Any, Callable, Iterable, Mapping

from memoryd.tiers.knowledge.change import Cue, cues, names_thing, spoken, states
from memoryd.tiers.knowledge.change_value import names_value, one_day
from memoryd.tiers.knowledge.lang_words import lang_words, words_rx

Memory = Mapping[str, Any]


@functools.lru_cache(maxsize=4096)
def _back_to(value: str, firm: bool) -> re.Pattern[str]:
    words = lang_words("back_to" if firm else "back_to_now")
    lead = r"(?<![A-Za-z])(?:" + "|".join(map(re.escape, words)) + r")(?:\s+(?:the|her|his|my|our|their))?\s*"
    fill = lang_words("back_to_fill")  # 改回来 还是<A>: the value said after the verb
    if fill:
        lead += r"(?:(?:" + "|".join(map(re.escape, fill)) + r")[\s，,、]*){0,2}"
    return re.compile("(?i)" + lead + re.escape(one_day(value)) + r"(?![A-Za-z])")


def says_back(text: str, value: str) -> bool:
    """`text` says a thing goes back to `value` (a word of going back right before it; `back on Wednesdays` goes
    back to Wednesday)."""
    said = one_day(spoken(text))
    if _firm_back(said, value):
        return True
    return bool(lang_words("back_to_now")) and bool(_back_to(value, False).search(said)) and \
        words_rx("now_words").search(said) is not None


# an amount (`$3.15`, `12块`, `25 mg`, `6点半`): a plain `back to` before one is a change back, since no trip goes
# back to an amount (`went back to 12 Elm St` may be a trip: an address is no amount)
_AMOUNT = re.compile(r"^[$€£¥]?\d[\d.,:]*\s?[^\s\d]{0,3}$")


def _firm_back(said: str, value: str) -> bool:
    """A word that can only mean a change back right before `value`, or a plain one (`back to`, 又回到) before an
    amount."""
    return _back_to(value, True).search(said) is not None or \
        (bool(_AMOUNT.match(value)) and bool(lang_words("back_to_now")) and
         _back_to(value, False).search(said) is not None)


def restored(old: Memory, new: Memory, holding: Callable[[str], Iterable[Memory]],
             after: Callable[[Memory, Memory], bool]) -> bool:
    """A memory said after `new` goes back to the value of `old` that `new` replaced (see the module's rules).
    `holding(value)`: the memories that may name a value (an index lookup, not a scan)."""
    said_old = spoken(str(old.get("text", "")))
    for cue in cues(str(new.get("text", ""))):
        if not cue.act or not cue.new or not states(said_old, cue):
            continue
        for m in holding(cue.old):
            text = str(m.get("text", ""))
            if m.get("id") not in (old.get("id"), new.get("id")) and after(new, m) and \
                    says_back(text, cue.old) and (_names_new(spoken(text), cue.new) or _firm_of_thing(text, cue)):
                return True
    return False


def _firm_of_thing(text: str, cue: Cue) -> bool:
    """`<the thing>改回<A>`: a word that can only mean a change back (changed back to, 改回), right before <A>, with
    the thing the change to <B> named (its words before the cue): it goes back from <B> without naming it."""
    said = spoken(text)
    return bool(cue.thing) and _firm_back(one_day(said), cue.old) and names_thing(cue.thing, said)


def _names_new(text: str, new: str) -> bool:
    """`text` names the value gone back from: the cue's new value, or its head (a cue's new value may run on to the
    clause's end: "Oat Crunch for her weight — noted"): two words or more, or one that is a name, a code or Chinese."""
    words = new.split()
    for n in range(len(words), 0, -1):
        head = " ".join(words[:n])
        if (n >= 2 or _NAME_LIKE.match(head)) and names_value(text, head):
            return True
    return False


_NAME_LIKE = re.compile(r"^(?:[A-Z][\w'’-]{2,}|[\w-]*\d[\w-]*|[\u4e00-\u9fff]{2,}.*)$")
