"""Twins: one sentence said twice with another number where its value stands — "orion-web uses Node 20" and
later "orion-web uses Node 22", "it's June 3 now" and "it's June 17 now", "车库密码改成了2208" / "…9931". However
the claim grammar (tiers/knowledge/claims.py) reads the sentence, its twin with a new number is a new value of
the same thing: the newer supersedes the older; twins with the same numbers restate each other.

A number counts only where a value stands: after "is", "to", "on", "uses", a colon, "是", "到" … within two words.
A number inside an identifier ("a-note-5-0", "h0", "INV-2231") or naming the subject ("Invoice 2231 is paid",
"Ran 5 km today") makes no twin: those are different things, not new values. Nor do twins said at one moment
(the same note line's date and time, the same turn): "fact 1 about the plan", "fact 2 about the plan" written
together are a list, and a change needs a before and an after.
"""
from __future__ import annotations

import functools
import re
from typing import Any, Callable, Iterable

from memoryd.tiers.knowledge.restate import core_text
from memoryd.tiers.memory.model import normalize_text

# a number standing alone (a date's day, a version, a code, a time), not part of an identifier or a word
_NUMBER = re.compile(r"(?<![A-Za-z0-9_.-])\d+(?:[.:/,]\d+)*(?![A-Za-z0-9_-]|\.\d)")
_VALUE_PLACE = re.compile(r"(?:(?:\b(?:is|are|was|were|be|been|to|on|at|for|from|until|till|by|uses|use|using|"
                          r"now|into|of)|'s|[:：=→])\s*(?:[^\s\d]+\s+){0,2}|(?:是|为|到|在|成|至|于|[:：])\s*\D{0,4})$")
MIN_WORDS = 3  # a template of fewer words is too thin to say two texts are one sentence


@functools.lru_cache(maxsize=16384)
def twin_key(text: str) -> tuple[str, tuple[str, ...]] | None:
    """(the sentence with its numbers masked, its numbers) when its first number stands where a value does,
    else None. Two texts with equal templates are twins; their numbers are their values."""
    core = normalize_text(core_text(text.strip()))
    first = _NUMBER.search(core)
    if first is None or not _VALUE_PLACE.search(core[:first.start()]):
        return None
    template = _NUMBER.sub("#", core)
    if len(template.replace("#", " ").split()) < MIN_WORDS and not re.search(r"[\u3400-\u9fff]{3}", template):
        return None
    return template, tuple(_NUMBER.findall(core))


def twins(a: str, b: str) -> bool:
    """Texts `a` and `b` are one sentence with other numbers in its value place (a new value of one thing)."""
    ka, kb = twin_key(a), twin_key(b)
    return ka is not None and kb is not None and ka[0] == kb[0] and ka[1] != kb[1]


def twin_groups(memories: Iterable[dict[str, Any]], when: Callable[[dict[str, Any]], str],
                text: Callable[[dict[str, Any]], str] = lambda m: m["text"]) -> dict[str, list[str]]:
    """Template → ids of memories that are twins of each other (only templates holding two numbers or more);
    `when(m)` is the moment a memory was said: twins said at one moment are a list, left out of their group."""
    by_template: dict[str, list[tuple[str, tuple[str, ...], str]]] = {}
    for m in memories:
        key = twin_key(text(m))
        if key is not None:
            by_template.setdefault(key[0], []).append((m["id"], key[1], when(m)))
    groups: dict[str, list[str]] = {}
    for template, members in by_template.items():
        kept = [mid for mid, numbers, at in members
                if not any(at == at2 and numbers != numbers2 for _, numbers2, at2 in members)]
        if len({numbers for mid, numbers, _ in members if mid in kept}) > 1:
            groups[template] = kept
    return groups


def same_numbers(a: str, b: str) -> bool:
    ka, kb = twin_key(a), twin_key(b)
    return ka is not None and ka == kb
