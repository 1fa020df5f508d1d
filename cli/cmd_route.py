"""`memoryd route [show] | route workspace [PATH] --agent-id ID | route openclaw NAME --agent-id ID`:
which memoryd agent each workspace and OpenClaw agent feeds (one source, one agent)."""
from __future__ import annotations

from typing import Any

import click

from memoryd.cli.common import emit, get_api, handles_errors, json_option
from memoryd.cli.main import cli


def _ago(t: Any) -> str:
    import time

    return "—" if not isinstance(t, (int, float)) else time.strftime("%Y-%m-%d %H:%M", time.localtime(t))


def _human(r: dict[str, Any]) -> str:
    ws = r["workspace"]
    lines = [f"workspace {ws['path']} → agent {ws['agent_id']} ({ws.get('how')}, {_ago(ws.get('since'))})"]
    for o in r["openclaw"]:
        lines.append(f"openclaw {o['openclaw_agent']} → agent {o['agent_id']} ({o['how']}; workspace {o['workspace']})")
    for path, e in sorted(r["table"]["workspaces"].items()):
        if path != ws["path"]:
            lines.append(f"workspace {path} → agent {e['agent_id']} ({e.get('how')}, {_ago(e.get('since'))})")
    for agent, m in sorted(r["table"]["merged"].items()):
        lines.append(f"agent {agent} was merged into {m.get('into')} on {_ago(m.get('at'))} (split home repaired)")
    lines.append("change one: memoryd route workspace [PATH] --agent-id ID | memoryd route openclaw NAME --agent-id ID")
    return "\n".join(lines)


@cli.group(invoke_without_command=True)
@click.pass_context
def route(ctx: click.Context) -> None:
    """Which agent each workspace and OpenClaw agent feeds (ingest-daily, openclaw sync and the daemon)."""
    if ctx.invoked_subcommand is None:
        ctx.invoke(show)


@route.command()
@json_option
@handles_errors
def show(as_json: bool = False) -> None:
    """Print the routes (also what `memoryd route` alone does)."""
    emit(get_api().route_show(), as_json, _human)


def _set(kind: str, name: str | None, agent_id: str, as_json: bool) -> None:
    done = get_api().route_set(kind=kind, name=name, agent_id=agent_id)
    what = done.get("workspace") if kind == "workspace" else f"OpenClaw agent {done.get('openclaw_agent')}"
    emit(done, as_json, lambda d: f"{what} now feeds agent {agent_id}" + (" (a new agent: it is made at the next "
                                                                      "read)" if d.get("new_agent") else "")
         + "; what was stored before stays where it is")


@route.command()
@click.argument("path", required=False)
@click.option("--agent-id", "agent_id", required=True, help="The agent it feeds from now on.")
@json_option
@handles_errors
def workspace(path: str | None, agent_id: str, as_json: bool) -> None:
    """Send a workspace's notes (default: MEMORYD_WORKSPACE) and the OpenClaw agents reading it to an agent."""
    _set("workspace", path, agent_id, as_json)


@route.command("openclaw")
@click.argument("name")
@click.option("--agent-id", "agent_id", required=True, help="The agent it feeds from now on.")
@json_option
@handles_errors
def openclaw_route(name: str, agent_id: str, as_json: bool) -> None:
    """Send an OpenClaw agent (its conversations and its workspace's notes) to an agent."""
    _set("openclaw", name, agent_id, as_json)
