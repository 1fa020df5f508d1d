"""`memoryd tree …`: the category index (≤ 50 nodes, depth ≤ 4, ≤ 10 children, ≤ 2 KB)."""
from __future__ import annotations

import click

from memoryd.cli.common import agent_option, emit, get_api, handles_errors, json_option
from memoryd.cli.main import cli


def _warn(warnings: list[str]) -> None:
    for w in warnings:
        click.echo(f"memoryd: warning: {w}", err=True)


@cli.group()
def tree() -> None:
    """Show or change the tree index."""


@tree.command("show")
@agent_option
@json_option
@handles_errors
def tree_show(agent_id: str, as_json: bool) -> None:
    """Print the tree with warm and cold counts per node."""
    shown = get_api().tree_view(agent_id=agent_id, cold=not as_json)  # --json: the tree alone, no index opened
    _warn(shown["warnings"])
    emit(shown["tree"], as_json, lambda t: shown["text"])


@tree.command("add")
@click.argument("path")
@click.argument("description", default="")
@agent_option
@json_option
@handles_errors
def tree_add(path: str, description: str, agent_id: str, as_json: bool) -> None:
    """Add a node (and its missing parents), or change its description."""
    result = get_api().tree_add(agent_id=agent_id, path=path, description=description)
    _warn(result["warnings"])
    emit({"added": result["added"], "path": result["path"]}, as_json,
         lambda r: f"added {', '.join(r['added']) or 'nothing (updated)'}")


@tree.command("remove")
@click.argument("path")
@agent_option
@json_option
@handles_errors
def tree_remove(path: str, agent_id: str, as_json: bool) -> None:
    """Remove a leaf node that no memory uses."""
    emit(get_api().tree_remove(agent_id=agent_id, path=path), as_json, lambda r: f"removed {r['removed']}")


@tree.command("prune")
@agent_option
@json_option
@handles_errors
def tree_prune(agent_id: str, as_json: bool) -> None:
    """Remove leaf nodes without memories and idle for 60+ days (logged as evictions)."""
    emit(get_api().tree_prune(agent_id=agent_id), as_json, lambda r: f"pruned {len(r['pruned'])} node(s)")
