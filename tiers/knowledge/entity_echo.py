"""A name once found by its cue, found again where it is said bare: `Jadwiga Wrzesniak joined` first, `Jadwiga
covers Monday` later.

People mostly introduce a name once and then just use it. The rules (entity_rules.py) need a cue to be sure a
word is a name; once a memory of the agent gave one, the same name written the same way in another memory is
that entity too (an echo). An echo never makes a new entity, it only counts a mention of one the cues found:
precision stays the rules', and the entities that matter get the mentions that make them hot and give them a
page. Latin names match as whole words in their own case; Han names as written (two characters or more).
"""
from __future__ import annotations

import re
from typing import Iterable, Mapping, Sequence

from memoryd.tiers.distillation.lexicon import NOT_NAMES
from memoryd.tiers.knowledge.entity_people import is_person_name, title
from memoryd.tiers.knowledge.entity_rules import Entity
from memoryd.tiers.knowledge.entity_vocab import english

_TYPES = ("person", "org", "project", "place")
_HAN = re.compile(r"[\u4e00-\u9fff]")
_SPEAKER = re.compile(r"\s*(?:[-*]\s+)?([^\s:：]{1,40}(?:\s[^\s:：]{1,40})?)\s?[:：]\s")


def _common(word: str) -> bool:
    v = english()
    return word in NOT_NAMES or word in v.not_people or word.casefold() in v.products or word in v.acronyms


def echoable(e: Entity) -> bool:
    """A name distinctive enough to be found bare: not a common word, at least three letters (two Han)."""
    if e.type not in _TYPES:
        return False
    if _HAN.search(e.name):
        return len(e.name) >= 2 and e.name.strip() == e.name
    return len(e.name) >= 3 and not _common(e.name) and any(c.isupper() or c == "-" for c in e.name)


def names_of(ents: Iterable[Entity]) -> dict[str, Entity]:
    """name as written → entity, for every echoable entity; a two-word person also by their first name (folded
    into the full name when entities are listed, entity_fold.py)."""
    out: dict[str, Entity] = {}
    for e in ents:
        if not echoable(e):
            continue
        out.setdefault(e.name, e)
        words = e.name.split()
        if e.type == "person" and len(words) == 2 and words[0][:1].isupper() and len(words[0]) >= 3 \
                and is_person_name(words[0]) and not _common(words[0]) and not title(words[0]):
            out.setdefault(words[0], Entity("person", words[0]))
    return out


class _Finder:
    """Every known name found in one C pass (pyahocorasick): a few thousand names cost what one does."""

    def __init__(self, names: tuple[str, ...]) -> None:
        import ahocorasick

        self.auto = ahocorasick.Automaton()
        for n in names:
            self.auto.add_word(n, n)
        self.auto.make_automaton()

    def found(self, text: str) -> list[str]:
        """Names said in `text`, longest first where two start at one place; Latin ones as whole words."""
        best: dict[int, str] = {}
        for end, name in self.auto.iter(text):
            start = end - len(name) + 1
            if not _HAN.search(name) and not _whole_word(text, start, end + 1):
                continue
            if len(name) > len(best.get(start, "")):
                best[start] = name
        label = _SPEAKER.match(text)  # `Teo: …`: who speaks a line is not what it is about
        if label:
            best.pop(label.start(1), None)
        out, reach = [], -1
        for start in sorted(best):
            if start > reach:  # a first name inside a full name found at the same place is that name
                out.append(best[start])
                reach = start + len(best[start]) - 1
        return out


def _whole_word(text: str, start: int, end: int) -> bool:
    before = text[start - 1] if start > 0 else " "
    after = text[end] if end < len(text) else " "
    nxt = text[end + 1] if end + 1 < len(text) else " "
    return not (before.isalnum() or before in "_@/.-") and not (after.isalnum() or after in "_-") and \
        not (after == "." and nxt.isalnum())


class Known:
    """The names to echo and their finder, built once for a batch of memories."""

    def __init__(self, names: Mapping[str, Entity]) -> None:
        self.names = dict(names)
        self.finder = _Finder(tuple(sorted(self.names))) if self.names else None

    def echoes(self, text: str, have: Sequence[Entity]) -> list[Entity]:
        """The known entities `text` names bare, beyond those its own reading found (`have`)."""
        if self.finder is None:
            return []
        keys = {e.key for e in have}
        spans = [e.name for e in have]
        out: list[Entity] = []
        for said in self.finder.found(text):
            e = self.names[said]
            if e.key in keys or any(said in s and said != s for s in spans):
                continue  # a first name inside a full name the reading found already counts once
            keys.add(e.key)
            out.append(e)
        return out

    def said_in(self, text: str) -> bool:
        """Whether `text` says one of the names as a name (a whole word for Latin names)."""
        return bool(self.finder and self.finder.found(text))
