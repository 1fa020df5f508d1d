"""A name once found by its cue, found again where it is said bare: `Renata Kowalczyk joined` first, `Renata
covers Monday` later.

People mostly introduce a name once and then just use it. The rules (entity_rules.py) need a cue to be sure a
word is a name; once a memory of the agent gave one, the same name written the same way in another memory is
that entity too (an echo). An echo never makes a new entity, it only counts a mention of one the cues found:
precision stays the rules', and the entities that matter get the mentions that make them hot and give them a
page. Latin names match as whole words in their own case; Han names as written (two characters or more).
"""
from __future__ import annotations

import re
from functools import lru_cache
from typing import Iterable, Mapping, Sequence

from memoryd.tiers.distillation.lexicon import NOT_NAMES
from memoryd.tiers.knowledge.entity_people import is_person_name
from memoryd.tiers.knowledge.entity_rules import Entity
from memoryd.tiers.knowledge.entity_vocab import english

_TYPES = ("person", "org", "project", "place")
_HAN = re.compile(r"[\u4e00-\u9fff]")


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
                and is_person_name(words[0]) and not _common(words[0]):
            out.setdefault(words[0], Entity("person", words[0]))
    return out


@lru_cache(maxsize=8)
def _pattern(names: tuple[str, ...]) -> re.Pattern[str] | None:
    latin = [re.escape(n) for n in sorted(names, key=len, reverse=True) if not _HAN.search(n)]
    han = [re.escape(n) for n in sorted(names, key=len, reverse=True) if _HAN.search(n)]
    parts = ([r"(?<![\w@/.-])(?:" + "|".join(latin) + r")(?![\w-]|\.\w)"] if latin else []) + \
        (["(?:" + "|".join(han) + ")"] if han else [])
    return re.compile("|".join(parts)) if parts else None


def echoes(text: str, names: Mapping[str, Entity], have: Sequence[Entity]) -> list[Entity]:
    """The known entities `text` names bare, beyond those its own reading found (`have`)."""
    rx = _pattern(tuple(sorted(names)))
    if rx is None:
        return []
    keys = {e.key for e in have}
    spans = [n for e in have for n in (e.name,)]
    out: list[Entity] = []
    for m in rx.finditer(text):
        e = names.get(m.group(0))
        if e is None or e.key in keys or any(m.group(0) in s and m.group(0) != s for s in spans):
            continue  # a first name inside a full name the reading found already counts once
        keys.add(e.key)
        out.append(e)
    return out


def says_any(text: str, names: Mapping[str, Entity]) -> bool:
    """Whether `text` says one of `names` as a name (a whole word for Latin names)."""
    rx = _pattern(tuple(sorted(names)))
    return bool(rx and rx.search(text))
