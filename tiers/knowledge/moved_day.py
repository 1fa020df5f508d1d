"""A day said moved without the day it replaces: "they moved my physical to December 3" pairs with the older memory
that gave the physical another day ("Annual physical with Dr Odunsi booked for November 26"); read by the maintain
pass only. Acting (acts(): where both name one same thing by its name) it updates in part: the doctor and the time stay
true, the day is history.

The rules of hot's moved items (tiers/knowledge/rescheduled.py), stricter, on memories: the newer one says a word
of moving a day (`day_move_words`: moved, pushed, postponed, 改到, 推迟 …; not now, actually, changed) and names a
day (a date, not "tomorrow" or "Wednesday": which day those are depends on when they were said); the older one was
said before it, asks nothing, is no letter or digest (at most OLD_MAX characters), names another day, and the two
share at least SHARED_TERMS terms naming the thing, one in the clause that moves the day (speaker labels, days,
numbers and the change words do not count). One shared word ("deadline") names no particular thing: silent.
"""
from __future__ import annotations

import datetime as dt
import re
from typing import Any, Callable, Iterable, Mapping

from memoryd.tiers.knowledge.change import label, spoken
from memoryd.tiers.knowledge.lang_words import says_change, words_rx
from memoryd.tiers.knowledge.kinds import SUMMARY, kind_of
from memoryd.tiers.knowledge.rescheduled import SHARED_TERMS, thing_terms
from memoryd.tiers.retrieval import analyzer

Memory = Mapping[str, Any]
RULE = "moved-day"  # the change_rule it writes (the maintain pass reads it: one place, not at every store)
# It asks, and acts only where the two memories name one same thing by its name (acts()): scored blind on four
# conversations written after it (session 7's last batch) its pairs were right 12 times in 19 (0.63); over the 122
# files of the thirtieth batch, 203 in 232 (0.875), and of those naming one same entity, label or id and neither
# naming one the other does not, 53 in 53; with a word of the thing in the clause moving the day as well, acting
# added 43 updates over the 126 files, all right. The other pairs become review questions (maintain.asked).
OLD_MAX = 300       # characters: a longer memory (a letter, a pasted email) names many days of many things


def _cue() -> re.Pattern[str]:
    return words_rx("day_move_words")


def acts(new: Memory, old: Memory) -> bool:
    """The rule acts on this pair: both name one same thing by its name (an entity the rules read, the entity a
    Retain line is kept under, an id like QX-208) and neither names one the other does not. A shared word of a
    thing (`closing`, `concert`, 体检) with two names (two clients, two choirs) is two things: it only asks."""
    a, b = _named(old), _named(new)
    if not a & b or (a - b and b - a):
        return False
    said_new, said_old = spoken(str(new.get("text", ""))), spoken(str(old.get("text", "")))
    moving = thing_terms(moving_clause(str(new.get("text", "")), fine=True))
    names = _name_terms(said_new) | _name_terms(said_old) | {t for n in a | b for t in analyzer.terms(n)}
    return bool((thing_terms(said_new) & thing_terms(said_old) & moving) - names)  # a word of the thing, not a name,
    # in the clause moving the day (`开题报告交了 Orwell老师说还行 结题材料提交改到<day>` moves the report, not the proposal)


def moving_clause(text: str, fine: bool = False) -> str:
    """The clauses of a memory that move a day (a word of moving in them): what the move is of. `fine`: a space
    typed between Han words ends a clause too (acting asks that much)."""
    return " ".join(c for c in (_FINE_CLAUSES if fine else _CLAUSES).split(spoken(text)) if _cue().search(c))


def _named(m: Memory) -> set[str]:
    from memoryd.tiers.knowledge.entity_rules import extract  # the rule modules load with the first store

    text = str(m.get("text", ""))
    out = {e.name.casefold() for e in extract(spoken(text)) if e.type in _NAMED_KINDS}
    out |= {c.casefold() for c in _CODE.findall(text)}
    kept_under = label(text)
    return out | {kept_under} if kept_under else out


