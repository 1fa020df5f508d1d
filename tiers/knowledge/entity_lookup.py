"""Finding the entity a person means: its exact name, then an alias recorded at extraction, then the reduced name.

`entity show "Project Atlas"` finds `atlas`, `"Kestrel Cleaning Ltd"` finds `kestrel` (whose memories wrote
`Kestrel Cleaning`), `@alice-chen` finds `Alice Chen`, `ＡＴＬＡＳ` finds `atlas`. A `TYPE:` prefix narrows every
step to that type, and a kind word picks among types (`Project Orion`: the project). The exact step keeps its old answer (the hottest of the names that match, the others as
`also`); a forgiving step that finds more than one entity is an error naming them, never a guess.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from memoryd.tiers.base.errors import UsageError
from memoryd.tiers.knowledge import entity_store as store
from memoryd.tiers.knowledge import hotness
from memoryd.tiers.knowledge.entity_names import kind_hint, light, norm
from memoryd.tiers.knowledge.entity_rules import TYPES

if TYPE_CHECKING:
    from memoryd.tiers.cold.index import LocalIndex

MAX_LISTED = 8


def _split_type(name: str) -> tuple[str | None, str]:
    head, sep, rest = name.partition(":")
    if sep and head.strip().casefold() in TYPES and rest.strip():
        return head.strip().casefold(), rest.strip()
    return None, name


def lookup(index: LocalIndex, agent_id: str, name: str, now: float) -> list[store.EntityRow]:
    """The entities `name` means, best first ([] when none); UsageError when a forgiving step finds several."""
    today = hotness.day_of(now)
    kind, bare = _split_type(name.strip())
    with index.reading() as conn:
        exact = store.find(conn, agent_id, name, today)
        if exact or not bare.strip().lstrip("@").strip():
            return exact
        every = store.all_entities(conn, agent_id, today)
        aliases = store.aliases_of(conn, agent_id)
    if kind is not None:
        every = [e for e in every if e.type == kind]
    by_key = {e.key: e for e in every}
    wanted_light, wanted = light(bare.lstrip("@")), norm(bare)
    steps = [
        {k for k, a in aliases if a == wanted_light and k in by_key},
        {e.key for e in every if light(e.name) == wanted_light},
        {e.key for e in every if norm(e.name) == wanted} | {k for k, a in aliases if norm(a) == wanted and k in by_key},
    ]
    for keys in steps:
        for kind_said in kind_hint(bare) if len(keys) > 1 else ():  # "Project Orion": the project, not a person
            of_kind = {k for k in keys if by_key[k].type == kind_said}
            if of_kind:
                keys = of_kind
                break
        if len(keys) == 1:
            return [by_key[keys.pop()]]
        if len(keys) > 1:
            found = sorted((by_key[k] for k in keys), key=lambda e: (-e.hotness, e.key))
            listed = ", ".join(e.key for e in found[:MAX_LISTED]) + (", …" if len(found) > MAX_LISTED else "")
            raise UsageError(f"{name!r} could be any of {len(found)} entities: {listed}; "
                             f"ask for one as TYPE:NAME")
    return []
