"""`memoryd namespace show | keys | migrate`: an agent's namespace, the keys its tokens are checked with, and a
single-database server's agents moved into namespaces of their own (docs/CLUSTER.md)."""
from __future__ import annotations

from typing import Any

import click

from memoryd.cli.common import agent_option, emit, get_api, handles_errors, json_option
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


@namespace.command("show")
@agent_option
@json_option
@handles_errors
def show(agent_id: str, as_json: bool) -> None:
    """The agent's namespace name (what its devices' tokens list) and, with the admin API, whether it exists."""
    emit(get_api().namespace_show(agent_id=agent_id), as_json,
         lambda r: f"agent {r['agent_id']} → namespace {r['namespace']} (layout {r['layout']})"
                   + ("" if "exists" not in r else "; exists" if r["exists"] else "; not created yet"))


@namespace.command("keys")
@click.option("--jwt-keys", "key_file", type=click.File("r"), default=None, metavar="FILE",
              help="Ed25519 public keys (PEM, concatenated), one per device ('-': stdin). Omitted: the server's key.")
@click.option("--create", is_flag=True, help="Create the namespace (with these keys) if it does not exist yet.")
@agent_option
@json_option
@handles_errors
def keys(key_file: Any, create: bool, agent_id: str, as_json: bool) -> None:
    """Set the keys the agent's namespace checks tokens with (sqld admin API). A device whose key is left out
    is refused at its next request; the others are untouched."""
    text = key_file.read() if key_file is not None else None
    emit(get_api().namespace_keys(agent_id=agent_id, jwt_keys=text, create=create), as_json,
         lambda r: f"namespace {r['namespace']}: {'created, ' if r['created'] else ''}"
                   + (f"{r['keys']} device key(s)" if r["keys"] else "tokens of the server's key"))
