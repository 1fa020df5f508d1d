"""What shape a question's answer takes: "how much", "what time", "how long", "which version/number", "which
day/when" ask for an amount, a clock time, a duration, a number, a day or a date. A memory holding something of that shape may hold the answer; one
that only names the topic ("the budget, the slip, and whether I'm overloaded") cannot, so the time rule ranks the
first × SHAPE_BOOST (time_rule.TimeRule.factor). Nothing is dropped. Shapes as data: lang/answer_shapes.json.
"""
from __future__ import annotations

import json
import re
from functools import lru_cache
from importlib import resources


@lru_cache(maxsize=4)  # read on every retrieve (whose a Chinese question asks of): from the file once
def lang_data(name: str) -> dict:
    """A vocabulary of tiers/retrieval/lang/ (`answer_shapes`, `question_words`), its `_about` keys left out
    (shared by every caller: read only)."""
    raw = json.loads(resources.files("memoryd.tiers.retrieval").joinpath(f"lang/{name}.json").read_text("utf-8"))
    return {k: v for k, v in raw.items() if not k.startswith("_")}


@lru_cache(maxsize=1)
def _shapes() -> dict[str, tuple[re.Pattern[str], re.Pattern[str]]]:
    raw = lang_data("answer_shapes")
    return {name: (re.compile(s["asks"], re.I), re.compile(s["holds"], re.I))
            for name, s in raw.items()}


@lru_cache(maxsize=256)  # a retrieve asks twice: the time rule's ranking and the placement of current values
def asked(query: str) -> tuple[re.Pattern[str], ...]:
    """The shapes the question asks for (empty: it names none), as the patterns a memory holding one matches."""
    return tuple(holds for asks, holds in _shapes().values() if asks.search(query))


def holds_any(text: str, shapes: tuple[re.Pattern[str], ...]) -> bool:
    return any(p.search(text) for p in shapes)


@lru_cache(maxsize=256)
def asks_when(query: str) -> bool:
    """The question asks for a day or a clock time ("when", "what date", 哪天, "what time")."""
    shapes = _shapes()
    return any(shapes[name][0].search(query) for name in ("day", "clock") if name in shapes)


_NO_ONE = ("day", "clock", "duration", "amount", "number")  # shapes no person's name takes


def of_no_one(value: str) -> bool:
    """A value that is a day, a time, a duration, an amount or a number: whatever it is, it answers no "who"."""
    shapes = _shapes()
    return any(shapes[name][1].search(value) for name in _NO_ONE if name in shapes)


@lru_cache(maxsize=256)
def asks_who(query: str) -> bool:
    """The question asks for a person ("who coaches …", 谁, 邊個)."""
    return bool(re.search(lang_data("question_words")["asks_who"], query, re.I))


@lru_cache(maxsize=256)
def asks_where(query: str) -> bool:
    """The question asks for a place ("where is …", 在哪儿, 邊度)."""
    return bool(re.search(lang_data("question_words")["asks_where"], query, re.I))


@lru_cache(maxsize=1)
def _day_kinds() -> tuple[re.Pattern[str], dict[str, str]]:
    kinds = lang_data("question_words")["day_kinds"]
    form_of = {form: kind for kind, forms in kinds.items() for form in forms}
    words = sorted(form_of, key=len, reverse=True)
    return re.compile("|".join(rf"\b{w}\b" if w.isascii() else w for w in words), re.I), form_of


def day_kinds(text: str) -> frozenset[str]:
    """The days a text speaks of (weekday, weekend, Monday … Sunday), however written, each with what holds it or
    what it holds (Saturday: the weekend; weekdays: Monday … Friday), so a weekday's line meets a Monday question."""
    rx, form_of = _day_kinds()
    said = {form_of[m.group(0).casefold()] for m in rx.finditer(text)}
    return frozenset(said.union(*(_DAY_GROUPS.get(k, ()) for k in said)))


_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday")
DAYS_OF_WEEK = frozenset((*_WEEKDAYS, "saturday", "sunday"))
_DAY_GROUPS = {"weekday": _WEEKDAYS, "weekend": ("saturday", "sunday"), "saturday": ("weekend",),
               "sunday": ("weekend",), **{d: ("weekday",) for d in _WEEKDAYS}}
