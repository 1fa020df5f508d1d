"""Where an OpenClaw install keeps things: its state dir, agents, session stores, JSONL dirs and workspaces.

Follows OpenClaw's own rules: `OPENCLAW_STATE_DIR` (default `~/.openclaw`); agents are
`agents.entries` ({id: {...}}) or `agents.list` ([{id, ...}]); an agent's workspace is its own
`workspace`, else for the default agent `agents.defaults.workspace` or
`<state>/workspace`, else `<agents.defaults.workspace>/<id>` or `<state>/workspace-<id>`. Users of
older setups keep their overrides: `MEMORYD_SESSIONS_DIR` (or `[watch] sessions_dir`) is where the
`<agent>/sessions/*.jsonl` transcripts live, and an explicit `MEMORYD_WORKSPACE` (or `workspace` in
config.toml) is the default agent's workspace; `[watch] notes_agent`, when set, is the memoryd agent
the default OpenClaw agent (notes and conversations) goes to. Every other agent goes where the home's
routing table says (tiers/ingest/routing.py): its workspace's agent, else its own record, else its own name.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memoryd.tiers.base import jsontext
from memoryd.tiers.base.config import AGENT_ID_RE, Config
from memoryd.tiers.ingest import routing
from memoryd.tiers.ingest.openclaw.store import store_path

DEFAULT_AGENT = "main"


@dataclass(frozen=True)
class OpenClawAgent:
    """One OpenClaw agent and the memoryd agent its memories go to."""

    openclaw_id: str
    memoryd_id: str
    store: Path            # SQLite session store (may not exist)
    sessions_dir: Path     # older JSONL transcripts and archives
    workspace: Path        # notes in <workspace>/memory

    def has_content(self) -> bool:
        """Anything to read at all: a store, a transcript, a note (a new memoryd agent waits for one)."""
        if self.store.is_file():
            return True
        for folder, pattern in ((self.sessions_dir, "*.jsonl*"), (self.workspace / "memory", "*.md")):
            if folder.is_dir() and next(folder.glob(pattern), None) is not None:
                return True
        return False


def _read_config(path: Path) -> tuple[dict[str, Any], str | None]:
    """openclaw.json (JSON, or JSON5 with comments and trailing commas); ({}, warning) when unreadable."""
    try:
        raw = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}, None
    except (OSError, UnicodeDecodeError) as exc:
        return {}, f"cannot read {path}: {getattr(exc, 'strerror', None) or exc}"
    for text in (raw, _json5_to_json(raw)):
        try:
            obj = jsontext.loads(text, limit=None)  # too deep: a ValueError, "not JSON memoryd can read"
            return (obj, None) if isinstance(obj, dict) else ({}, f"{path} is not a JSON object")
        except ValueError:
            continue
    return {}, f"{path} is not JSON that memoryd can read; using OpenClaw's default paths"


def _json5_to_json(text: str) -> str:
    text = re.sub(r'("(?:\\.|[^"\\])*")|//[^\n]*|/\*.*?\*/', lambda m: m.group(1) or "", text, flags=re.DOTALL)
    return re.sub(r",(\s*[}\]])", r"\1", text)


def _expand(path: str, state: Path) -> Path:
    return Path(os.path.expandvars(path.replace("$OPENCLAW_STATE_DIR", str(state)))).expanduser()


class Install:
    """An OpenClaw state dir as memoryd sees it (read-only)."""

    def __init__(self, config: Config) -> None:
        # every path below was read and checked with the config (environment > config.toml > default)
        self.state_dir = Path(config.openclaw.state_dir or "~/.openclaw").expanduser()
        self.settings, self.warning = _read_config(self.state_dir / "openclaw.json")
        self.missing = False  # a state dir set on purpose (not the default) that is not there: a mistake to show
        origin = config.sources.get("[openclaw] state_dir", "default")
        if config.openclaw.state_dir and not self.state_dir.is_dir():
            where = "OPENCLAW_STATE_DIR" if origin.startswith("environment") else "[openclaw] state_dir"
            self.missing = True
            self.warning = f"the OpenClaw state dir {self.state_dir} ({where}) does not exist"
        legacy = config.watch.sessions_dir
        self.sessions_root = Path(legacy).expanduser() if legacy else self.state_dir / "agents"
        explicit = config.sources.get("workspace", "default") != "default"  # set by the user, not the default
        self.workspace_override = config.workspace.expanduser() if explicit else None
        self.notes_agent = config.watch.notes_agent
        self.routes = routing.load(config.home)  # read once per Install: a snapshot of where each agent goes

    def _agents_list(self) -> list[dict[str, Any]]:
        """The agent roster: `agents.entries` ({id: {...}}, OpenClaw 2026.9) or `agents.list` ([{id, ...}])."""
        agents = self.settings.get("agents")
        if not isinstance(agents, dict):
            return []
        entries = agents.get("entries")
        if isinstance(entries, dict):
            return [dict(v, id=k) for k, v in entries.items() if isinstance(v, dict)]
        items = agents.get("list")
        return [a for a in items if isinstance(a, dict) and isinstance(a.get("id"), str)] if isinstance(items, list) else []

    def default_agent(self) -> str:
        """The agent marked default, else the only one, else the recorded system agent, else `main`."""
        items = self._agents_list()
        marked = [a["id"] for a in items if a.get("default") is True]
        if len(marked) == 1:
            return marked[0]
        if len(items) == 1:
            return items[0]["id"]
        defaults = (self.settings.get("agents") or {}).get("defaults") or {}
        system = defaults.get("systemAgent") if isinstance(defaults, dict) else None
        recorded = system.get("agentId") if isinstance(system, dict) else None
        return recorded if isinstance(recorded, str) and recorded else DEFAULT_AGENT

    def workspace(self, agent: str) -> Path:
        entry = next((a for a in self._agents_list() if a["id"] == agent), {})
        if isinstance(entry.get("workspace"), str) and entry["workspace"].strip():
            return _expand(entry["workspace"].strip(), self.state_dir)
        defaults = (self.settings.get("agents") or {}).get("defaults") if isinstance(self.settings.get("agents"), dict) else {}
        fallback = defaults.get("workspace") if isinstance(defaults, dict) else None
        if agent == self.default_agent():
            if self.workspace_override is not None:
                return self.workspace_override
            return _expand(fallback, self.state_dir) if isinstance(fallback, str) and fallback.strip() else \
                self.state_dir / "workspace"
        if isinstance(fallback, str) and fallback.strip():
            return _expand(fallback, self.state_dir) / agent
        return self.state_dir / f"workspace-{agent}"

    def agent_ids(self) -> list[str]:
        """OpenClaw agents with anything to read: configured, or with a store or sessions dir on disk."""
        found = {a["id"] for a in self._agents_list()}
        for root in {self.state_dir / "agents", self.sessions_root}:
            if root.is_dir():
                found |= {p.name for p in root.iterdir() if p.is_dir()}
        if self.workspace_override is not None or (self.state_dir / "workspace").is_dir():
            found.add(self.default_agent())
        return sorted(a for a in found if AGENT_ID_RE.fullmatch(a))

    def configured(self, openclaw_id: str) -> str | None:
        """The memoryd agent config.toml names for this OpenClaw agent (`[watch] notes_agent`: the default one)."""
        return self.notes_agent if self.notes_agent and openclaw_id == self.default_agent() else None

    def configured_for_workspace(self, workspace: Path) -> str | None:
        """`[watch] notes_agent` when `workspace` is the default OpenClaw agent's (it reads those notes)."""
        default = self.default_agent()
        same = routing.workspace_key(workspace) == routing.workspace_key(self.workspace(default))
        return self.configured(default) if same else None

    def _notes_only(self, openclaw_id: str) -> bool:
        """The default agent counted only because a workspace was set (agent_ids): no OpenClaw agent of that
        name is configured or has a store or sessions — what it reads is the configured workspace's notes."""
        if openclaw_id != self.default_agent() or (self.state_dir / "workspace").is_dir():
            return False
        if any(a["id"] == openclaw_id for a in self._agents_list()):
            return False
        return not any((root / openclaw_id).is_dir() for root in {self.state_dir / "agents", self.sessions_root})

    def unrouted(self, openclaw_id: str) -> str:
        """The memoryd agent an OpenClaw agent feeds before anything routes it: one of its own name; but a
        default agent that is only the configured workspace's notes feeds what `ingest-daily` reads them into
        (routing.DEFAULT_AGENT) — the same agent, whichever path reads the workspace first."""
        return routing.DEFAULT_AGENT if self._notes_only(openclaw_id) else openclaw_id

    def reader_of(self, workspace: Path) -> str | None:
        """The memoryd agent an OpenClaw agent reading `workspace` would record for it (None: none reads it):
        `ingest-daily` records the same, so the daemon's watcher and the CLI never split a workspace."""
        key = routing.workspace_key(workspace)
        ids = sorted(self.agent_ids(), key=lambda a: (a != self.default_agent(), a))
        return next((self.unrouted(a) for a in ids if routing.workspace_key(self.workspace(a)) == key), None)

    def agent(self, openclaw_id: str) -> OpenClawAgent:
        workspace = self.workspace(openclaw_id)
        memoryd_id = routing.openclaw_agent(self.routes, openclaw_id, workspace, self.configured(openclaw_id),
                                            self.unrouted(openclaw_id))
        return OpenClawAgent(openclaw_id, memoryd_id, store_path(self.state_dir, openclaw_id),
                             self.sessions_root / openclaw_id / "sessions", workspace)

    def agents(self) -> list[OpenClawAgent]:
        return [self.agent(a) for a in self.agent_ids()]


