"""The knowledge log: knowledge.jsonl beside the eviction log — every merge, supersession, confirmation,
confidence step, seal and tree move, with why and its evidence (text previews only; a forget blanks them)."""
from __future__ import annotations

from typing import Any

from memoryd.tiers.memory.model import preview

# what a row's `kind` may say (`tier` is always "knowledge")
OPS = ("merge", "supersede", "update", "current", "confirm", "reinforce", "contradict", "seal", "unseal", "digest",
       "restructure", "entity", "review")  # review: an answer to a review question (tiers/knowledge/review.py)


def row(op: str, memory_id: str, why: str, text: str = "", **extra: Any) -> dict[str, Any]:
    """One knowledge-log row: what happened (`op`) to which memory, why, and the ids it involved."""
    if op not in OPS:
        raise ValueError(f"unknown knowledge op {op!r}")
    return {"tier": "knowledge", "kind": op, "id": memory_id, "what": preview(text) if text else "",
            "why": why, **extra}
