"""An event or task said again with a new day replaces the one hot holds for the old day.

"Dad's check-up at the hospital, Dec 5" then "the hospital called, the check-up moved to Dec 12": both are
dated hot items and MEMORY.md would show both days. The newer item leaves the older one out of hot when
- it says a word of change (`reschedule_words` in lang/<code>.json: moved, pushed, postponed, actually, 改到,
  推迟 …) or sets its day against another (`on 1 March (not 8 March)`),
- its day differs from the older item's day, and
- the two share at least SHARED_TERMS terms naming the thing (speaker labels, days, numbers and the change words
  themselves do not count).
Precision first: one shared word ("deadline") names no particular thing, unless the newer item says the older
one's day no longer holds (`not the 19th any more`). A move said "again" (`again_words`: "deadline moved again to
Jan 17", 又改到) needs no shared word when hot's earlier items that were themselves a move all moved to one day ("they
pushed it to Jan 10", told in chat and again in a note: a pronoun names the thing); with moves to two days it is
silent. Items are weighed in the order they were said. The memories stay where they are;
only what the agent always reads loses the earlier day, with an eviction row saying which item replaced it.
"""
from __future__ import annotations

import functools
import re
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from memoryd.tiers.knowledge.change import spoken
from memoryd.tiers.knowledge.lang_words import lang_words, words_rx
from memoryd.tiers.memory.hot import DAY_SAID, day_of
from memoryd.tiers.memory.model import preview
from memoryd.tiers.retrieval import analyzer

if TYPE_CHECKING:
    from memoryd.tiers.memory.types import Eviction, HotState

SHARED_TERMS = 2
_DATE_WORD = re.compile(r"\d|[月号號日点點周週]|^(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*$|"
                        r"^(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*$|^(?:today|tomorrow|yesterday|week|next|last)$")


# a day set against the one it replaces: "on 1 March (not 8 March)", "the 21st, not the 28th", 3月19号而不是12号
_NOT_DAY = re.compile(r"(?i)\bnot\s+(?:on\s+)?(?:the\s+)?(?:\d{1,2}(?:st|nd|rd|th)?\b|"
                      r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+\d)|而不是|不是\d")


def _cue() -> re.Pattern[str]:
    return words_rx("reschedule_words")


def _again() -> re.Pattern[str]:
    return words_rx("again_words")


@functools.lru_cache(maxsize=None)
def _cue_terms() -> frozenset[str]:
    return frozenset(t for w in lang_words("reschedule_words") for t in analyzer.terms(w))


def thing_terms(text: str) -> frozenset[str]:
    """The terms that can name what a dated item or memory is about (tiers/knowledge/moved_day.py reads them too)."""
    return _thing(text)


def _thing(text: str) -> frozenset[str]:
    """The terms that can name what an item is about."""
    said = spoken(DAY_SAID.sub("", text))
    return frozenset(t for t in analyzer.terms(said)
                     if not _DATE_WORD.search(t) and (t.isascii() or len(t) >= 2)) - _cue_terms()  # no lone 的, 一


def _moves(older: Mapping[str, Any], newer: Mapping[str, Any], said: Mapping[str, float],
           one_move: Sequence[Mapping[str, Any]] = ()) -> bool:
    """`one_move`: hot's items of the one move made before, when there is one (a move said "again" moves it)."""
    said_old, said_new = said.get(str(older.get("source_id"))), said.get(str(newer.get("source_id")))
    if said_old is None or said_new is None or said_new <= said_old:
        return False  # which was said later is known only from their memories; else silent
    old_text, new_text = str(older.get("text", "")), str(newer.get("text", ""))
    old_day, new_day = day_of(old_text), day_of(new_text)
    said = spoken(new_text)
    cue = _cue().search(said)
    if old_day is None or new_day is None or old_day == new_day or not (cue or _NOT_DAY.search(said)):
        return False
    if cue and any(older is x for x in one_move) and _again().search(said):
        return True
    shared = len(_thing(old_text) & _thing(new_text))
    return shared >= SHARED_TERMS or (shared >= 1 and _negates(said, old_day))


def _one_move(items: list[dict[str, Any]], gone: set[str], day: str | None) -> list[dict[str, Any]]:
    """The items still in hot said as a move (a reschedule word and a day) to one other day than `day` — one move,
    told once or more ("they pushed it to Jan 10" in chat and in a note) — or none (none, or moves to two days or
    more: which one "again" means is not known)."""
    moved = [x for x in items if str(x.get("id")) not in gone and day_of(str(x.get("text", ""))) not in (None, day)
             and _cue().search(spoken(str(x.get("text", ""))))]
    return moved if len({day_of(str(x.get("text", ""))) for x in moved}) == 1 else []


_NOT_THE = re.compile(r"(?i)(?:\bnot|n't)\s+(?:on\s+)?(?:the\s+)?(\d{1,2})(?:st|nd|rd|th)?\b|不是(\d{1,2})[号日]")


def _negates(said: str, day: str) -> bool:
    """The newer item says the older one's day is no longer it (`not the 19th any more`, `不是19号了`): one
    shared word naming the thing is then enough."""
    return any(int(m.group(1) or m.group(2)) == int(day[8:10]) for m in _NOT_THE.finditer(said))


def sources(hot: HotState) -> list[str]:
    """The memories the dated hot items came from: when each was said orders them (sweep's `said`)."""
    return [str(x["source_id"]) for part in ("events", "tasks") for x in hot["active_context"][part]  # type: ignore
            if x.get("source_id")]


def sweep(hot: HotState, said: Mapping[str, float]) -> list[Eviction]:
    """Take out of hot every dated event or task a newer one moved to another day; the eviction rows. `said`:
    when each item's source memory was first said (valid time, not when hot took it in: a year of notes read in
    one second keeps its order)."""
    out: list[Eviction] = []
    for kind, part in (("event", "events"), ("task", "tasks")):
        items: list[dict[str, Any]] = hot["active_context"][part]  # type: ignore[assignment]
        gone: set[str] = set()
        # in the order they were said, as they were told: hot's order has ties broken by random ids, and whether
        # "again" finds exactly one earlier move depends on which moves the items said before it already took out
        for newer in sorted(items, key=lambda x: (said.get(str(x.get("source_id")), float("inf")), str(x.get("text", "")))):
            if str(newer.get("id")) in gone:
                continue
            one = _one_move([x for x in items if x is not newer], gone, day_of(str(newer.get("text", ""))))
            for older in items:
                if str(older.get("id")) not in gone and older is not newer and _moves(older, newer, said, one):
                    gone.add(str(older.get("id")))
                    out.append({"tier": "hot", "kind": kind, "id": str(older.get("id", "")),
                                "what": preview(str(older.get("text", ""))),
                                "why": f"moved to another day by {newer.get('id')}: hot shows the day it has now"})
        items[:] = [x for x in items if str(x.get("id")) not in gone]
    return out
