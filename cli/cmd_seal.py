"""`memoryd unseal SUMMARY_ID`: a sealed summary's memories back to their plain rank, the summary forgotten."""
from __future__ import annotations

import click

from memoryd.cli.common import agent_option, emit, get_api, handles_errors, json_option
from memoryd.cli.main import cli


@cli.command()
@click.argument("summary_id")
@agent_option
@json_option
@handles_errors
def unseal(summary_id: str, agent_id: str, as_json: bool) -> None:
    """Give back the memories sealed into a summary (they rank plainly again; the summary is forgotten)."""
    result = get_api().unseal(agent_id=agent_id, summary_id=summary_id)
    emit(result, as_json, lambda r: f"unsealed {len(r['unsealed'])} memories from {r['id']}")
