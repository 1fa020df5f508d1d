"""A retrieve result matched back to the generated text it came from, and a value found in a text.

A result is matched by its `source` metadata (an OpenClaw event or a note line), else by its words (a store
call, a note line as the note keeps it), else by the one value of the world it mentions. A result that
matches nothing and names several facts (a summary, a digest) states no single fact.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Iterable

from .model import Dataset, Input

_RETAIN_LABEL = re.compile(r"^[WBOS](?:\([^)]*\))?\s+")


@dataclass(frozen=True)
class Hit:
    """One ranked result as the metrics see it."""

    text: str
    input: str | None = None   # the input it was matched to
    fact: str | None = None    # the fact it states (topic=value), None when none or several
    holds: str | None = None   # fact | filler | chatter | log of the matched input; None when unmatched


def normal(text: str) -> str:
    return " ".join(text.casefold().split())


def _edge(ch: str) -> bool:
    return ch.isascii() and ch.isalnum()


def value_pattern(value: str) -> re.Pattern[str]:
    """The value as a whole word where it starts or ends with a Latin letter or digit ("July 1" is not in
    "July 15"), anywhere inside Chinese text ("上海" in "王芳现在在上海。")."""
    left = r"(?<![A-Za-z0-9])" if _edge(value[0]) else ""
    right = r"(?![A-Za-z0-9])" if _edge(value[-1]) else ""
    if _WEEKDAY.search(value):
        right = "s?" + right  # "plays Wednesdays" names Wednesday: a day that recurs is said in the plural
    return re.compile(left + re.escape(value.casefold()) + right)


_WEEKDAY = re.compile(r"(?i)(?:mon|tues|wednes|thurs|fri|satur|sun)day$")


def value_in(text: str, value: str) -> bool:
    return value_pattern(value).search(text.casefold()) is not None


def any_value_in(text: str, values: Iterable[str]) -> bool:
    return any(value_in(text, v) for v in values)


class Resolver:
    """Results of one memoryd agent → Hits; `sources` is what the writers returned (source → input id)."""

    def __init__(self, ds: Dataset, sources: dict[str, str]) -> None:
        self.inputs = {i.id: i for i in ds.inputs}
        self.sources = sources
        self.by_text: dict[str, Input] = {}
        for i in ds.inputs:
            self.by_text.setdefault(normal(i.text), i)
            self.by_text.setdefault(normal(_RETAIN_LABEL.sub("", i.text)), i)  # the note keeps "@x: …"
        self.facts = sorted({(v.fact, v.value) for v in ds.versions})

    def hit(self, result: dict[str, Any]) -> Hit:
        text = str(result.get("text", ""))
        meta = result.get("metadata") if isinstance(result.get("metadata"), dict) else {}
        found = self.inputs.get(self.sources.get(str(meta.get("source")), ""))
        found = found or self.by_text.get(normal(text))
        if found is not None:
            return Hit(text, found.id, found.fact, found.holds)
        named = {fact for fact, value in self.facts if value_in(text, value)}
        return Hit(text, None, named.pop() if len(named) == 1 else None, None)

    def hits(self, results: list[dict[str, Any]]) -> list[Hit]:
        return [self.hit(r) for r in results]

    def of_input(self, input_id: str) -> Hit:
        """The Hit of a generated text itself (the baseline ranks the inputs)."""
        i = self.inputs[input_id]
        return Hit(i.text, i.id, i.fact, i.holds)
