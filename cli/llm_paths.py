"""`retrieve --mode llm`: the configured LLM picks tree paths and re-orders the top candidates (keyword fallback)."""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from memoryd.tiers.base.config import Config

if TYPE_CHECKING:
    from memoryd.daemon.api import MemoryApi

# Hot sections the LLM may name beside the tree's own paths (the seed's "active_context/events").
HOT_PATHS = ("active_context/projects", "active_context/events", "active_context/tasks", "identity",
             "owner_profile", "lessons")


def _nodes(api: MemoryApi, agent_id: str) -> dict:
    return api.tree_show(agent_id=agent_id)["tree"]["nodes"]


def write_prompt(api: MemoryApi, agent_id: str, query: str, path: str) -> None:
    from memoryd.tiers.base.atomic import atomic_write_text
    from memoryd.tiers.distillation.llm_prompts import tree_search_prompt

    atomic_write_text(Path(path), tree_search_prompt(_nodes(api, agent_id), query, None, HOT_PATHS),
                      private_dir=False)
    click.echo(f"wrote the tree-search prompt to {path}")


class _FailOnce:
    """The LLM of one command: after a transport failure or timeout, later calls fail at once
    (a dead endpoint must not cost a second timeout)."""

    def __init__(self, llm: Any) -> None:
        self.llm, self.error = llm, None

    def complete(self, prompt: str, *, timeout: float = 30.0) -> str:
        from memoryd.tiers.base.errors import RemoteError

        if self.error is not None:
            raise self.error
        try:
            return self.llm.complete(prompt, timeout=timeout)
        except RemoteError as exc:
            self.error = exc
            raise


def retrieve_llm(config: Config, api: MemoryApi, **params: Any) -> dict[str, Any]:
    """--mode llm: tree paths from the LLM, then the LLM re-orders the ranking's top `[retrieval] llm_rerank`
    candidates; on error, timeout or garbage the keyword order stands, with a warning. `params`: retrieve's."""
    from memoryd.sync.llm import llm_from_config
    from memoryd.tiers.distillation.llm_prompts import tree_search_llm
    from memoryd.tiers.retrieval.llm_rerank import rerank_llm

    raw = llm_from_config(config)
    if raw is None:
        click.echo("memoryd: warning: MEMORYD_LLM_ENDPOINT is not set; used keyword search", err=True)
        return api.retrieve(**params)
    llm, settings = _FailOnce(raw), config.section("retrieval")
    timeout = float(settings["llm_timeout"])
    paths, warning = tree_search_llm(_nodes(api, params["agent_id"]), params["query"], llm, extra=HOT_PATHS,
                                     timeout=timeout)
    if warning:
        click.echo(f"memoryd: warning: {warning}", err=True)
    limit, depth = params["limit"], int(settings["llm_rerank"])
    asked = dict(params, paths=None if warning else {p["path"]: p["relevance"] for p in paths or []},
                 limit=max(limit, depth))
    data = api.retrieve(**asked)
    results, warning = (rerank_llm(params["query"], data["results"], llm, depth, timeout)
                        if depth and params["query"] else (data["results"], None))
    warnings = list(data.get("warnings") or []) + ([warning] if warning else [])
    return dict(data, results=results[:limit], warnings=warnings)
