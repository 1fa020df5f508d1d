"""Operations for Claude Code and Codex: `harness_take` (one session file, from a hook or the watcher),
`harness_sync` (every session file of a harness) and `harness_status`.

The agent of each file comes from daemon/hooks_route.py's one rule. An agent first seen through a
harness is initialised like `memoryd init` (ops_openclaw.ensure_agent). What is new past each file's
cursor is taken (tiers/ingest/harness_sync.py); a Claude Code session brings its subagents' transcripts
and its project's memory files along.
"""
from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

from memoryd.tiers.base.config import Config
from memoryd.tiers.base.errors import UsageError
from memoryd.tiers.ingest import harness_sync as hs
from memoryd.tiers.ingest.claude_code.memory_files import memory_files
from memoryd.tiers.ingest.claude_code.transcript import transcript_files
from memoryd.tiers.ingest.codex.rollout import rollout_files

from memoryd.daemon import hooks_route as route
from memoryd.daemon.engine import Engine, Params, agent_ids
from memoryd.daemon.ops_openclaw import ensure_agent
from memoryd.daemon.ops_sync import stamp_edits

log = logging.getLogger("memoryd.daemon")
SUMMED = ("turns", "cold", "warm", "notes")


def _harness(params: Params) -> str:
    harness = params.get("harness")
    if harness not in route.HARNESSES:
        raise UsageError(f"harness must be one of {', '.join(route.HARNESSES)}, not {harness!r}")
    return str(harness)


def _companions(harness: str, path: Path) -> list[tuple[str, Path]]:
    """A Claude Code session's subagent transcripts and its project's memory files (taken with it)."""
    if harness != "claude" or path.parent.name == "subagents":
        return []
    subs = sorted((path.parent / path.stem / "subagents").glob("*.jsonl"))
    notes = memory_files(path.parent / "memory")
    return [("session", p) for p in subs] + [("note", p) for p in notes]


def _take(engine: Engine, agent: str, harness: str, files: list[tuple[str, Path]]) -> dict[str, Any]:
    """Take each (kind, path) into `agent`; one summed report with the per-file ones that found something."""
    ensure_agent(engine, agent)
    out: dict[str, Any] = {"agent_id": agent, "harness": harness, "files": [], "errors": [],
                           **{k: 0 for k in SUMMED}}
    with engine.memory(agent) as mem:
        for kind, path in files:
            try:
                report = hs.take_memory_file(mem, path) if kind == "note" else hs.take_file(mem, harness, path)
            except UsageError as exc:  # a file gone or unreadable: the others still count
                out["errors"].append(f"{path.name}: {exc.message}")
                continue
            for key in SUMMED:
                out[key] += report[key]
            if report["turns"] or report["notes"]:
                out["files"].append(report)
    if out["warm"] or out["cold"]:
        stamp_edits(engine.config, agent)
    return out


def harness_take(engine: Engine, params: Params) -> dict[str, Any]:
    """{harness, path, cwd?, hook_agent?}: what is new in one session (or memory) file, now."""
    harness = _harness(params)
    raw = params.get("path")
    if not isinstance(raw, str) or not raw.strip():
        raise UsageError("path must be the session file (transcript_path)")
    path = Path(raw).expanduser()
    if not path.is_absolute() or not path.is_file():
        raise UsageError(f"no session file at {path}")
    if path.suffix not in (".jsonl", ".md"):  # a transcript, a rollout or a memory file: nothing else is read
        raise UsageError(f"{path.name} is not a session file (.jsonl) or a memory file (.md)")
    found = route.dirs(engine.config)
    kind = (route.classify(path, found) or (harness, "note" if path.suffix == ".md" else "session"))[1]
    cwd = params.get("cwd") or (route.note_project(path, found) if kind == "note" else route.session_cwd(harness, path))
    agent = route.agent_for(engine.config, harness, cwd, params.get("hook_agent"))
    return _take(engine, agent, harness, [(kind, path)] + _companions(harness, path))


def _all_files(config: Config, harness: str) -> list[tuple[str, Path]]:
    found = route.dirs(config)
    if harness == "codex":
        return [("session", p) for p in rollout_files(found.codex_sessions)]
    sessions = [("session", p) for p in transcript_files(found.claude_projects)]
    notes = [("note", p) for p in sorted(found.claude_projects.glob("*/memory/*.md")) if p.name != "MEMORY.md"]
    return sessions + notes


def harness_sync(engine: Engine, params: Params) -> dict[str, Any]:
    """{harness, hook_agent?}: every session file of the harness, each into the agent its project feeds."""
    harness = _harness(params)
    config = engine.config
    found = route.dirs(config)
    by_agent: dict[str, list[tuple[str, Path]]] = {}
    for kind, path in _all_files(config, harness):
        cwd = route.note_project(path, found) if kind == "note" else route.session_cwd(harness, path)
        by_agent.setdefault(route.agent_for(config, harness, cwd, params.get("hook_agent")), []).append((kind, path))
    reports = [_take(engine, agent, harness, files) for agent, files in sorted(by_agent.items())]
    root = found.codex_sessions if harness == "codex" else found.claude_projects
    return {"harness": harness, "dir": str(root), "dir_missing": not root.is_dir(), "agents": reports,
            **{k: sum(r[k] for r in reports) for k in SUMMED}}


def _read_state(config: Config, agent_id: str) -> dict[str, Any]:
    try:
        obj = json.loads((config.agent_dir(agent_id) / hs.STATE_FILE).read_bytes())
    except (OSError, ValueError):
        return {}
    return obj if isinstance(obj, dict) else {}


def _cursor(path: str, entry: dict[str, Any]) -> dict[str, Any]:
    try:
        size = Path(path).stat().st_size
    except OSError:
        size = None
    offset = int(entry.get("offset", 0))
    return {"file": path, "session_id": entry.get("session_id"), "cwd": entry.get("cwd"), "offset": offset,
            "pending_bytes": None if size is None else max(0, size - offset), "turns": entry.get("turns", 0),
            "at": entry.get("at")}


def harness_status(engine: Engine, params: Params) -> dict[str, Any]:
    """Per harness: its dir, and per agent it fed: cursors, totals, what it took last and when (read-only)."""
    config = engine.config
    found = route.dirs(config)
    wanted = params.get("agent_id")
    rows: dict[str, dict[str, Any]] = {
        "claude": {"harness": "claude", "dir": str(found.claude_projects), "exists": found.claude_projects.is_dir(),
                   "default_agent": route.agent_for(config, "claude", None), "agents": []},
        "codex": {"harness": "codex", "dir": str(found.codex_sessions), "exists": found.codex_sessions.is_dir(),
                  "default_agent": route.agent_for(config, "codex", None), "agents": []}}
    for agent in agent_ids(config):
        if wanted not in (None, agent):
            continue
        state = _read_state(config, agent)
        for harness, summary in (state.get("harnesses") or {}).items():
            if harness not in rows:
                continue
            cursors = [_cursor(p, e) for p, e in sorted((state.get("files") or {}).items())
                       if e.get("harness") == harness]
            rows[harness]["agents"].append({"agent_id": agent, "cursors": cursors, **summary})
    return {"harnesses": list(rows.values())}
