"""The change vocabularies of every language (tiers/knowledge/lang/<code>.json), loaded once: the words and
phrases change.py, moved_day.py, back_again.py, rescheduled.py and retrieval's latest band read by key."""
from __future__ import annotations

import functools
import json
import re
from importlib import resources

LANGUAGES = ("en", "zh")


@functools.lru_cache(maxsize=1)  # read for every clause the latest band and the review producer test
def ask_words() -> tuple[frozenset[str], tuple[str, ...]]:
    """(words, phrases) saying a value changed without naming it, every language: review questions' cue."""
    words: set[str] = set()
    phrases: list[str] = []
    for code in LANGUAGES:
        for w in _ask(code):
            (words.add(w) if w.isascii() and " " not in w else phrases.append(w))
    return frozenset(words), tuple(phrases)


@functools.lru_cache(maxsize=1)
def ask_not() -> re.Pattern[str]:
    """Phrases holding an ask word that say nothing changed ("right now", "for now", 现在就), every language, as one
    pattern over casefolded text (the review producer cuts them from every current memory it reads)."""
    said = {p.casefold() for code in LANGUAGES for p in lang_data(code).get("ask_not", ())}
    longest_first = sorted(said, key=len, reverse=True)  # "now and again" before any shorter phrase inside it
    return re.compile("|".join(map(re.escape, longest_first)) or r"(?!)")


@functools.lru_cache(maxsize=None)
def lang_data(code: str) -> dict:
    return dict(json.loads(resources.files("memoryd.tiers.knowledge").joinpath(f"lang/{code}.json").read_text("utf-8")))


@functools.lru_cache(maxsize=None)
def lang_words(key: str) -> tuple[str, ...]:
    """A word list of every language's data (`reschedule_words`, `back_to` …), longest first: the longer phrase
    is tried before a shorter one inside it."""
    return tuple(sorted({w for code in LANGUAGES for w in lang_data(code).get(key, ())}, key=len, reverse=True))


@functools.lru_cache(maxsize=None)
def words_rx(*keys: str) -> re.Pattern[str]:
    """Any word of `lang_words(key)` for each of `keys`, case-insensitive, not inside a Latin word (never matches an
    empty list); a Chinese word may stand against Latin letters (`OT更正为`, `KPI改到`)."""
    words = sorted({w for key in keys for w in lang_words(key)}, key=len, reverse=True)  # the longer phrase first
    latin = [w for w in words if _latin_end(w[:1]) and _latin_end(w[-1:])]
    # one look-around around all the Latin words (a search fails fast inside a word), each other word bounded alone
    parts = ([r"(?<![A-Za-z])(?:" + "|".join(map(re.escape, latin)) + r")(?![A-Za-z])"] if latin else []) + \
        [_bounded(w) for w in words if w not in latin]
    return re.compile(r"(?i)" + ("|".join(parts) or r"(?!)"))


def _latin_end(ch: str) -> bool:
    return ch.isascii() and ch.isalpha()


def _bounded(word: str) -> str:
    """`word` as a pattern that a Latin letter may not continue at an end where the word itself is Latin."""
    return (r"(?<![A-Za-z])" if _latin_end(word[:1]) else "") + re.escape(word) + \
        (r"(?![A-Za-z])" if _latin_end(word[-1:]) else "")


def says_change(text: str) -> bool:
    """A word saying a value changed (`now`, `moved`, 改到, 改礼拜五: ask_words, day_move_words, weekday_change),
    not `right now`."""
    said = ask_not().sub(" ", text.casefold())
    words, phrases = ask_words()
    return any(p in said for p in phrases) or bool(words.intersection(re.findall(r"[a-z']+", said))) or \
        bool(words_rx("day_move_words").search(said) or _weekday_change().search(said))


@functools.lru_cache(maxsize=1)
def _weekday_change() -> re.Pattern[str]:
    return re.compile("|".join(f"(?:{rx})" for code in LANGUAGES if (rx := lang_data(code).get("weekday_change")))
                      or "(?!)")


@functools.lru_cache(maxsize=None)
def _ask(code: str) -> tuple[str, ...]:
    return tuple(w.casefold() for w in lang_data(code).get("ask_words", ()))
