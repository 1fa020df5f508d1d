"""`memoryd namespace migrate`: a single-database server's agents, each moved into a namespace of its own."""
from __future__ import annotations

from typing import Any

import click

from memoryd.cli.common import emit, get_api, handles_errors, json_option
from memoryd.cli.main import cli


def _human(r: dict[str, Any]) -> str:
    lines = []
    for a in r["agents"]:
        rows = sum(a["rows"].values())
        left = f"; {a['left_in_single']} rows arrived meanwhile: run it again" if a["left_in_single"] else ""
        lines.append(f"agent {a['agent_id']} → namespace {a['namespace']}: {rows} rows copied, verified, removed "
                     f"from the single database{left}")
    lines.append(f"{len(r['agents'])} agent(s) in {r['seconds']} s (journal {r['journal']})")
    return "\n".join(lines)


@cli.group()
def namespace() -> None:
    """One libSQL namespace per agent ([sync] layout = "namespace"): see docs/CLUSTER.md."""


@namespace.command("migrate")
@click.option("--agent", "agents", multiple=True, metavar="ID", help="Only this agent (repeat for more; default: all).")
@json_option
@handles_errors
def migrate(agents: tuple[str, ...], as_json: bool) -> None:
    """Copy each agent's rows from the single database into its namespace, read them back, compare digests,
    then remove them from the single database. Idempotent: run again after an interruption."""
    emit(get_api().namespace_migrate(agents=list(agents)), as_json, _human)
