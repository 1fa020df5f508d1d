"""The review queue's file, agents/<id>/review.json: read here by the queue (review.py) and by a retrieve, which
needs only which memories an open question doubts (and so must not load the queue's rules)."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from memoryd.tiers.base.atomic import read_json
from memoryd.tiers.base.errors import CorruptStateError

FILE = "review.json"
REVIEWED_KEY = "reviewed"   # a member's metadata: {question id: the answer given about it} (review.py writes it)


def empty() -> dict[str, Any]:
    return {"version": 1, "open": []}


def valid(obj: Any) -> None:
    if not isinstance(obj, dict) or not isinstance(obj.get("open"), list) or not all(
            isinstance(q, dict) and isinstance(q.get("id"), str) and isinstance(q.get("members"), list)
            for q in obj["open"]):
        raise CorruptStateError("review.json: not a review queue")


def load(agent_dir: Path) -> dict[str, Any]:
    data: dict[str, Any] = read_json(agent_dir / FILE, empty, valid)
    return data


def doubted(agent_dir: Path) -> dict[str, frozenset[str]]:
    """Memories an open same_thing question says a newer one may replace: {id: the questions asking} (caller holds
    the lock). Retrieve never places such a memory as the current value of another: a newer value may stand past
    it, unlinked (tiers/retrieval/current.py). A question answered on another device is one its member's
    metadata names (REVIEWED_KEY); the retrieve checks that on the memory it would place."""
    out: dict[str, set[str]] = {}
    for q in load(agent_dir)["open"]:
        if q.get("kind") == "same_thing":
            for i in q["members"][:-1]:  # oldest first: all but the newest may be replaced
                out.setdefault(i, set()).add(q["id"])
    return {i: frozenset(qs) for i, qs in out.items()}
