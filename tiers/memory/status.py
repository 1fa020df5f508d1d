"""Local status of one agent (never opens the database: `memoryd status` must start fast)."""
from __future__ import annotations

from typing import Any, Mapping, Sequence

from memoryd.tiers.memory.agent import AgentMemory
from memoryd.tiers.base.atomic import dumps
from memoryd.tiers.memory.consolidate import MODES
from memoryd.tiers.memory.model import HOT_MAX_BYTES, TREE_MAX_BYTES, TREE_MAX_NODES, WARM_MAX_BYTES


def agent_status(mem: AgentMemory) -> dict[str, Any]:
    with mem.exclusive():
        state = mem.snapshot()
        metrics = mem.metrics()
    hot, warm, tree = state["hot"], state["warm"], state["tree"]
    ctx = hot["active_context"]
    runs = metrics.get("runs", {})
    counters = metrics.get("counters", {})
    return {
        "agent_id": mem.agent_id,
        "hot": {"bytes": len(dumps(hot)), "max_bytes": HOT_MAX_BYTES, "lessons": len(hot["critical_lessons"]),
                "projects": len(ctx["projects"]), "events": len(ctx["events"]), "tasks": len(ctx["tasks"]),
                "identity_keys": len(hot["identity"]), "profile_keys": len(hot["owner_profile"])},
        "warm": {"bytes": len(dumps(warm)), "max_bytes": WARM_MAX_BYTES, "entries": len(warm["entries"]),
                 "by_tier": _count_by(warm["entries"], "tier")},
        "tree": {"nodes": len(tree["nodes"]), "max_nodes": TREE_MAX_NODES, "bytes": len(dumps(tree)),
                 "max_bytes": TREE_MAX_BYTES},
        "cold": _cold(mem, counters),
        "consolidation": {m: runs.get(m) for m in MODES},
        "evictions": mem.eviction_summary(),
        "redactions": {k.split(".", 1)[1]: v for k, v in counters.items() if k.startswith("redactions.")},
        "stores": counters.get("stores", 0),
    }


def _cold(mem: AgentMemory, counters: dict[str, int]) -> dict[str, Any]:
    """The local index's own count (it is on this device); the cached one if none is open."""
    archive: Any = mem.archive
    if archive is None:
        return {"count": counters.get("cold_count"), "counted_at": counters.get("cold_counted_at")}
    out: dict[str, Any] = {"count": archive.count(mem.agent_id), "counted_at": int(mem.clock())}
    if getattr(archive, "remote", False):  # a server URL: what still waits to be sealed and sent (LocalIndex)
        out["pending_upload"] = archive.pending_uploads(mem.agent_id)
    return out


def _count_by(entries: Sequence[Mapping[str, Any]], key: str) -> dict[str, int]:
    out: dict[str, int] = {}
    for e in entries:
        out[e.get(key, "?")] = out.get(e.get(key, "?"), 0) + 1
    return out


def record_cold_count(mem: AgentMemory) -> int | None:
    """Refresh the cached cold count shown by status (call where the archive is open anyway)."""
    if mem.archive is None:
        return None
    return remember_cold_count(mem, mem.archive.count(mem.agent_id))


def remember_cold_count(mem: AgentMemory, count: int) -> int:
    """Cache a cold count someone just read (status never opens the database itself)."""
    mem.update_metrics(lambda metrics: metrics.setdefault("counters", {}).update(
        cold_count=count, cold_counted_at=int(mem.clock())))
    return count