_NAMED_KINDS = ("person", "org", "project", "place")
_FINE_CLAUSES = re.compile(r"[,;，；。!?！？]\s*|\.\s+|(?<=[\u4e00-\u9fff])\s+")  # a space typed between Han words too
_CODE = re.compile(r"\b[A-Z]{1,5}-?\d+[\w-]*\b")  # QX-208, RJ4410, ZT-07: a case's, a boat's, a style's id


def why(new: Memory, day: str) -> str:
    return f"its day moved to {day}: said in {str(new.get('text', ''))[:120]!r}"


def _ref(m: Memory, said: Callable[[Memory], str]) -> dt.date:
    try:
        return dt.date.fromisoformat(said(m)[:10])
    except ValueError:
        return dt.date(1970, 1, 1)


def _day(text: str, ref: dt.date) -> str | None:
    from memoryd.tiers.distillation.fact_rules import named_date  # the rule modules load with the first store

    return named_date(text, ref)


def moved_to(new: Memory, said: Callable[[Memory], str]) -> str | None:
    """The day `new` says something moved to (ISO), or None: no word of change, no day, or a question."""
    text = spoken(str(new.get("text", "")))
    if text.rstrip().endswith(("?", "？")) or not _cue().search(text):
        return None
    return _day(text, _ref(new, said))


def updated(new: Memory, day: str, held: Iterable[Memory], earlier: Callable[[Memory, Memory], bool],
            said: Callable[[Memory], str]) -> list[Memory]:
    """The held memories whose day `new` moves to `day` (see the module's rules)."""
    said_new = spoken(str(new.get("text", "")))
    terms = thing_terms(said_new)
    if len(terms) < SHARED_TERMS:
        return []
    names = _name_terms(said_new)
    moving = thing_terms(" ".join(c for c in _CLAUSES.split(said_new) if _cue().search(c)))  # the clause moving it
    out = []
    for m in held:
        text = spoken(str(m.get("text", "")))
        if m.get("id") == new.get("id") or len(text) > OLD_MAX or text.rstrip().endswith(("?", "？")) \
                or not earlier(m, new):
            continue
        shared = terms & thing_terms(text)
        if _words(shared) < SHARED_TERMS or not shared - names or not shared & moving:
            continue  # names say whose it is (`at Wendle Valley`), a common word what it is (`physical`); the clause
            # that moves a day names what it moves (`所以我们班家长会挪到9月24日`: the parent meeting, no school year)
        ref = _ref(m, said)
        old = _day(text, ref)
        if old is None or old == day or _day(said_new, ref) != day or day in _days(text, ref):
            continue  # no day, the same one, or it names the new day already (a restatement of the move)
        others = _days(said_new, ref) - {day}
        if (others and old not in others) or (not others and old in _days(said_new, ref)):
            continue  # the newer one names the day it moves from (`由3月8日推迟到3月15日`) and it is not this one's,
            # or it names this one's day as still holding (`妈妈12月8号`)
        out.append(m)
    return out


def _days(text: str, ref: dt.date) -> set[str]:
    """Every day a text names, clause by clause."""
    from memoryd.tiers.distillation.fact_rules import named_date

    found = set()
    for part in re.split(r"[,;，；。.!?、到至]\s*|\s(?:to|from|until|till)\s", text):
        if part and (d := named_date(part, ref)):
            found.add(d)
    return found


def _words(terms: frozenset[str]) -> int:
    """How many words the shared terms make: each Latin term one; Chinese bigrams that chain (林一, 一舟) one word
    (林一舟), so one three-character name or noun is not two things shared."""
    han = sorted(t for t in terms if not t.isascii() and len(t) == 2)
    parent = {t: t for t in han}

    def root(t: str) -> str:
        while parent[t] != t:
            t = parent[t]
        return t
    for a in han:
        for b in han:
            if a != b and a[1] == b[0]:
                parent[root(b)] = root(a)
    return len(terms) - len(han) + len({root(t) for t in han})


