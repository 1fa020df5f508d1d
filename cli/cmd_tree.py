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


@tree.command("restructure")
@click.option("--dry-run", is_flag=True, help="Print the proposed changes; change nothing.")
@click.option("--undo", is_flag=True, help="Put back the tree and categories the last restructure changed.")
@agent_option
@json_option
@handles_errors
def tree_restructure(dry_run: bool, undo: bool, agent_id: str, as_json: bool) -> None:
    """Split over-full nodes, merge idle sparse ones, name nodes from their memories (within the limits)."""
    if dry_run and undo:
        raise click.UsageError("--dry-run and --undo do not go together")
    result = get_api().tree_restructure(agent_id=agent_id, dry_run=dry_run, undo=undo)
    _warn(result.pop("warnings", []))
    emit(result, as_json, _describe)


def _describe(r: dict) -> str:
    if "undone" in r:
        return f"restructure {r['undone']} undone: {r['moved']} memories moved back"
    if not r["actions"]:
        return "the tree needs no restructure"
    lines = [("would change" if r["dry_run"] else "changed") + f" {r['changes']} node(s), moving {r['moved']} memories:"]
    for a in r["actions"]:
        where = {"split": lambda: f"split {a['node']} into {', '.join(a['into'])}",
                 "merge": lambda: f"merged {', '.join(a['from'])} into {a['node']}",
                 "describe": lambda: f"named {a['node']}: {a['desc']}"}[a["op"]]()
        lines.append(f"  {where} ({a['why']})")
    return "\n".join(lines)
