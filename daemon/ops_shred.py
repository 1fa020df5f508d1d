"""Shredding forgets and their check: `forget --shred` (or `[sync] shred_forget`) and `forget --verify`."""
from __future__ import annotations

from typing import Any

from memoryd.tiers.base.errors import UsageError

from memoryd.daemon.engine import Engine, Params, agent_of


def wants_shred(engine: Engine, params: Params) -> bool:
    """`shred` given, else the config's default."""
    asked = params.get("shred")
    return engine.config.sync.shred_forget if asked is None else bool(asked)


def forget_shredding(engine: Engine, params: Params) -> dict[str, Any]:
    """{id} or {days}: forget from every tier, then shred (sync/shred.py). An id forgotten before (a plain
    forget, or a shred that was interrupted) is shredded without forgetting it again."""
    from memoryd.sync import shred
    from memoryd.sync.session import require_admin_token
    from memoryd.tiers.memory.forget import forget_days, forget_id
    from memoryd.tiers.memory.forget_traces import forgotten_at

    agent_id = agent_of(params)
    config = engine.config
    require_admin_token(config, "forget --shred")  # refused before anything is forgotten here
    earlier = shred.pending(config, agent_id)
    mid = str(params.get("id") or "").strip()
    if earlier is not None and earlier["stage"] != "forget":  # an interrupted shred is finished first
        done = shred.run(config, agent_id, earlier, new_recovery=bool(params.get("new_recovery")))
        if params.get("days") is None and mid in earlier["ids"]:  # it was this one: nothing more to do
            return {"id": mid, "removed": {"warm": 0, "hot": 0, "cold": 0}, "already_forgotten": True, "shred": done}
    with engine.memory(agent_id) as mem:
        if params.get("days") is not None:
            result = forget_days(mem, float(params["days"]))
            doc = shred.begin(config, agent_id, result["ids"])
        else:
            doc = shred.pending(config, agent_id) or shred.begin(config, agent_id, [mid])
            from memoryd.tiers.knowledge.seal import release_summary

            release_summary(mem, mid, mem.clock())  # a summary: its members get their plain rank back first
            try:
                result = forget_id(mem, mid)
            except UsageError:
                if mem.archive is None or forgotten_at(mem.archive, agent_id, mid) is None:
                    shred.clear(config, agent_id)
                    raise
                result = {"id": mid, "removed": {"warm": 0, "hot": 0, "cold": 0}, "already_forgotten": True}
    from memoryd.daemon.forget_derived import refresh_derived

    # what was derived from it (digests, summaries, bank pages, the snapshot) goes before the keys do, as in a
    # plain forget; the shred scrubs the index itself
    result.update(refresh_derived(engine, agent_id, set(result.get("ids") or [mid]) - {""}, scrub=False))
    result["shred"] = shred.run(config, agent_id, doc, new_recovery=bool(params.get("new_recovery")))
    return result


def forget_verify(engine: Engine, params: Params) -> dict[str, Any]:
    """{agent_id, id}: per place, whether anything that could recover the memory's text is left."""
    from memoryd.daemon.ops_knowledge import workspaces
    from memoryd.sync.forget_verify import verify

    agent_id = agent_of(params)
    return verify(engine.config, agent_id, str(params.get("id") or ""), workspaces(engine.config, agent_id))
