"""Restatements: when two texts say the same thing (the "Remember …" turn and the note's wording of it, a
raw turn and the fact distilled from it). A retrieve folds them into one result (tiers/retrieval/current.fold).

Two texts restate each other when, after a lead-in such as "Remember that" / "记住" is cut:
  - their normalised texts are equal, or
  - they hold the same numbers and the same polarity (a "not" on one side only is a contradiction,
    never a restatement), and their content terms (tiers/retrieval/analyzer.py: stems, no stop words)
    overlap: Jaccard ≥ JACCARD, or the smaller set lies within the larger (containment ≥ CONTAINED) while
    it is at least half its size (JACCARD_CONTAINED). A short phrase inside a long unrelated turn is not
    a restatement of it.
bench/kinds.py measured the thresholds on generated pairs (restatements, near misses, changed values).
"""
from __future__ import annotations

import functools
import re
from typing import Any, Mapping

from memoryd.tiers.memory.model import normalize_text
from memoryd.tiers.retrieval import analyzer

JACCARD = 0.75          # same words, a few more or less
CONTAINED = 1.0         # every content term of the shorter one is in the longer one
JACCARD_CONTAINED = 0.5  # ... and the shorter one is at least half of the longer one
CJK_SHARE = 0.8         # Chinese: one text inside the other, and at least this much of its length
LEAD_IN = re.compile(r"^\s*(?:(?:please\s+)?(?:remember|note|fyi|don'?t forget|keep in mind|for the record|"
                     r"just so you know|got it|noted|ok(?:ay)?|sure|i think|i believe|i guess|i suppose|i suspect|probably|maybe|"
                     r"perhaps|i'?m not sure(?: but)?|it seems(?: like)?)\b(?:\s+that\b)?[\s,:;.!—–-]*|"
                     r"(?:请)?(?:记住|记一下|注意|备注|好的|收到|我觉得|我认为|可能|大概|也许|好像|估计)[：:，,\s]*)+", re.IGNORECASE)
NEGATION = re.compile(r"\b(?:not|no|never|none|nobody|nothing|neither|nor|cannot|can't|won't|isn't|aren't|wasn't|"
                      r"weren't|don't|doesn't|didn't|shouldn't|wouldn't|couldn't|hasn't|haven't|hadn't)\b|n't\b|"
                      r"[不没别未无]", re.IGNORECASE)
NUMBER = re.compile(r"\d+(?:[.:]\d+)*")
# an identifier: letters and digits in one token (h0, INV-2231, c-note-31-0); two texts naming different ones
# are about different things however alike their other words ("a-note-5: the job on h0 finished")
IDENTIFIER = re.compile(r"(?<![A-Za-z0-9_-])(?=[A-Za-z0-9_-]*[A-Za-z])(?=[A-Za-z0-9_-]*\d)[A-Za-z0-9_-]+")
_TRAILING = ".!?。！？,，;；:："  # cut from the end with whitespace (str.isspace(), the characters of re's \s)
# a name (a capitalised word after the first) or a day or month: two texts naming different ones tell different
# values however alike their other words ("the review is on Thursday" / "… on Friday")
NAME = re.compile(r"(?<![\w'\-])[A-Z][\w'\-]*")
_DAYS = re.compile(r"(?i)\b(?:mon|tues|wednes|thurs|fri|satur|sun)day\b|\b(?:january|february|march|april|june|july|"
                   r"august|september|october|november|december)\b")


def core_text(text: str) -> str:
    """The text without its lead-in ("Remember that …") and trailing punctuation."""
    cut = LEAD_IN.sub("", text, count=1)
    return _without_trailing(cut if cut.strip() else text)


def _without_trailing(text: str) -> str:
    """`text` without the whitespace and _TRAILING punctuation it ends with, in any mix: rstrip in turns, where a
    regex of those characters anchored at the end tried a match at every character of the text."""
    while True:
        cut = text.rstrip().rstrip(_TRAILING)
        if len(cut) == len(text):
            return cut
        text = cut


def numbers_and_codes(text: str) -> list[str]:
    """The numbers and codes a text names (9443, 9:45, dp-1187), codes folded to lower case."""
    return NUMBER.findall(text) + [i.lower() for i in IDENTIFIER.findall(text)]


@functools.lru_cache(maxsize=8192)
def signature(text: str) -> tuple[str, frozenset[str], frozenset[str], int]:
    """(normalised core text, content terms, numbers and identifiers, polarity) of a text: what restates() compares."""
    core = core_text(text)
    codes = numbers_and_codes(core)
    codes += [w.lower() for w in NAME.findall(core) if w.lower() not in _NOT_NAMES()] + \
        [w.lower() for w in _DAYS.findall(core)]
    return (normalize_text(core), frozenset(analyzer.terms(core)), frozenset(codes),
            len(NEGATION.findall(core)) % 2)


@functools.lru_cache(maxsize=1)
def _NOT_NAMES() -> frozenset[str]:
    """Capitalised words that name nothing: stop words and pleasantries starting a sentence ("The", "Thanks")."""
    from memoryd.tiers.knowledge.lowvalue import FILLER_EN

    return analyzer.STOPWORDS | FILLER_EN | {"please", "remember", "note", "also", "so", "and", "but"}


@functools.lru_cache(maxsize=8192)
def restate_key(text: str) -> str:
    """A short key two texts share when they say the same words (normalised, lead-in and speaker label cut):
    what a store looks up in the local index instead of searching it."""
    import hashlib

    return hashlib.blake2b(normalize_text(core_text(text)).encode("utf-8"), digest_size=8).hexdigest()


def restates(a: str, b: str) -> bool:
    """Whether texts `a` and `b` say the same thing (see the module docstring)."""
    na, ta, da, pa = signature(a)
    nb, tb, db, pb = signature(b)
    if na == nb:
        return True
    if not ta or not tb or set(da) != set(db) or pa != pb:
        return False
    if analyzer.has_cjk(na) or analyzer.has_cjk(nb):
        short, long_ = sorted((na, nb), key=len)  # one changed character is another value (周四 / 周五):
        return short in long_ and len(short) >= CJK_SHARE * len(long_)  # the words agree, a few added at most
    common = len(ta & tb)
    union = len(ta | tb)
    if common / union >= JACCARD:
        return True
    small = min(len(ta), len(tb))
    return small >= 2 and common / small >= CONTAINED and common / union >= JACCARD_CONTAINED


def contradicts(a: str, b: str) -> bool:
    """Whether `b` says the opposite of `a`: the same content terms and numbers, the other polarity."""
    _na, ta, da, pa = signature(a)
    _nb, tb, db, pb = signature(b)
    if not ta or not tb or da != db or pa == pb:
        return False
    return len(ta & tb) / len(ta | tb) >= JACCARD


def echo(m: Mapping[str, Any]) -> bool:
    """The assistant's words (an echo of what the owner said, when it restates something)."""
    return (m.get("metadata") or {}).get("role") == "assistant"


def raw_turn(m: Mapping[str, Any]) -> bool:
    """A conversation's turn as it was said (tiers/ingest/conversation.py), not a memory distilled from it."""
    return (m.get("metadata") or {}).get("kind") == "turn"


def same_memory(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    """Two stored memories that are one: the same id, or texts that restate each other."""
    return a.get("id") == b.get("id") or restates(str(a.get("text", "")), str(b.get("text", "")))