_CLAUSES = re.compile(r"[,;，；。!?！？]\s*|\.\s+")
_CAPITALISED = re.compile(r"\b[A-Z][\w'’-]*")


def _name_terms(text: str) -> frozenset[str]:
    """The terms of the capitalised words of a text: names (of people, places, organisations) more than things."""
    return frozenset(t for w in _CAPITALISED.findall(text) for t in analyzer.terms(w))


# a boat's or a case's number (05199, KG-412), no year
_ID = re.compile(r"(?<![A-Za-z0-9])(?!(?:19|20)\d\d(?![A-Za-z0-9]))[A-Za-z]*\d{3,}[A-Za-z0-9-]*")


def moved_since(new: Memory, old: Memory, said: Callable[[Memory], str]) -> bool:
    """`new`, said on a later day than `old`, moves the thing `old` gives a day to a day `old` does not name
    ("…又改期，改到7月9号" after "…由6月18号改到7月2号"): `old` may hold no current day. Looser than `updated`
    (ids count as shared terms, one word of the thing with an id is enough): it only keeps a retrieve from
    saying `old` holds the current value."""
    if said(new)[:10] <= said(old)[:10]:
        return False
    day = moved_to(new, said)
    text_new, text_old = spoken(str(new.get("text", ""))), spoken(str(old.get("text", "")))
    if day is None or len(text_new) > OLD_MAX or day in _days(text_old, _ref(old, said)):
        return False  # a summary or a letter names many days of many things
    ids = {i.casefold() for i in _ID.findall(text_new)} & {i.casefold() for i in _ID.findall(text_old)}
    return _words(thing_terms(text_new) & thing_terms(text_old)) + len(ids) >= SHARED_TERMS


def dated_since(new: Memory, old: Memory, said: Callable[[Memory], str], asked: frozenset[str]) -> bool:
    """`new`, said on a later day than `old` and no question, gives a day `old` does not name to a thing both
    name with a word of the question (`asked`): "the porch repaint's starting 11 October now, not the 4th" after
    "the porch repaint moved from 14 September to 4 October", with no word of moving. Looser than moved_since: it only
    keeps a retrieve from saying `old` holds the current day of what was asked."""
    texts = _said_after_of(new, old, said, asked)
    if texts is None:
        return False
    ref = _ref(old, said)  # both read from the older one's day: `done on 11 October`, said after, is that 11 October
    held = _days(texts[1], ref)
    day = _day(texts[0], ref)
    return bool(held) and day is not None and day not in held  # a weekday alone (`改到周四`) is no date to compare


def weekday_since(new: Memory, old: Memory, said: Callable[[Memory], str], asked: frozenset[str]) -> bool:
    """dated_since for a day of the week (`休息改礼拜五` after `休息日从周二改到周四`): `new` names a weekday `old`
    does not, after a word of change (a week's plan restating the days says none)."""
    from memoryd.tiers.retrieval.answer_shape import DAYS_OF_WEEK, day_kinds

    texts = _said_after_of(new, old, said, asked)
    if texts is None:
        return False
    held = day_kinds(texts[1]) & DAYS_OF_WEEK
    return bool(held) and bool(day_kinds(texts[0]) & DAYS_OF_WEEK - held) and says_change(texts[0])


def _said_after_of(new: Memory, old: Memory, said: Callable[[Memory], str], asked: frozenset[str]
                   ) -> tuple[str, str] | None:
    """Both memories' spoken texts when `new` was said on a later day, asks nothing, is no summary or letter, and
    names with `old` a thing in a word of the question; else None."""
    text_new, text_old = spoken(str(new.get("text", ""))), spoken(str(old.get("text", "")))
    if said(new)[:10] <= said(old)[:10] or len(text_new) > OLD_MAX or text_new.rstrip().endswith(("?", "？")) \
            or kind_of(new.get("metadata")) == SUMMARY:
        return None  # a summary or a letter names many days of many things
    return (text_new, text_old) if asked & thing_terms(text_new) & thing_terms(text_old) else None
