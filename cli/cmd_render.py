"""`memoryd render`: hot memory as a managed block inside the file an agent reads (the rest of it is kept)."""
from __future__ import annotations

from typing import Any

import click

from memoryd.cli.common import check_optional_agent, emit, get_api, handles_errors, json_option
from memoryd.cli.main import cli


def _human(data: dict[str, Any]) -> str:
    lines = []
    for r in data["targets"]:
        what = "wrote" if r["written"] else "unchanged:"
        extra = "; kept the changes others made since the last render" if r["outside_changes"] else ""
        lines.append(f"{what} {r['path']} ({r['block_bytes']} byte block{extra})")
    return "\n".join(lines)


@cli.command()
@click.option("--target", "targets", multiple=True, metavar="openclaw|claude|agents|file:PATH",
              help="openclaw = the workspace's MEMORY.md, claude = CLAUDE.md, agents = AGENTS.md (both in the "
                   "project dir), file:PATH = any file. Repeatable. [default: config.toml [render] targets]")
@click.option("--project-dir", type=click.Path(file_okay=False), default=None,
              help="Where CLAUDE.md / AGENTS.md live. [default: [render] project_dir, else the current directory]")
@click.option("--agent-id", "agent_id", default=None, callback=check_optional_agent,
              help="Agent whose memory to render. [default: [render] agent, else default]")
@json_option
@handles_errors
def render(targets: tuple[str, ...], project_dir: str | None, agent_id: str | None, as_json: bool) -> None:
    """Write hot memory and the tree summary between memoryd's markers in each target file."""
    results = get_api().render(agent_id=agent_id, targets=targets, project_dir=project_dir)["targets"]
    for r in results:
        for warning in r["warnings"]:
            click.echo(f"memoryd: warning: {warning}", err=True)
    emit({"targets": results}, as_json, _human)
