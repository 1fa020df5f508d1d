"""Operations of the knowledge layer's sealing and tree restructure: `unseal`, `tree restructure [--dry-run]
[--undo]`, and the LLM consolidation hands to them ([knowledge] llm = "auto" and an llm_endpoint)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memoryd.tiers.base.errors import UsageError

from memoryd.daemon.engine import Engine, Params, agent_of
from memoryd.daemon.ops_sync import push_forgotten, stamp_edits

if TYPE_CHECKING:
    from memoryd.tiers.base.config import Config
    from memoryd.tiers.base.ports import LLM


def knowledge_llm(config: Config) -> LLM | None:
    """The LLM for summaries and node names, or None (rules): [knowledge] llm = "never", or no endpoint."""
    if config.knowledge.llm == "never" or not config.llm_endpoint:
        return None
    from memoryd.sync.llm import llm_from_config

    return llm_from_config(config)


def _known_agent(engine: Engine, params: Params) -> str:
    agent_id = agent_of(params)
    if not engine.config.agent_dir(agent_id).exists():
        raise UsageError(f"agent {agent_id!r} has no memories on this device")
    return agent_id


def unseal(engine: Engine, params: Params) -> dict[str, Any]:
    """{agent_id, id}: the summary's members back to plain rank, the summary forgotten (cloud included)."""
    from memoryd.tiers.knowledge.seal import unseal as run

    if not str(params.get("id") or "").strip():
        raise UsageError("summary id is empty")
    with engine.memory(_known_agent(engine, params)) as mem:
        result = run(mem, str(params["id"]))
    result["sync"] = push_forgotten(engine.config, mem.agent_id)
    return result


def tree_restructure(engine: Engine, params: Params) -> dict[str, Any]:
    """{agent_id, dry_run?, undo?}: propose and apply a restructure of the tree, or undo the last one."""
    from memoryd.tiers.knowledge.restructure import restructure, undo

    if params.get("dry_run") and params.get("undo"):
        raise UsageError("--dry-run and --undo do not go together")
    with engine.memory(_known_agent(engine, params)) as mem:
        if params.get("undo"):
            result = undo(mem)
        else:
            result = restructure(mem, llm=knowledge_llm(engine.config), dry_run=bool(params.get("dry_run")))
        result["warnings"] = list(mem.warnings)
    if not params.get("dry_run"):
        stamp_edits(engine.config, mem.agent_id)
    return result
