"""Operations on the routing table (tiers/ingest/routing.py): `route_show`, `route_set`, and the claims the
reading paths make before they read a workspace or an OpenClaw agent."""
from __future__ import annotations

import copy
import logging
import time
from pathlib import Path
from typing import Any

from memoryd.tiers.base.config import validate_agent_id
from memoryd.tiers.base.errors import UsageError
from memoryd.tiers.ingest import routing

from memoryd.daemon.engine import Engine, Params, agent_ids
from memoryd.daemon.routes_upgrade import ensure_routes

log = logging.getLogger("memoryd.daemon")


def _install(engine: Engine) -> Any:
    from memoryd.tiers.ingest.openclaw.install import Install

    return Install(engine.config)


def workspace_agent(engine: Engine, asked: str | None, by: str, record: bool = True) -> str:
    """The agent `ingest-daily` reads the configured workspace into (recorded on first use; another
    agent named than the routed one: UsageError with the command that moves the route). `record=False`:
    the answer only, nothing written (a read refused as bad input must change nothing, its route included)."""
    ensure_routes(engine)
    workspace = engine.config.workspace
    install = _install(engine)
    configured, unrouted = install.configured_for_workspace(workspace), install.reader_of(workspace)
    if asked is not None:
        validate_agent_id(asked)
    if not record:
        return routing.claim_workspace(copy.deepcopy(routing.load(engine.config.home)), workspace, asked, by,
                                       time.time(), configured, unrouted)
    return routing.update(engine.config.home, lambda table: routing.claim_workspace(
        table, workspace, asked, by, time.time(), configured, unrouted))


def openclaw_agent(engine: Engine, install: Any, openclaw_id: str, by: str) -> str:
    """Record where an OpenClaw agent read now goes; a memoryd agent it creates is announced in the log."""
    config = engine.config
    workspace = install.workspace(openclaw_id)

    agent, new = routing.update(config.home, lambda table: routing.claim_openclaw(
        table, openclaw_id, workspace, by, time.time(), lambda a: config.agent_dir(a).is_dir(),
        install.configured(openclaw_id), install.unrouted(openclaw_id)))
    if new:
        log.info("OpenClaw agent %s (workspace %s) is new: its memories go to a new memoryd agent %s; to send "
                 "them to another agent instead: memoryd route openclaw %s --agent-id ID", openclaw_id,
                 routing.workspace_key(workspace), agent, openclaw_id)
    return agent


def _how(entry: dict[str, Any] | None, configured: str | None) -> str:
    return "configured" if configured else (entry or {}).get("how") or "not read yet"


def route_show(engine: Engine, params: Params) -> dict[str, Any]:
    """The table, and where the configured workspace and each OpenClaw agent of the install go now."""
    ensure_routes(engine)
    table = routing.load(engine.config.home)
    install = _install(engine)
    seen = [{"openclaw_agent": a.openclaw_id, "agent_id": a.memoryd_id, "workspace": str(a.workspace),
             "how": _how(table["openclaw"].get(a.openclaw_id), install.configured(a.openclaw_id))}
            for a in install.agents()]
    workspace = engine.config.workspace
    configured = install.configured_for_workspace(workspace)
    entry = table["workspaces"].get(routing.workspace_key(workspace))
    daily = {"path": routing.workspace_key(workspace), "how": _how(entry, configured),
             "agent_id": routing.workspace_agent(table, workspace, configured) or routing.DEFAULT_AGENT,
             "since": (entry or {}).get("since")}
    return {"home": str(engine.config.home), "workspace": daily, "openclaw": seen, "table": table}


def route_set(engine: Engine, params: Params) -> dict[str, Any]:
    """{kind: workspace|openclaw, name, agent_id}: where that source goes from now on."""
    ensure_routes(engine)
    kind, name = params.get("kind"), params.get("name")
    agent_id = validate_agent_id(params.get("agent_id", ""))
    install = _install(engine)
    workspace: str | None = None
    if kind == "workspace":
        name = str(Path(name).expanduser()) if name else str(engine.config.workspace)
        if not Path(name).is_dir():
            raise UsageError(f"no workspace folder at {name}")
        configured = install.configured_for_workspace(Path(name))
    elif kind == "openclaw":
        if not isinstance(name, str) or name not in install.agent_ids():
            raise UsageError(f"no OpenClaw agent {name!r} under {install.state_dir}")
        workspace, configured = str(install.workspace(name)), install.configured(name)
    else:
        raise UsageError("route kind must be workspace or openclaw")
    if configured and configured != agent_id:
        raise UsageError(f"config.toml sets [watch] notes_agent = {configured!r} for this source: change it there")
    done = routing.update(engine.config.home, lambda table: routing.route(
        table, kind, name, agent_id, time.time(), workspace))
    done["new_agent"] = agent_id not in agent_ids(engine.config)
    log.info("route: %s %s now feeds agent %s", kind, done.get("workspace") if kind == "workspace" else name,
             agent_id)
    return done
