"""Operations on hot memory, the tree index and their renderings (MEMORY.md, harness files)."""
from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from memoryd.tiers.base.errors import UsageError

from memoryd.daemon.engine import Engine, Params, agent_of
from memoryd.daemon.ops_sync import stamp_edits

Change = Callable[[dict[str, Any], float], Any]


def _change_fn(kind: str, p: Params) -> Change:
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


def hot_change(engine: Engine, params: Params) -> dict[str, Any]:
    """Add or update one hot item; MEMORY.md (and configured render targets) follow the change."""
    kind = str(params.get("kind", ""))
    fn = _change_fn(kind, params)
    with engine.memory(agent_of(params)) as mem:
        item = mem.change(fn, kind)
    stamp_edits(engine.config, mem.agent_id)
    return {"kind": kind, "item": item, "warnings": mem.warnings}


def hot_show(engine: Engine, params: Params) -> dict[str, Any]:
    """The hot state and its MEMORY.md rendering (creates nothing for an unknown agent)."""
    from memoryd.tiers.memory.hot import render_markdown

    with engine.memory(agent_of(params)) as mem:
        hot = mem.read_state()["hot"]
    return {"agent_id": mem.agent_id, "hot": hot, "markdown": render_markdown(hot, mem.agent_id)}


def tree_show(engine: Engine, params: Params) -> dict[str, Any]:
    """The tree index with warm counts per path (cold counts need the archive: not on this path)."""
    from memoryd.tiers.memory.tree import counts_by_path, render

    with engine.memory(agent_of(params)) as mem:
        state = mem.read_state()
    text = render(state["tree"], counts_by_path(state["warm"]["entries"], {}))
    return {"agent_id": mem.agent_id, "tree": state["tree"], "text": text}


def tree_view(engine: Engine, params: Params) -> dict[str, Any]:
    """`memoryd tree show`: the tree, and with `cold` its text with warm and cold counts per node (a local
    index that cannot be read leaves the cold counts out, with a warning)."""
    from memoryd.tiers.memory.tree import counts_by_path, render

    with engine.memory(agent_of(params)) as mem:
        state = mem.read_state()
    cold: dict[str, int] = {}
    warnings: list[str] = []
    if params.get("cold"):
        try:
            from memoryd.tiers.cold.source import open_index

            with open_index(engine.config) as index:
                cold = index.category_counts(mem.agent_id)
        except Exception as exc:  # the tree is still worth showing without cold counts
            warnings.append(f"cold counts unavailable: {exc}")
    text = render(state["tree"], counts_by_path(state["warm"]["entries"], cold))
    return {"agent_id": mem.agent_id, "tree": state["tree"], "text": text, "warnings": warnings}


def tree_add(engine: Engine, params: Params) -> dict[str, Any]:
    """{agent_id, path, description?}: add a node (and its missing parents), or change its description."""
    from memoryd.tiers.memory.tree import add_node

    path, description = params.get("path", ""), params.get("description") or ""
    with engine.memory(agent_of(params)) as mem:
        added = mem.change(lambda s, now: add_node(s["tree"], path, description, now), "tree add")
    stamp_edits(engine.config, mem.agent_id)
    return {"added": added, "path": path, "warnings": mem.warnings}


def tree_remove(engine: Engine, params: Params) -> dict[str, Any]:
    """{agent_id, path}: remove a leaf node that no memory uses."""
    from memoryd.tiers.memory.model import check_category
    from memoryd.tiers.memory.tree import remove_node

    path = params.get("path", "")
    with engine.memory(agent_of(params)) as mem:
        if check_category(path) not in mem.read_state()["tree"]["nodes"]:
            raise UsageError(f"no tree node {path!r}")  # before the archive is opened (or created)
        mem.change(lambda s, now: remove_node(s["tree"], path, mem.used_categories(s)), "tree remove")
    return {"removed": path}


def tree_prune(engine: Engine, params: Params) -> dict[str, Any]:
    """Remove leaf nodes without memories and idle for 60+ days (logged as evictions)."""
    from memoryd.tiers.memory.tree import prune

    with engine.memory(agent_of(params)) as mem:
        def step(state: dict[str, Any], now: float) -> list[dict[str, Any]]:
            rows = prune(state["tree"], mem.used_categories(state), now)
            mem.evictions.append(rows, now)
            return rows

        rows = mem.change(step, "tree prune")
    return {"pruned": [r["id"] for r in rows]}


def render(engine: Engine, params: Params) -> dict[str, Any]:
    """{agent_id?, targets?, project_dir?}: hot memory and the tree summary into each target file
    (defaults: config.toml [render]; claude/agents files in the current directory)."""
    from memoryd.tiers.base.config import validate_agent_id

    from memoryd.daemon.render_targets import TARGET_HELP, RenderSettings, render_agent, resolve

    config = engine.config
    settings = RenderSettings.from_config(config)
    agent_id = validate_agent_id(params.get("agent_id") or settings.agent)
    specs = tuple(params.get("targets") or ()) or settings.targets
    if not specs:
        raise UsageError(f"give --target ({TARGET_HELP}) or set [render] targets in config.toml")
    raw = params.get("project_dir")
    project = Path(raw).expanduser() if raw else settings.project_dir or Path.cwd()
    return {"targets": render_agent(config, agent_id, [resolve(config, spec, project) for spec in specs])}
