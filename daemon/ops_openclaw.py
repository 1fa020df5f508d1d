"""Operations for OpenClaw: `openclaw_sync`, `openclaw_status` and `flush`.

One memoryd agent per OpenClaw agent, the one its workspace feeds (the routing table, daemon/ops_route.py);
a memoryd agent first made for an OpenClaw agent is announced in the log and initialised like `memoryd init`.
After new memories arrived, the critical state is pushed once; a failed push waits in the outbox like every other.
"""
from __future__ import annotations

import json
import logging
from dataclasses import replace
from pathlib import Path
from typing import Any

from memoryd.tiers.base.config import Config, validate_agent_id
from memoryd.tiers.base.errors import MemorydError, UsageError

from memoryd.daemon.engine import Engine, Params
from memoryd.daemon.ops_core import init
from memoryd.daemon.ops_route import openclaw_agent
from memoryd.daemon.routes_upgrade import ensure_routes
from memoryd.daemon.ops_sync import stamp_edits, sync

log = logging.getLogger("memoryd.daemon")


def _install(config: Config) -> Any:
    from memoryd.tiers.ingest.openclaw.install import Install

    return Install(config)


def _llm(config: Config) -> Any:
    """The LLM for conversation distillation when `[openclaw] distill = "llm"`, else None (rule mode)."""
    if config.openclaw.distill == "rule":
        return None
    from memoryd.sync.llm import llm_from_config
    from memoryd.tiers.base.errors import ConfigError

    llm = llm_from_config(config)
    if llm is None:
        raise ConfigError('[openclaw] distill = "llm" needs MEMORYD_LLM_ENDPOINT (or llm_endpoint in config.toml)')
    return llm


def ensure_agent(engine: Engine, agent_id: str) -> bool:
    """Initialise an agent seen for the first time (dirs, key, schema) as `init` does; True if it was new.
    Where an OpenClaw agent goes was decided (and a new agent announced) by ops_route.openclaw_agent."""
    config = engine.config
    if config.agent_dir(agent_id).is_dir() and config.key_path(agent_id).exists():
        return False
    init(engine, {"agent_id": agent_id})
    log.info("agent %s initialised for OpenClaw", agent_id)
    return True


def _push(engine: Engine, agent_id: str, report: dict[str, Any]) -> None:
    if not (report.get("warm") or report.get("hot") or report.get("cold")):
        return
    stamp_edits(engine.config, agent_id)
    try:
        report["sync"] = sync(engine, {"agent_id": agent_id})
    except MemorydError as exc:  # queued in the outbox; the daemon retries it
        report["sync"] = {"queued": True, "error": exc.message}


def _sync_one(engine: Engine, install: Any, oc_agent: Any, close_open: bool,
              parts: tuple[str, ...]) -> dict[str, Any]:
    from memoryd.tiers.ingest.openclaw.agent_sync import AgentSync

    config = engine.config
    if not config.agent_dir(oc_agent.memoryd_id).is_dir() and not oc_agent.has_content():
        return {"agent_id": oc_agent.memoryd_id, "openclaw_agent": oc_agent.openclaw_id, "segments": 0, "turns": 0,
                "cold": 0, "warm": 0, "hot": [], "skipped": {}, "notes": 0, "errors": [],
                "warnings": ["nothing to read yet"]}
    routed = openclaw_agent(engine, install, oc_agent.openclaw_id, "openclaw")
    if routed != oc_agent.memoryd_id:  # the table changed since `install` was read (another process)
        oc_agent = replace(oc_agent, memoryd_id=routed)
    ensure_agent(engine, oc_agent.memoryd_id)
    llm = _llm(config)
    with engine.memory(oc_agent.memoryd_id) as mem:
        report = AgentSync(mem, oc_agent, llm, close_open=close_open).run(parts)
    _push(engine, oc_agent.memoryd_id, report)
    return report


def openclaw_sync(engine: Engine, params: Params) -> dict[str, Any]:
    """Ingest what is new in the OpenClaw install (one agent with `openclaw_agent`, else all); idempotent."""
    ensure_routes(engine)  # a home older than the routing table: recorded (and a split repaired) first
    install = _install(engine.config)
    wanted = params.get("openclaw_agent")
    parts = tuple(params.get("parts") or ("store", "jsonl", "notes"))
    if not set(parts) <= {"store", "jsonl", "notes"}:
        raise UsageError("parts must be among store, jsonl, notes")
    ids = install.agent_ids()
    if wanted is not None:
        validate_agent_id(wanted)
        if wanted not in ids:
            raise UsageError(f"no OpenClaw agent {wanted!r} under {install.state_dir}")
        ids = [wanted]
    elif params.get("agent_id") is not None:  # only what maps to this agent
        ids = [a for a in ids if install.agent(a).memoryd_id == params["agent_id"]]
    out = [_sync_one(engine, install, install.agent(a), bool(params.get("close_open", True)), parts) for a in ids]
    return {"state_dir": str(install.state_dir), "agents": out, "state_dir_missing": install.missing,
            "warnings": [install.warning] if install.warning else []}


