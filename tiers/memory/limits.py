"""Every size and count limit applied in one pure, deterministic step (same input → same output)."""
from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, cast

from memoryd.tiers.memory.hot import prune_hot
from memoryd.tiers.memory.tree import enforce_limits as enforce_tree
from memoryd.tiers.memory.warm import enforce_size

if TYPE_CHECKING:
    from memoryd.tiers.memory.types import AgentState, Eviction


def _copy(state: AgentState) -> AgentState:
    """A copy the limits may change. Deep (a JSON round trip) except for warm entries' values: each entry
    is a new dict (enforce_size rescores, sorts and pops them) but shares its metadata, which no limit
    changes — a year's ingest copies warm twice per batch, and its entries are most of the state."""
    warm: Any = state.get("warm")
    if not isinstance(warm, dict) or not isinstance(warm.get("entries"), list) or not all(
            isinstance(e, dict) for e in warm["entries"]):
        return cast("AgentState", json.loads(json.dumps(state)))
    out = json.loads(json.dumps({k: v for k, v in state.items() if k != "warm"}))
    out["warm"] = json.loads(json.dumps({k: v for k, v in warm.items() if k != "entries"}))
    out["warm"]["entries"] = [dict(e) for e in warm["entries"]]
    return cast("AgentState", dict((k, out[k]) for k in state))  # the keys in the caller's order


def enforce_all(state: AgentState, now: float, grace: float = 0.0) -> tuple[AgentState, list[Eviction]]:
    """Return a copy of {hot, warm, tree} within every limit, and the evictions that made it so.

    Warm evictions carry the full entry under "entry": the caller must send it to cold, not drop it.
    Warm entries younger than `grace` seconds go last (a fact just stored stays where it was put).
    """
    out = _copy(state)
    evictions = prune_hot(out["hot"])
    moved, log = enforce_size(out["warm"], now, grace)
    for row, entry in zip(log, moved):
        row["entry"] = entry
    evictions += log
    evictions += enforce_tree(out["tree"])
    return out, evictions
