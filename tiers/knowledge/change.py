"""A change of a value, read only where the words say it: a statement that names the value it replaces.

"switched the booking app from Heroku to Fly", "Fly instead of Heroku", "no longer at Kestrel", "it's Thursday,
not Tuesday", "从 MySQL 换成 Postgres", "不再用 Kafka": the cue names the old value, so the memory it replaces is
one that states that value, about the same thing (it shares a word of the clause besides the two values), said
earlier, and not naming the new value itself. Anything less explicit ("the standup is at 10 now") changes
nothing here: the words alone cannot say which memory it replaces, so it is left as said (right or silent).

The cues are data, one file per language (tiers/knowledge/lang/*.json). A turn's speaker label ("Lena: …") is
cut before reading: a speaker is never the subject of what they say. One grammar for store, maintain and
retrieve: truth.place and maintain.derive both call `replaced`.
"""
from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass
from importlib import resources
from typing import Any, Iterable, Mapping, Sequence

from memoryd.tiers.retrieval import analyzer

LANGUAGES = ("en", "zh")
_SPEAKER = re.compile(r"^\s*(?:[-*]\s+)?[^\s:：]{1,24}(?:\s[^\s:：]{1,24})?\s*[:：]\s+(?=\S)")
_LABEL = re.compile(r"^[WBOS](?:\([^)]*\))?\s+(?:@[\w.\-]+[:：]?\s*)*")
_CLAUSE = re.compile(r"(?<=[.!?;。！？；])\s*|\s+(?:but|and then|so now)\s+|\n")
_DISTINCT = re.compile(r"[A-Z0-9\u3400-\u9fff._\-/@#:]")
_QUESTION = re.compile(r"[?？]\s*$")
_PARTS = re.compile(r"[.;!?。；！？]\s*|,\s+(?:and\s+)?|，|、|\s+and\s+")
_VALUE = re.compile(r"\d|\b[A-Z][\w\-]+\b(?<!^I)|[\u3400-\u9fff]{2,}")


@dataclass(frozen=True)
class Cue:
    """One clause naming a value it replaces: the old value, the new one (when said), the clause's other terms."""

    old: str
    new: str
    anchors: frozenset[str]
    clause: str


@dataclass(frozen=True)
class _Lang:
    patterns: tuple[re.Pattern[str], ...]    # need a change word in the clause
    alone: tuple[re.Pattern[str], ...]       # enough by themselves
    change_words: frozenset[str]
    filler: frozenset[str]


@functools.lru_cache(maxsize=None)
def _lang(code: str) -> _Lang:
    data = json.loads(resources.files("memoryd.tiers.knowledge").joinpath(f"lang/{code}.json").read_text("utf-8"))
    value = data["value"]

    def compile_all(key: str) -> tuple[re.Pattern[str], ...]:
        return tuple(re.compile(p.replace("{V}", value), re.IGNORECASE) for p in data[key])
    return _Lang(compile_all("patterns"), compile_all("patterns_alone"), frozenset(data["change_words"]),
                 frozenset(w.casefold() for w in data["filler_words"]))


def spoken(text: str) -> str:
    """The words of a memory without its speaker's label or a Retain line's label: what it says, not who."""
    return _SPEAKER.sub("", _LABEL.sub("", text.strip()), count=1)


def _trim(phrase: str, filler: frozenset[str]) -> str:
    words = phrase.strip(" '\"“”‘’").split()
    while words and words[0].casefold() in filler:
        words.pop(0)
    while words and words[-1].casefold() in filler:
        words.pop()
    out = " ".join(words)
    for f in sorted((f for f in filler if not f.isascii()), key=len, reverse=True):
        out = out.removeprefix(f).removesuffix(f)
    return out.strip()