def _read_state(config: Config, agent_id: str) -> dict[str, Any]:
    """The agent's OpenClaw state, read without quarantining or creating anything (status is read-only)."""
    from memoryd.tiers.ingest.openclaw.agent_sync import STATE_FILE

    try:
        obj = json.loads((config.agent_dir(agent_id) / STATE_FILE).read_bytes())
    except (OSError, ValueError):
        return {}
    return obj if isinstance(obj, dict) else {}


def _pending(store: Path, cursors: dict[str, Any]) -> tuple[int | None, str | None]:
    """Events in the store past the cursors (one GROUP BY on the primary key), or (None, why not)."""
    from memoryd.tiers.ingest.openclaw.store import SessionStore, StoreUnreadable

    if not store.exists():
        return 0, None
    try:
        with SessionStore(store) as s:
            tops = s.sessions()
    except StoreUnreadable as exc:
        return None, exc.message
    return sum(max(0, top - int((cursors.get(sid) or {}).get("seq", -1))) for sid, top in tops.items()), None


def openclaw_status(engine: Engine, params: Params) -> dict[str, Any]:
    """Per OpenClaw agent: its memoryd agent, store, cursors, events not yet taken, last ingest, skipped."""
    config = engine.config
    install = _install(config)
    rows: list[dict[str, Any]] = []
    if install.missing and params.get("agent_id") is not None:  # `memoryd status`: shown as this agent's openclaw error
        rows.append({"error": install.warning})
    for oc_id in install.agent_ids():
        agent = install.agent(oc_id)
        if params.get("agent_id") not in (None, agent.memoryd_id):
            continue
        state = _read_state(config, agent.memoryd_id)
        cursors = (state.get("store") or {}).get("sessions") or {}
        pending, error = _pending(agent.store, cursors)
        rows.append({
            "openclaw_agent": oc_id, "agent_id": agent.memoryd_id, "store": str(agent.store),
            "store_exists": agent.store.exists(), "workspace": str(agent.workspace),
            "sessions": len(cursors), "cursor": {sid: c.get("seq") for sid, c in sorted(cursors.items())},
            "pending_events": pending, "jsonl_sessions": len(state.get("jsonl") or {}),
            "notes": len(state.get("notes") or {}), "last_ingest": state.get("last_ingest"),
            "last_run": state.get("last_run"), "skipped": state.get("skipped") or {},
            "totals": state.get("totals") or {},
            "error": error or (state.get("store") or {}).get("error") or state.get("last_error"),
        })
    return {"state_dir": str(install.state_dir), "agents": rows, "state_dir_missing": install.missing,
            "warnings": [install.warning] if install.warning else []}


def flush(engine: Engine, params: Params) -> dict[str, Any]:
    """Ingest one session now ({"agent_id", "session": path}): a JSONL transcript or a session store."""
    from memoryd.tiers.ingest.openclaw.install import OpenClawAgent
    from memoryd.tiers.ingest.openclaw.agent_sync import flush_file

    raw = params.get("session")
    if not isinstance(raw, str) or not raw.strip():
        raise UsageError("session must be the path of a transcript file")
    path = Path(raw).expanduser()
    if not path.is_file():
        raise UsageError(f"no session file at {path}")
    config = engine.config
    install = _install(config)
    oc_id = _owner(install, path)
    agent_id = params.get("agent_id") or (install.agent(oc_id).memoryd_id if oc_id else "default")
    validate_agent_id(agent_id)
    base = install.agent(oc_id) if oc_id else None
    target = OpenClawAgent(oc_id or agent_id, agent_id, base.store if base else path,
                           base.sessions_dir if base else path.parent, base.workspace if base else config.workspace)
    ensure_agent(engine, agent_id)
    with engine.memory(agent_id) as mem:
        report = flush_file(mem, target, path, _llm(config))
    _push(engine, agent_id, report)
    return report


def _owner(install: Any, path: Path) -> str | None:
    """The OpenClaw agent whose dir holds `path` (…/agents/<id>/sessions/… or …/agents/<id>/agent/…)."""
    resolved = path.resolve()
    for root in (install.sessions_root, install.state_dir / "agents"):
        try:
            rel = resolved.relative_to(root.resolve())
        except (ValueError, OSError):
            continue
        if len(rel.parts) >= 3 and rel.parts[1] in ("sessions", "agent"):
            return rel.parts[0]
    return None
