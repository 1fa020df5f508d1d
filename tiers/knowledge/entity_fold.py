"""One entity per thing when memories name it two ways: `Jonas` with `Jonas Vogt`, a name read as a place and a person.

Folded when read, never stored (the mention tables stay a plain record of what each memory said, so a forget
or a pull stays exact): a one-word person, organisation or place joins the one multi-word person, place or
organisation that has that word as a name (`Jonas` → `Jonas Vogt`, `Odunsi` → `Hannah Odunsi`, `Acme` →
`Acme Systems`, never `Systems`; a place never joins an organisation named after it, `Portwenna Rowing Club`),
never when two full names share it (`Jonas Vogt`, `Jonas Hemmerle`: `Jonas` stays apart); a name of two words or
more that starts the one longer name joins it
(`Harbour Medical` → `Harbour Medical Supplies`); and one name of several kinds is the kind its strongest cue gave
(a project or repo, then an organisation, a person, a place). A folded entity's mentions and hotness are
counted again over the memories of all its names, each memory once.
"""
from __future__ import annotations

from collections import defaultdict
from functools import lru_cache
from typing import Iterable, Sequence

from memoryd.tiers.knowledge.entity_kin import relation_of
from memoryd.tiers.knowledge.entity_vocab import english

_ORDER = {"repo": 0, "project": 0, "org": 1, "person": 2, "place": 3}
_WEAK = ("place",)
HIDDEN = ""  # the head of a weak reading that could be any of several full names: listed nowhere


def _name(key: str) -> str:
    return key.partition(":")[2]


def groups(rows: Iterable[tuple[str, str, str, int]]) -> dict[str, list[str]]:
    """(key, name, type, mentions) rows → the key that stands for each group → every key in it (itself first).
    Only groups of two or more are returned."""
    rows = list(rows)
    head_of = _fold_kin(rows)
    rows = [r for r in rows if r[0] not in head_of]  # a family word joins no name (`my dad`, `Dad Smith`)
    by_name: dict[str, list[tuple[str, str, str, int]]] = defaultdict(list)
    for r in rows:
        by_name[_name(r[0])].append(r)
    for same in by_name.values():  # a name read as a place (the weakest cue) and as something else: the other
        if len(same) > 1 and any(r[2] in _WEAK for r in same):
            best = min(same, key=lambda r: (_ORDER.get(r[2], 9), -r[3], r[0]))
            for r in same:
                head_of[r[0]] = best[0]
    _fold_short_forms(rows, head_of)
    full_by_word: dict[str, set[str]] = defaultdict(set)
    town_named: set[str] = set()  # `Carrowby Rowing Club`: named after a town, whose name is the town's too
    for key, name, kind, _ in rows:
        words = _name(key).split()
        if kind in ("person", "org", "place") and len(words) >= 2:
            for w in (words[:1] if kind == "org" else words):  # `Acme` of `Acme Systems`, not `Systems`
                full_by_word[w].add(head_of.get(key, key))
            if kind == "org" and not all(w.capitalize() in _business_words() for w in words[1:]):
                town_named.add(head_of.get(key, key))
    for key, name, kind, _ in rows:
        words = _name(key).split()
        if len(words) == 1 and head_of.get(key, key) == key and kind in ("person", "org", "place"):
            fulls = full_by_word.get(words[0], set())
            if kind == "place":  # `at Portwenna` beside `Portwenna Rowing Club`: the town, not the club
                fulls = fulls - town_named
            if len(fulls) == 1:
                head_of[key] = next(iter(fulls))
            elif len(fulls) > 1 and kind in _WEAK:
                head_of[key] = HIDDEN  # `Skaldvik` beside two Skaldviks: a family name, no entity of its own
    for key in list(head_of):  # a head that joined another group follows it
        if head_of[key] == HIDDEN:
            continue
        seen = {key}
        while head_of.get(head_of[key], head_of[key]) != head_of[key] and head_of[key] not in seen:
            seen.add(head_of[key])
            head_of[key] = head_of[head_of[key]]
    out: dict[str, list[str]] = defaultdict(list)
    for key, head in head_of.items():
        if key != head:
            out[head].append(key)
    return {head: [head, *sorted(members)] for head, members in out.items()}


def _fold_kin(rows: Sequence[tuple[str, str, str, int]]) -> dict[str, str]:
    """Every form of one family relation (`my dad`, `Dad`, `我爸`) joins the one most mentioned."""
    by_relation: dict[str, list[tuple[str, str, str, int]]] = defaultdict(list)
    for r in rows:
        if r[2] == "person" and (rel := relation_of(r[1])):
            by_relation[rel].append(r)
    head_of: dict[str, str] = {}
    for same in by_relation.values():
        best = min(same, key=lambda r: (-r[3], r[0]))
        head_of.update({r[0]: best[0] for r in same})
    return head_of


@lru_cache(maxsize=1)
def _business_words() -> frozenset[str]:  # read for every word of every organisation folded: made once
    return english().business_words | english().kind_words_after


def _fold_short_forms(rows: Sequence[tuple[str, str, str, int]], head_of: dict[str, str]) -> None:
    """A name of two words or more that starts or ends the one longer name of a person, organisation or place
    joins it (`Harbour Medical` → `Harbour Medical Supplies`; `Gables Bakery`, read without the number word that
    opened a sentence, → `Seven Gables Bakery`; `Lucia Ferro` → `Ana Lucia Ferro`); beside two such names it
    stays apart."""
    by_first: dict[str, list[tuple[str, ...]]] = defaultdict(list)
    by_last: dict[str, list[tuple[str, ...]]] = defaultdict(list)
    key_of: dict[tuple[str, ...], str] = {}
    for key, _, kind, _ in rows:
        words = tuple(_name(key).split())
        if kind in ("person", "org", "place") and len(words) >= 2:
            by_first[words[0]].append(words)
            by_last[words[-1]].append(words)
            key_of.setdefault(words, key)
    for words, key in key_of.items():
        if head_of.get(key, key) != key:
            continue
        heads = {head_of.get(key_of[w], key_of[w]) for w in by_first[words[0]]
                 if len(w) > len(words) and w[:len(words)] == words}
        if not heads:
            heads = {head_of.get(key_of[w], key_of[w]) for w in by_last[words[-1]]
                     if len(w) > len(words) and w[-len(words):] == words}
        if len(heads) == 1:
            head_of[key] = next(iter(heads))


def members_of(folded: dict[str, list[str]], key: str) -> Sequence[str]:
    """Every key the entity `key` stands for (just itself when it folds nothing)."""
    return folded.get(key, [key])


def folded_away(folded: dict[str, list[str]]) -> dict[str, str]:
    """key folded into another → the key that stands for it."""
    return {m: head for head, keys in folded.items() for m in keys[1:]}