def distinctive(value: str) -> bool:
    """A value precise enough to find the memory it replaces: a name, a code, a number, Chinese words, or two
    words and more ("Postgres 16", "Fly.io", "江汉路", "Tuesday evening")."""
    if not value or len(value) > 60:
        return False
    return len(value.split()) >= 2 or bool(_DISTINCT.search(value)) or len(value) >= 6


def cues(text: str) -> list[Cue]:
    """Every clause of `text` that names a value it replaces."""
    out: list[Cue] = []
    for clause in (c.strip() for c in _CLAUSE.split(spoken(text)) if c and c.strip()):
        if _QUESTION.search(clause):
            continue  # "did you switch from X to Y?" asks; it tells nothing
        words = {w.casefold() for w in re.findall(r"[A-Za-z']+", clause)}
        for code in LANGUAGES:
            lang = _lang(code)
            found = [m for p in lang.alone for m in p.finditer(clause)]
            if words & lang.change_words:
                found += [m for p in lang.patterns for m in p.finditer(clause)]
            for m in found:
                old = _trim(m.group("old"), lang.filler)
                new = _trim(m.groupdict().get("new") or "", lang.filler)
                if not distinctive(old) or old.casefold() == new.casefold():
                    continue
                rest = clause[:m.start("old")] + " " + clause[m.end("old"):]
                if new:
                    rest = rest.replace(m.group("new"), " ")
                anchors = frozenset(analyzer.terms(rest)) - _cue_terms(code) - set(analyzer.terms(old + " " + new))
                out.append(Cue(old, new, anchors, clause))
    return out


@functools.lru_cache(maxsize=None)
def _cue_terms(code: str) -> frozenset[str]:
    lang = _lang(code)
    extra = "instead longer anymore replace swap trade actual correct sorry wait mean".split()
    return frozenset(t for w in (*lang.change_words, *lang.filler, *extra) for t in analyzer.terms(w))


@functools.lru_cache(maxsize=4096)
def _has(text: str, value: str) -> bool:
    """`value` in `text` as whole words (anywhere inside Chinese), case-folded."""
    v = value.casefold()
    left = r"(?<![\w])" if v[:1].isascii() and v[:1].isalnum() else ""
    right = r"(?![\w])" if v[-1:].isascii() and v[-1:].isalnum() else ""
    return re.search(left + re.escape(v) + right, text.casefold()) is not None


WHOLE, PART = "whole", "part"


def states(memory_text: str, cue: Cue) -> str | None:
    """Whether a memory states the value `cue` replaces, about the same thing: it names the old value, not the
    new one, shares a word of the cue's clause besides the values, and asks nothing. PART when it also states
    something else in another clause (a name, a number, a code): that other fact stays current, so the memory is
    updated in part, not superseded; WHOLE otherwise; None when it does not state the old value."""
    said = spoken(memory_text)
    if _QUESTION.search(said) or not _has(said, cue.old) or (cue.new and _has(said, cue.new)):
        return None
    if not cue.anchors & set(analyzer.terms(said)):
        return None
    others = [c for c in _PARTS.split(said) if c.strip() and not _has(c, cue.old)]
    return PART if any(_VALUE.search(c) for c in others) else WHOLE


Memory = Mapping[str, Any]


def replaced(new: Memory, held: Iterable[Memory], earlier: Any) -> list[tuple[Memory, Cue, str]]:
    """The held memories `new` replaces (WHOLE) or updates in part (PART), with the cue that says so.
    `earlier(a, b)`: a was said before b."""
    found = cues(str(new.get("text", "")))
    if not found:
        return []
    out = []
    for m in held:
        if m.get("id") == new.get("id") or not earlier(m, new):
            continue
        for c in found:
            how = states(str(m.get("text", "")), c)
            if how is not None:
                out.append((m, c, how))
                break
    return out


def lookup_terms(text: str) -> Sequence[str]:
    """Terms to find the memories a text may replace (its cues' old values), or none when it has no cue."""
    return list(dict.fromkeys(t for c in cues(text) for t in analyzer.terms(c.old)))
