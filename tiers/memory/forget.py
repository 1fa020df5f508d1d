"""Forgetting on request: one memory by id, or everything from the last N days, in every tier."""
from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from memoryd.tiers.memory.agent import AgentMemory
from memoryd.tiers.base.errors import UsageError
from memoryd.tiers.memory.hot import remove_ids
from memoryd.tiers.memory.model import DAY

if TYPE_CHECKING:
    from memoryd.tiers.memory.types import AgentState, HotState


def _log(mem: AgentMemory, ids: list[str], now: float, why: str) -> None:
    """Record the forget (ids, never text) and wipe local traces: previews in the log, last-good copies."""
    mem.wipe_traces(set(ids))
    mem.record_evictions([{"tier": "all", "kind": "forget", "id": i, "what": "", "why": why} for i in ids], now)


def forget_id(mem: AgentMemory, memory_id: str) -> dict[str, Any]:
    memory_id = (memory_id or "").strip()
    if not memory_id:
        raise UsageError("memory id is empty")
    archive = mem.archive

    def forget(state: AgentState, now: float) -> dict[str, Any]:
        before = len(state["warm"]["entries"])
        state["warm"]["entries"] = [e for e in state["warm"]["entries"] if e["id"] != memory_id]
        removed = {"warm": before - len(state["warm"]["entries"]), "hot": remove_ids(state["hot"], {memory_id})}
        known = any(removed.values()) or (archive is not None and archive.get(mem.agent_id, [memory_id]))
        if not known:
            raise UsageError(f"no memory with id {memory_id!r}")
        # the index remembers the forget (and, with a server, tells the cloud log) even for warm-only
        # items: another device may already have archived its copy
        removed["cold"] = len(archive.forget(mem.agent_id, [memory_id], now)) if archive is not None else 0
        mem.write_state(state, "forget")
        _log(mem, [memory_id], now, "forgotten by request")
        return {"id": memory_id, "removed": removed}

    return mem.with_state(forget)


def check_days(days: Any) -> float:
    if isinstance(days, bool) or not isinstance(days, (int, float)) or not math.isfinite(days) or days <= 0:
        raise UsageError("--days must be a positive number")
    return float(days)


def forget_days(mem: AgentMemory, days: float) -> dict[str, Any]:
    """Forget every memory created in the last `days` days (hot items, warm and cold)."""
    days = check_days(days)
    archive = mem.archive

    def forget(state: AgentState, now: float) -> dict[str, Any]:
        since = now - days * DAY
        warm_ids = [e["id"] for e in state["warm"]["entries"] if e["created_at"] >= since]
        state["warm"]["entries"] = [e for e in state["warm"]["entries"] if e["created_at"] < since]
        hot_ids = _recent_hot_ids(state["hot"], since)
        remove_ids(state["hot"], set(hot_ids) | set(warm_ids))
        cold_ids = archive.delete_created_between(mem.agent_id, since, now + DAY) if archive else []
        if archive is not None and warm_ids:
            archive.forget(mem.agent_id, warm_ids, now)
        mem.write_state(state, "forget")
        ids = sorted(set(warm_ids) | set(hot_ids) | set(cold_ids))
        _log(mem, ids, now, f"forgotten: created in the last {days:g} days")
        return {"days": days, "removed": {"warm": len(warm_ids), "hot": len(hot_ids), "cold": len(cold_ids)},
                "ids": ids}

    return mem.with_state(forget)


def _recent_hot_ids(hot: HotState, since: float) -> list[str]:
    ctx = hot["active_context"]
    items: list[Any] = [*ctx["events"], *ctx["tasks"], *hot["critical_lessons"]]
    return [i["id"] for i in items if i.get("timestamp", 0) >= since] + [
        p["id"] for p in ctx["projects"] if p.get("updated_at", 0) >= since]
