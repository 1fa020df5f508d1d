"""`memoryd embed`: vectors for hybrid retrieval, for the memories of the local index that have none."""
from __future__ import annotations

from typing import Any

import click

from memoryd.cli.common import agent_option, emit, get_api, handles_errors, json_option
from memoryd.cli.main import cli


@cli.command()
@click.option("--limit", type=click.IntRange(1, None), default=None, help="Embed at most this many memories.")
@click.option("--rebuild", is_flag=True, help="Drop the agent's vectors first and embed every memory again.")
@agent_option
@json_option
@handles_errors
def embed(limit: int | None, rebuild: bool, agent_id: str, as_json: bool) -> None:
    """Compute the embedding vectors hybrid retrieval needs (optional extra: memoryd[embed])."""
    from memoryd.cli.progress import progress_for

    with progress_for(as_json):
        report = get_api().embed(agent_id=agent_id, limit=limit, rebuild=rebuild)
    emit(report, as_json, _human)


def _human(r: dict[str, Any]) -> str:
    return (f"{r['embedded']} memories embedded; {r['with_vector']} of {r['memories']} in the local index "
            f"have a vector, and {r['warm_and_hot']} warm and hot items ({r['model']})")
