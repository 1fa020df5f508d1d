"""`memoryd export FILE` / `memoryd import FILE`: all of an agent's memories as JSON Lines."""
from __future__ import annotations

from pathlib import Path

import click

from memoryd.cli.common import agent_option, emit, get_config, handles_errors, json_option
from memoryd.cli.main import cli


@cli.command("export")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@agent_option
@json_option
@handles_errors
def export_cmd(file: Path, agent_id: str, as_json: bool) -> None:
    """Write hot, tree, warm and cold memories to FILE (JSON Lines, header first)."""
    from memoryd.daemon.ops import memory
    from memoryd.tiers.memory.transfer import export_to

    from memoryd.cli.progress import progress_for

    with memory(get_config(), {"agent_id": agent_id}, with_archive=True) as mem, progress_for(as_json):
        lines = export_to(mem, file)
    emit({"file": str(file), "lines": lines}, as_json, lambda r: f"exported {r['lines']} lines to {r['file']}")


@cli.command("import")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@agent_option
@json_option
@handles_errors
def import_cmd(file: Path, agent_id: str, as_json: bool) -> None:
    """Read an export; every line is validated first, and importing twice changes nothing more."""
    from memoryd.daemon.ops import memory
    from memoryd.tiers.base.errors import UsageError
    from memoryd.tiers.memory.transfer import import_from

    try:
        fh = open(file, encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"cannot read {file}: {exc.strerror}") from None
    from memoryd.cli.progress import progress_for

    with fh, memory(get_config(), {"agent_id": agent_id}, with_archive=True) as mem:
        with progress_for(as_json):
            counts = import_from(mem, fh)
        for w in mem.warnings:
            click.echo(f"memoryd: warning: {w}", err=True)
    from memoryd.daemon.ops import stamp_edits

    stamp_edits(get_config(), agent_id)
    emit(counts, as_json, lambda c: "imported " + ", ".join(f"{k}={v}" for k, v in c.items()))
