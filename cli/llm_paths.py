"""`retrieve --mode llm`: ask the configured LLM which tree paths fit the query (keyword fallback)."""
from __future__ import annotations

from pathlib import Path

import click

from memoryd.tiers.config import Config

# Hot sections the LLM may name beside the tree's own paths (the seed's "active_context/events").
HOT_PATHS = ("active_context/projects", "active_context/events", "active_context/tasks", "identity",
             "owner_profile", "lessons")


def _nodes(config: Config, agent_id: str) -> dict:
    from memoryd.tiers.agent import AgentMemory

    return AgentMemory(config, agent_id).read_state()["tree"]["nodes"]


def write_prompt(config: Config, agent_id: str, query: str, path: str) -> None:
    from memoryd.tiers.atomic import atomic_write_text
    from memoryd.tiers.llm_prompts import tree_search_prompt

    atomic_write_text(Path(path), tree_search_prompt(_nodes(config, agent_id), query, None, HOT_PATHS),
                      private_dir=False)
    click.echo(f"wrote the tree-search prompt to {path}")


def llm_tree_paths(config: Config, agent_id: str, query: str) -> dict[str, float] | None:
    """Path → relevance from the LLM, or None (with a warning) to fall back to keyword search."""
    from memoryd.sync.llm import llm_from_config
    from memoryd.tiers.llm_prompts import tree_search_llm

    llm = llm_from_config(config)
    if llm is None:
        click.echo("memoryd: warning: MEMORYD_LLM_ENDPOINT is not set; used keyword search", err=True)
        return None
    paths, warning = tree_search_llm(_nodes(config, agent_id), query, llm, extra=HOT_PATHS)
    if warning:
        click.echo(f"memoryd: warning: {warning}", err=True)
        return None
    return {p["path"]: p["relevance"] for p in paths or []}
