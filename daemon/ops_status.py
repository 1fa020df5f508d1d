"""The `status` operation: per agent, tier sizes and counts, consolidation runs, sync and OpenClaw state."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memoryd.tiers.base.config import Config
from memoryd.tiers.base.errors import MemorydError, UsageError

from memoryd.daemon.engine import Engine, Params, agent_ids, agent_of
from memoryd.daemon.ops_openclaw import openclaw_status

if TYPE_CHECKING:
    from memoryd.tiers.memory.agent import AgentMemory


def status(engine: Engine, params: Params) -> dict[str, Any]:
    """{agent_id?, remote?}: one agent, or every agent of this device."""
    from memoryd.tiers.memory.status import agent_status

    config = engine.config
    ids = [agent_of(params)] if params.get("agent_id") else agent_ids(config)
    for agent_id in ids:
        if not config.agent_dir(agent_id).is_dir():
            raise UsageError(f"no agent {agent_id!r} on this device (memoryd init, or memoryd restore)")
    from memoryd.tiers.ingest import routing

    table = routing.load(config.home)
    out = []
    for agent_id in ids:
        with engine.memory(agent_id) as mem:
            info = agent_status(mem)
            info["cold"].update(_migration_status(config, mem))
        info["sync"] = _sync_status(config, agent_id, bool(params.get("remote")))
        info["openclaw"] = _openclaw_status(engine, agent_id)
        info["harnesses"] = _harness_status(engine, agent_id)
        info["routing"] = routing.feeds(table, agent_id)  # which workspace and OpenClaw agents feed it
        out.append(info)
    return {"home": str(config.home), "agents": out}


def _migration_status(config: Config, mem: AgentMemory) -> dict[str, Any]:
    """Where the move of round-1 plaintext cold rows off the server stands (server URLs only)."""
    if config.db_url.startswith("file:") or not (config.agent_dir(mem.agent_id) / "sync").is_dir():
        return {}
    from memoryd.sync.device_files import SyncFiles
    from memoryd.sync.cloudlog_legacy import status as legacy_status

    state = legacy_status(mem.archive, mem.agent_id, SyncFiles(config, mem.agent_id).db_id)
    return {"plaintext_migration": state} if state and state != "done" else {}


def _openclaw_status(engine: Engine, agent_id: str) -> list[dict[str, Any]]:
    """The OpenClaw agents feeding this memoryd agent (read-only; one short query per store)."""
    try:
        return openclaw_status(engine, {"agent_id": agent_id})["agents"]
    except MemorydError as exc:
        return [{"error": exc.message}]


def _harness_status(engine: Engine, agent_id: str) -> list[dict[str, Any]]:
    """Claude Code and Codex feeding this agent: cursors, what was taken last and when (daemon/hooks_ops.py)."""
    from memoryd.daemon.hooks_ops import harness_status

    rows = []
    for h in harness_status(engine, {"agent_id": agent_id})["harnesses"]:
        rows += [{"harness": h["harness"], "dir": h["dir"], **a} for a in h["agents"]]
    return rows


def _sync_status(config: Config, agent_id: str, remote: bool) -> dict[str, Any]:
    if not remote and not (config.agent_dir(agent_id) / "sync").is_dir():  # never synced: nothing to load
        return {"version": 0, "last_push": None, "last_pull": None, "last_error": None, "pending": 0,
                "outbox": None, "restoring": False, "unpushed_changes": False, "device_id": None}
    from memoryd.sync.status import status_info

    return status_info(config, agent_id, remote=remote)
