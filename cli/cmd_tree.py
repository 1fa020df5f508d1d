"""`memoryd tree …`: the category index (≤ 50 nodes, depth ≤ 4, ≤ 10 children, ≤ 2 KB)."""
from __future__ import annotations

import click

from memoryd.cli.common import agent_option, emit, get_config, handles_errors, json_option
from memoryd.cli.main import cli


@cli.group()
def tree() -> None:
    """Show or change the tree index."""


@tree.command("show")
@agent_option
@json_option
@handles_errors
def tree_show(agent_id: str, as_json: bool) -> None:
    """Print the tree with warm and cold counts per node."""
    from memoryd.tiers.memory.agent import AgentMemory
    from memoryd.tiers.memory.tree import counts_by_path, render

    config = get_config()
    state = AgentMemory(config, agent_id).read_state()
    cold: dict[str, int] = {}
    if not as_json:
        try:
            from memoryd.tiers.cold.source import open_index

            with open_index(config) as index:
                cold = index.category_counts(agent_id)
        except Exception as exc:  # the tree is still worth showing without cold counts
            click.echo(f"memoryd: warning: cold counts unavailable: {exc}", err=True)
    emit(state["tree"], as_json, lambda t: render(t, counts_by_path(state["warm"]["entries"], cold)))


@tree.command("add")
@click.argument("path")
@click.argument("description", default="")
@agent_option
@json_option
@handles_errors
def tree_add(path: str, description: str, agent_id: str, as_json: bool) -> None:
    """Add a node (and its missing parents), or change its description."""
    from memoryd.tiers.memory.tree import add_node

    from memoryd.daemon.ops import memory, stamp_edits

    with memory(get_config(), {"agent_id": agent_id}) as mem:
        added = mem.change(lambda s, now: add_node(s["tree"], path, description, now), "tree add")
    stamp_edits(get_config(), agent_id)
    for w in mem.warnings:
        click.echo(f"memoryd: warning: {w}", err=True)
    emit({"added": added, "path": path}, as_json, lambda r: f"added {', '.join(r['added']) or 'nothing (updated)'}")


@tree.command("remove")
@click.argument("path")
@agent_option
@json_option
@handles_errors
def tree_remove(path: str, agent_id: str, as_json: bool) -> None:
    """Remove a leaf node that no memory uses."""
    from memoryd.daemon.ops import memory
    from memoryd.tiers.memory.agent import AgentMemory
    from memoryd.tiers.base.errors import UsageError
    from memoryd.tiers.memory.model import check_category
    from memoryd.tiers.memory.tree import remove_node

    if check_category(path) not in AgentMemory(get_config(), agent_id).read_state()["tree"]["nodes"]:
        raise UsageError(f"no tree node {path!r}")  # before the archive is opened (or created)
    with memory(get_config(), {"agent_id": agent_id}, with_archive=True) as mem:
        mem.change(lambda s, now: remove_node(s["tree"], path, mem.used_categories(s)), "tree remove")
    emit({"removed": path}, as_json, lambda r: f"removed {r['removed']}")


@tree.command("prune")
@agent_option
@json_option
@handles_errors
def tree_prune(agent_id: str, as_json: bool) -> None:
    """Remove leaf nodes without memories and idle for 60+ days (logged as evictions)."""
    from memoryd.daemon.ops import memory
    from memoryd.tiers.memory.tree import prune

    def step(state: dict, now: float) -> list[dict]:
        rows = prune(state["tree"], mem.used_categories(state), now)
        mem.evictions.append(rows, now)
        return rows

    with memory(get_config(), {"agent_id": agent_id}, with_archive=True) as mem:
        rows = mem.change(step, "tree prune")
    emit({"pruned": [r["id"] for r in rows]}, as_json, lambda r: f"pruned {len(r['pruned'])} node(s)")
