"""Hot never holds a replaced value: when a memory is superseded, the hot items made from it (its source_id) or
saying its words (a restatement) leave hot, each with an eviction row saying which memory replaced it."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterable, Mapping

from memoryd.tiers.knowledge import kinds
from memoryd.tiers.knowledge.restate import restates
from memoryd.tiers.memory.model import preview

if TYPE_CHECKING:
    from memoryd.tiers.memory.types import Eviction, HotState

_ITEMS = (("lesson", "critical_lessons"), ("event", "events"), ("task", "tasks"))


def _items(hot: HotState, part: str) -> list[dict[str, Any]]:
    return hot["critical_lessons"] if part == "critical_lessons" else hot["active_context"][part]  # type: ignore


def _said(item: Mapping[str, Any]) -> str:
    return str(item.get("text", ""))


def sweep(hot: HotState, replaced: Iterable[Mapping[str, Any]]) -> list[Eviction]:
    """Remove from `hot` every item made from or restating a memory of `replaced` (memories whose metadata has
    superseded_by); the eviction rows, for the eviction log."""
    gone = [m for m in replaced if (m.get("metadata") or {}).get(kinds.SUPERSEDED_BY_KEY)]
    if not gone:
        return []
    by_id = {str(m["id"]): m for m in gone}
    out: list[Eviction] = []

    def replaced_by(text: str, source: str | None) -> str | None:
        m = by_id.get(source or "") or next((m for m in gone if restates(str(m["text"]), text)), None)
        return str((m.get("metadata") or {})[kinds.SUPERSEDED_BY_KEY]) if m is not None else None

    for kind, part in _ITEMS:
        items = _items(hot, part)
        for item in list(items):
            by = replaced_by(_said(item), item.get("source_id"))
            if by:
                items.remove(item)
                out.append({"tier": "hot", "kind": kind, "id": str(item["id"]), "what": preview(_said(item)),
                            "why": f"its memory was replaced by {by}: hot never holds a replaced value"})
    profile = hot["owner_profile"]
    for key, value in list(profile.items()):
        by = replaced_by(str(value), None)
        if by:
            del profile[key]
            out.append({"tier": "hot", "kind": "owner_profile", "id": key, "what": preview(str(value)),
                        "why": f"its memory was replaced by {by}: hot never holds a replaced value"})
    return out
