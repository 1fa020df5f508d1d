"""Every size and count limit applied in one pure, deterministic step (same input → same output)."""
from __future__ import annotations

import json
from typing import Any

from .hot import prune_hot
from .tree import enforce_limits as enforce_tree
from .warm import enforce_size


def enforce_all(state: dict[str, Any], now: float, grace: float = 0.0) -> tuple[dict[str, Any], list[dict]]:
    """Return a copy of {hot, warm, tree} within every limit, and the evictions that made it so.

    Warm evictions carry the full entry under "entry": the caller must send it to cold, not drop it.
    Warm entries younger than `grace` seconds go last (a fact just stored stays where it was put).
    """
    out = json.loads(json.dumps(state))  # a deep copy, several times faster than copy.deepcopy
    evictions = prune_hot(out["hot"])
    moved, log = enforce_size(out["warm"], now, grace)
    for row, entry in zip(log, moved):
        row["entry"] = entry
    evictions += log
    evictions += enforce_tree(out["tree"])
    return out, evictions
