"""Operations on hot memory and the tree index, shared by `memoryd hot` and the MCP server.

Registered with daemon/ops.py's `@op`, so they run in the daemon when it has imported this module
and in-process otherwise (daemon/route.py falls back when the daemon does not know them).
"""
from __future__ import annotations

from typing import Any, Callable

from memoryd.tiers.base.config import Config
from memoryd.tiers.base.errors import UsageError

from memoryd.daemon.ops import memory, op, stamp_edits

Change = Callable[[dict[str, Any], float], Any]


def _change_fn(kind: str, p: dict[str, Any]) -> Change:
    """The state change for one kind of hot item (tiers/memory/hot.py does the checking)."""
    from memoryd.tiers.memory import hot as H

    changes: dict[str, Change] = {
        "identity": lambda s, now: H.set_identity(s["hot"], p.get("key", ""), p.get("value", "")),
        "profile": lambda s, now: H.set_profile(s["hot"], p.get("key", ""), p.get("value", "")),
        "project": lambda s, now: H.upsert_project(s["hot"], p.get("name", ""), p.get("description"),
                                                   p.get("status"), now),
        "event": lambda s, now: H.add_event(s["hot"], p.get("text", ""), now),
        "task": lambda s, now: H.upsert_task(s["hot"], p.get("text", ""), p.get("status"), now),
        "lesson": lambda s, now: H.add_lesson(s["hot"], p.get("text", ""), p.get("category") or "lessons",
                                              p.get("importance"), now),
    }
    fn = changes.get(str(kind))
    if fn is None:
        raise UsageError(f"unknown hot item kind {kind!r}: use one of {', '.join(changes)}")
    return fn


@op("hot_change")
def hot_change(config: Config, params: dict[str, Any]) -> dict[str, Any]:
    """Add or update one hot item; MEMORY.md (and configured render targets) follow the change."""
    kind = str(params.get("kind", ""))
    fn = _change_fn(kind, params)
    with memory(config, params) as mem:
        item = mem.change(fn, kind)
    stamp_edits(config, mem.agent_id)
    return {"kind": kind, "item": item, "warnings": mem.warnings}


@op("hot_show")
def hot_show(config: Config, params: dict[str, Any]) -> dict[str, Any]:
    """The hot state and its MEMORY.md rendering (creates nothing for an unknown agent)."""
    from memoryd.tiers.memory.hot import render_markdown

    with memory(config, params) as mem:
        hot = mem.read_state()["hot"]
    return {"agent_id": mem.agent_id, "hot": hot, "markdown": render_markdown(hot, mem.agent_id)}


@op("tree_show")
def tree_show(config: Config, params: dict[str, Any]) -> dict[str, Any]:
    """The tree index with warm counts per path (cold counts need the archive: not on this path)."""
    from memoryd.tiers.memory.tree import counts_by_path, render

    with memory(config, params) as mem:
        state = mem.read_state()
    text = render(state["tree"], counts_by_path(state["warm"]["entries"], {}))
    return {"agent_id": mem.agent_id, "tree": state["tree"], "text": text}
