"""The `embed` operation: vectors for the local index's memories that have none (hybrid retrieval).

Memories get their vector as they are archived when `[retrieval] mode = "hybrid"` (in the daemon: by its
back-fill thread, daemon/backfill.py, which also fills in what a consolidation archived); this fills in the
rest (rows archived before, or while the model was missing) — `memoryd embed`. Needs the optional extra
`memoryd[embed]`.
"""
from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, Callable

from memoryd.tiers.base.config import Config
from memoryd.tiers.base.errors import MemorydError, UsageError

from memoryd.daemon.engine import Engine, Params, agent_of

if TYPE_CHECKING:
    from memoryd.tiers.memory.agent import AgentMemory
    from memoryd.tiers.memory.types import AgentState

log = logging.getLogger("memoryd.daemon")

AFTER_CONSOLIDATION = 10_000  # rows the daemon embeds per agent after a consolidation (minutes of one core)
CHUNK = 64                    # ... this many per hold of the agent's lock: requests wait ~2-3 s at most


def embed(engine: Engine, params: Params) -> dict[str, Any]:
    """{agent_id, limit?, rebuild?} → how many memories got a vector, and how many have one now."""
    from memoryd.tiers.retrieval import embed as model
    from memoryd.tiers.base.progress import current_progress

    limit = params.get("limit")
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 1):
        raise UsageError("limit must be a positive integer")
    model.load()  # the model must work even when nothing is left to embed (ConfigError without the extra)
    with engine.memory(agent_of(params)) as mem:
        store = mem.archive.vectors  # type: ignore[union-attr]
        cleared = store.clear(mem.agent_id) if params.get("rebuild") else 0
        have, total = store.counts(mem.agent_id)
        todo = min(total - have, limit) if limit else total - have
        advance = current_progress().start("memories embedded", todo)
        done = [0]

        def step(n: int, _total: int) -> None:
            advance(n - done[0])
            done[0] = n

        added = store.fill(mem.agent_id, limit=limit, progress=step)
        have, total = store.counts(mem.agent_id)
        live = _embed_live(mem, store)
    return {"agent_id": mem.agent_id, "embedded": added, "cleared": cleared, "with_vector": have,
            "memories": total, "warm_and_hot": live, "model": model.signature()}


def _embed_live(mem: AgentMemory, store: Any) -> int:
    """Warm entries and hot items get theirs too (cached), so a retrieve has nothing left to embed.
    Under the agent's lock: a forget meanwhile must not see its vector written back."""
    from memoryd.tiers.retrieval import embed as model
    from memoryd.tiers.retrieval.passage import live_items
    from memoryd.tiers.retrieval.search import hot_candidates

    if not mem.dir.is_dir():
        return 0
    def embed(state: AgentState, now: float) -> int:
        items = live_items(state["warm"]["entries"]) + live_items(hot_candidates(state["hot"]))
        return len(store.live(mem.agent_id, items, model.load))

    return mem.with_state(embed)


def after_consolidation(call: Callable[[str, dict[str, Any]], Any], config: Config, agent_id: str,
                        stopping: Callable[[], bool] = lambda: False, chunk: int = CHUNK) -> None:
    """A bounded backfill through `call` (the `embed` operation), in hybrid mode only: up to
    AFTER_CONSOLIDATION rows per agent, CHUNK at a time so the agent's other requests get in between.
    The daemon no longer runs it (its back-fill thread works outside the agent's lock)."""
    from memoryd.tiers.retrieval import embed as model

    if not model.hybrid_ready(config)[0]:
        return
    done, report = 0, {}
    while done < AFTER_CONSOLIDATION and not stopping():
        try:
            report = call("embed", {"agent_id": agent_id, "limit": chunk})
        except MemorydError as exc:
            log.warning("agent %s: memories not embedded: %s", agent_id, exc.message)
            break
        done += int(report.get("embedded") or 0)
        if int(report.get("embedded") or 0) < chunk:
            break  # nothing (more) left to embed
    if done:
        log.info("agent %s: %d memories embedded (%d of %d have a vector)", agent_id, done,
                 report.get("with_vector", 0), report.get("memories", 0))
