"""`memoryd export FILE` / `memoryd import FILE`: all of an agent's memories as JSON Lines."""
from __future__ import annotations

from pathlib import Path

import click

from memoryd.cli.common import agent_option, emit, get_api, handles_errors, json_option
from memoryd.cli.main import cli


@cli.command("export")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@agent_option
@json_option
@handles_errors
def export_cmd(file: Path, agent_id: str, as_json: bool) -> None:
    """Write hot, tree, warm and cold memories to FILE (JSON Lines, header first)."""
    from memoryd.cli.progress import progress_for

    api = get_api()
    with progress_for(as_json):
        result = api.export_to(agent_id=agent_id, file=str(file))
    emit(result, as_json, lambda r: f"exported {r['lines']} lines to {r['file']}")


@cli.command("import")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@agent_option
@json_option
@handles_errors
def import_cmd(file: Path, agent_id: str, as_json: bool) -> None:
    """Read an export; every line is validated first, and importing twice changes nothing more."""
    from memoryd.cli.progress import progress_for

    api = get_api()
    with progress_for(as_json):
        result = api.import_from(agent_id=agent_id, file=str(file))
    for w in result["warnings"]:
        click.echo(f"memoryd: warning: {w}", err=True)
    counts = result["counts"]
    emit(counts, as_json, lambda c: "imported " + ", ".join(f"{k}={v}" for k, v in c.items()))
