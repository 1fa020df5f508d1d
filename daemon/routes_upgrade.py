"""The first run with a routing table: record where each workspace and OpenClaw agent went so far, and
repair a split home (one workspace read into two memoryd agents) by merging into the agent used first.

A home older than `routing.json` may hold the same notes twice: `ingest-daily` put them in `default`, then
the daemon read the same workspace as OpenClaw agent `main` into a memoryd agent `main` it created. The
agent that read the workspace first (its oldest ingest ledger) keeps it; every memory of the later one is
merged into it (export → import: ids are content ids, so duplicates fold into one), the later one's
OpenClaw cursors come along, and its OpenClaw agent is routed to the first. The later agent's own files
are left as they were (nothing is deleted); the table's `merged` entry and the log say what happened.
"""
from __future__ import annotations

import io
import logging
import shutil
import time
from pathlib import Path
from typing import Any

from memoryd.tiers.base.config import Config
from memoryd.tiers.ingest import routing

from memoryd.daemon.engine import Engine, agent_ids

log = logging.getLogger("memoryd.daemon")
OPENCLAW_STATE = "openclaw-state.json"  # tiers/ingest/openclaw/agent_sync.STATE_FILE (not imported: start-up)


def ensure_routes(engine: Engine) -> None:
    """Write the routing table once, from what the home holds, then finish any merge a split needs (a
    merge cut short by a crash is done again at the next call: importing twice changes nothing more)."""
    config = engine.config
    if not routing.exists(config.home):
        first = routing.empty_table()
        _first_table(config, first)
        if first != routing.empty_table():  # a home with nothing routed yet writes nothing (a refused read included)
            routing.update(config.home,
                           lambda table: None if routing.exists(config.home) else _first_table(config, table))
    pending = [(later, m["into"], m.get("workspace", "")) for later, m in routing.load(config.home)["merged"].items()
               if not m.get("done")]
    for later, first, workspace in pending:
        _merge(engine, later, first, workspace)


def _first_use(config: Config, agent_id: str) -> float:
    """When an agent first read notes: its oldest ingest ledger (written once per month of notes)."""
    folder = config.agent_dir(agent_id) / "ingested"
    times = [p.stat().st_mtime for p in folder.glob("*.json")] if folder.is_dir() else []
    return min(times, default=float("inf"))


def _readers(config: Config) -> tuple[dict[str, list[str]], dict[str, tuple[str, str]]]:
    """Per workspace, the memoryd agents that read it; per OpenClaw agent, (its memoryd agent, workspace)."""
    from memoryd.tiers.ingest.openclaw.install import Install

    existing = set(agent_ids(config))
    install = Install(config)  # no table yet: the mapping older versions used (notes_agent, else the same name)
    readers: dict[str, list[str]] = {}
    fed: dict[str, tuple[str, str]] = {}
    for agent in install.agents():
        if agent.memoryd_id in existing and (config.agent_dir(agent.memoryd_id) / OPENCLAW_STATE).is_file():
            ws = routing.workspace_key(agent.workspace)
            fed[agent.openclaw_id] = (agent.memoryd_id, ws)
            readers.setdefault(ws, []).append(agent.memoryd_id)
    daily_ws = routing.workspace_key(config.workspace)
    fed_agents = {m for m, _ in fed.values()}
    for agent_id in sorted(existing - fed_agents):  # `ingest-daily` reads the configured workspace only
        if (config.agent_dir(agent_id) / "ingested").is_dir():
            readers.setdefault(daily_ws, []).insert(0, agent_id)
    return readers, fed


def _first_table(config: Config, table: routing.Table) -> None:
    """Fill an empty table from the home, with the merges a split needs (`merged`, not yet `done`)."""
    now = time.time()
    readers, fed = _readers(config)
    for ws, agents in readers.items():
        unique = list(dict.fromkeys(agents))
        first = min(unique, key=lambda a: (_first_use(config, a), unique.index(a)))
        table["workspaces"][ws] = routing.record(first, "repair" if len(unique) > 1 else "upgrade", "upgrade", now)
        for later in unique:
            if later != first:
                table["merged"][later] = {"into": first, "at": now, "workspace": ws, "done": False}
    for oc_id, (memoryd_id, ws) in fed.items():
        target = table["workspaces"].get(ws, {}).get("agent_id", memoryd_id)
        table["openclaw"][oc_id] = routing.record(target, "repair" if target != memoryd_id else "upgrade",
                                                  "upgrade", now, workspace=ws)


def _merge(engine: Engine, later: str, first: str, workspace: str) -> dict[str, Any]:
    """Every memory of `later` into `first` (duplicates fold by id), its OpenClaw cursors and ledgers too."""
    from memoryd.tiers.memory.transfer import export_lines, import_from

    from memoryd.daemon.ops_sync import stamp_edits

    config = engine.config
    with engine.memory(later) as src:
        text = "\n".join(export_lines(src)) + "\n"
    with engine.memory(first) as dst:
        with dst.exclusive():
            counts = import_from(dst, io.StringIO(text))
            _carry_files(config.agent_dir(later), config.agent_dir(first))
    stamp_edits(config, first)
    routing.update(config.home, lambda t: t["merged"].setdefault(later, {}).update(counts, done=True))
    log.warning("split home repaired: agent %s also held workspace %s, which agent %s read first; merged into "
                "%s (%d warm, %d cold, %d hot item(s) new there); %s is kept unchanged (its OpenClaw agent now "
                "feeds %s)", later, workspace, first, first, counts["warm"], counts["cold"], counts["hot"],
                later, first)
    return counts


def _carry_files(src: Path, dst: Path) -> None:
    """The later agent's OpenClaw cursors (when the first has none) and the ingest ledgers it alone has,
    so the first agent does not read again what it now holds. Caller holds the first agent's lock."""
    if (src / OPENCLAW_STATE).is_file() and not (dst / OPENCLAW_STATE).exists():
        shutil.copy2(src / OPENCLAW_STATE, dst / OPENCLAW_STATE)
    if (src / "ingested").is_dir():
        from memoryd.tiers.ingest.ledgers import load_ledgers, write_ledgers

        days = sorted({p.stem if len(p.stem) == 10 else p.stem + "-01" for p in (src / "ingested").glob("*.json")})
        theirs, mine = load_ledgers(src, days), load_ledgers(dst, days)
        new = {k: d for k, d in theirs.items() if k not in mine}
        if new:
            write_ledgers(dst, {**mine, **new}, set(new.values()))
