"""Where Claude Code and Codex keep their files, which memoryd agent a project feeds, and what a path is.

One rule decides the agent of a session, the same for the hook, the watcher and `codex sync`, so
one project never feeds two agents by accident: the longest `[harness] projects` entry holding the
session's cwd wins; else the hook's `--agent-id` (fixed when it was installed); else `[harness]
agent`; else the harness's own default (`claude_agent` = "claude", `codex_agent` = "codex").
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memoryd.tiers.base.config import Config, validate_agent_id
from memoryd.tiers.ingest.claude_code import memory_files, transcript
from memoryd.tiers.ingest.codex import rollout

HARNESSES = ("claude", "codex")


@dataclass(frozen=True)
class HarnessDirs:
    claude: Path   # ~/.claude (Claude Code's config dir)
    codex: Path    # ~/.codex

    @property
    def claude_projects(self) -> Path:
        return self.claude / "projects"

    @property
    def codex_sessions(self) -> Path:
        return self.codex / "sessions"


def dirs(config: Config) -> HarnessDirs:
    section = config.section("harness")
    claude = Path(section["claude_dir"]).expanduser() if section["claude_dir"] else Path.home() / ".claude"
    codex = Path(section["codex_dir"]).expanduser() if section["codex_dir"] else Path.home() / ".codex"
    return HarnessDirs(claude, codex)


def project_map(config: Config) -> list[tuple[Path, str]]:
    """`[harness] projects` as (dir, agent), the longest dir first."""
    pairs = []
    for item in config.section("harness")["projects"]:
        directory, _, agent = item.rpartition("=")
        pairs.append((Path(directory).expanduser(), agent))
    return sorted(pairs, key=lambda p: len(p[0].parts), reverse=True)


def agent_for(config: Config, harness: str, cwd: str | None, explicit: str | None = None) -> str:
    """The memoryd agent a session of `harness` in `cwd` feeds (the module docstring's rule)."""
    if cwd:
        here = Path(cwd)
        for directory, agent in project_map(config):
            if here == directory or directory in here.parents:
                return agent
    section = config.section("harness")
    chosen = explicit or section["agent"] or section[f"{harness}_agent"]
    return validate_agent_id(chosen)


def classify(path: Path, found: HarnessDirs) -> tuple[str, str] | None:
    """(harness, "session" | "note") for a file one of the harnesses writes, or None."""
    if transcript.is_transcript(path, found.claude_projects):
        return "claude", "session"
    if memory_files.is_memory_file(path, found.claude_projects):
        return "claude", "note"
    if rollout.is_rollout(path, found.codex_sessions):
        return "codex", "session"
    return None


def session_cwd(harness: str, path: Path) -> str | None:
    """The project dir a session file names: Claude Code's lines carry `cwd`; a rollout opens with session_meta."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(256 * 1024)
    except OSError:
        return None
    for line in head.split(b"\n")[:200]:
        try:
            obj = json.loads(line)
        except ValueError:
            continue
        if not isinstance(obj, dict):
            continue
        holder: Any = obj.get("payload") if harness == "codex" else obj
        if isinstance(holder, dict) and isinstance(holder.get("cwd"), str):
            return str(holder["cwd"])
    return None


def note_project(path: Path, found: HarnessDirs) -> str | None:
    """The project a Claude Code memory file belongs to, read back from a transcript of the same slug."""
    folder = path.parent.parent
    for sibling in sorted(folder.glob("*.jsonl")):
        cwd = session_cwd("claude", sibling)
        if cwd:
            return cwd
    return None
