"""Retrieval's hot-entity prior: a result naming an active entity (hotness ≥ 0.5) ranks up to 10 % higher.

Bounded like ranking.py's own prior: rank × (1 + WEIGHT × min(hotness, 1)), so it re-orders near-ties
among what the words found and never lifts a result that holds none of the query's rare words over one
that does. It reads the entity tables only (no refresh on the retrieve path); a local index without them,
or any error, leaves the ranking as it was, with a warning.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memoryd.tiers.base.errors import MemorydError
from memoryd.tiers.knowledge import hotness

if TYPE_CHECKING:
    from memoryd.tiers.retrieval.view import RetrievalView

WEIGHT = 0.1
EXTRA = 5  # results ranked beyond the limit that the prior may lift into it


def pool(limit: int) -> int:
    """How many results to rank before the prior picks the best `limit`."""
    return limit + EXTRA


def reorder(view: RetrievalView, results: list[dict[str, Any]], limit: int) -> list[dict[str, Any]]:
    """Apply the prior to ranked results (each with `rank`), sort again, keep the best `limit`."""
    ids = [r["id"] for r in results if r.get("tier") in ("warm", "cold")]
    if not ids or view.archive is None:
        return results[:limit]
    try:
        from memoryd.tiers.knowledge.entities import entities_of

        named = entities_of(view.archive, view.agent_id, ids, view.now)  # type: ignore[arg-type]
    except MemorydError as exc:
        view.warn(f"hot-entity prior not applied: {exc.message}")
        return results[:limit]
    for r in results:
        hot = [e for e in named.get(r["id"], []) if e.hotness >= hotness.ACTIVE - 1e-9]
        if hot:
            boost = 1 + WEIGHT * min(hot[0].hotness, 1.0)
            r["rank"] = round(r["rank"] * boost, 6)
            if isinstance(r.get("ranking"), dict):
                r["ranking"]["entity"] = {"name": hot[0].name, "hotness": round(hot[0].hotness, 4),
                                          "boost": round(boost, 4)}
            if isinstance(r.get("reason"), str):
                r["reason"] += f"; hot entity {hot[0].name} ×{boost:.2f}"
    results.sort(key=lambda r: (-r["rank"], r["id"]))
    return results[:limit]
