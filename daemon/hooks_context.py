"""The `harness_context` operation: what a Claude Code or Codex session starts with (SessionStart's additionalContext).

Three parts, in this order, within `[harness] context_chars` (≤ 10,000 characters): the agent's hot
memory (its MEMORY.md rendering); the warm memories that came from this project (its sessions' facts
and Claude Code's memory files of the project, most important first); then memories retrieved with
the project's own words (dir name, git remote, recently changed files). A part that does not fit is
cut at a line; nothing is added when the agent has no memories yet.
"""
from __future__ import annotations

import configparser
import os
import re
from pathlib import Path
from typing import Any

from memoryd.tiers.base.errors import UsageError

from memoryd.daemon import hooks_route as route
from memoryd.daemon.engine import Engine, Params
from memoryd.daemon.ops_core import retrieve
from memoryd.daemon.ops_hot import hot_show

PROJECT_ITEMS = 15
RETRIEVED = 8
RECENT_FILES = 8
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9]{2,}")


def git_remote(cwd: Path) -> str | None:
    """The origin URL from the repository's .git/config (read as a file: no git process on the hot path)."""
    for folder in (cwd, *cwd.parents):
        config = folder / ".git" / "config"
        if config.is_file():
            parser = configparser.ConfigParser(strict=False, interpolation=None)
            try:
                parser.read(config, encoding="utf-8")
            except (configparser.Error, OSError, UnicodeDecodeError):
                return None
            return parser.get('remote "origin"', "url", fallback=None)
        if (folder / ".git").exists():
            return None
    return None


def recent_files(cwd: Path, limit: int = RECENT_FILES) -> list[str]:
    """The project's most recently changed files, one level deep (dot-dirs skipped: no tree walk here)."""
    found: list[tuple[float, str]] = []
    try:
        with os.scandir(cwd) as top:
            entries = [e for e in top if not e.name.startswith(".")][:200]
        for entry in entries:
            if entry.is_file(follow_symlinks=False):
                found.append((entry.stat().st_mtime, entry.name))
            elif entry.is_dir(follow_symlinks=False) and entry.name not in ("node_modules", "__pycache__"):
                with os.scandir(entry.path) as sub:
                    for inner in list(sub)[:100]:
                        if inner.is_file(follow_symlinks=False) and not inner.name.startswith("."):
                            found.append((inner.stat().st_mtime, f"{entry.name}/{inner.name}"))
    except OSError:
        return []
    return [name for _, name in sorted(found, reverse=True)[:limit]]


def project_words(cwd: Path) -> list[str]:
    """Words naming the project: its dir, its git remote's repository, its recently changed files' stems."""
    names = [cwd.name]
    remote = git_remote(cwd)
    if remote:
        names += re.split(r"[/:]", remote.rstrip("/").removesuffix(".git"))[-2:]
    names += [Path(f).stem for f in recent_files(cwd)]
    words = [w.lower() for n in names for w in _WORD.findall(n.replace("_", " ").replace("-", " "))]
    return list(dict.fromkeys(w for w in words if w not in ("com", "www", "git", "github", "https", "http")))[:16]


def _project_sessions(agent_dir: Path, cwd: str) -> set[str]:
    from memoryd.tiers.ingest.harness_sync import load_state

    files = load_state(agent_dir).get("files") or {}
    return {str(e.get("session_id")) for e in files.values() if e.get("cwd") == cwd and e.get("session_id")}


def project_memories(engine: Engine, agent: str, cwd: str) -> list[str]:
    """Warm facts said in this project's sessions, and Claude Code's memory files of the project."""
    sessions = _project_sessions(engine.config.agent_dir(agent), cwd)
    note_source = f"claude-memory:{cwd.replace('/', '-')}/"
    with engine.memory(agent) as mem:
        warm = mem.read_state()["warm"]["entries"]
    mine = []
    for entry in warm:
        meta = entry.get("metadata") or {}
        sid = str(meta.get("session_id", ""))
        if sid.split("/")[0] in sessions or str(meta.get("source", "")).startswith(note_source):
            mine.append(entry)
    mine.sort(key=lambda e: (-float(e.get("importance", 0)), -int(e.get("created_at", 0))))
    return [e["text"] for e in mine[:PROJECT_ITEMS]]


def _related(engine: Engine, agent: str, words: list[str], seen: set[str]) -> list[str]:
    if not words:
        return []
    found = retrieve(engine, {"agent_id": agent, "query": " ".join(words), "limit": RETRIEVED})
    # raw turns stay out: the context carries what was distilled (facts, notes), not every line said
    return [r["text"] for r in found.get("results", []) if r.get("text") and r["text"] not in seen
            and (r.get("metadata") or {}).get("kind") != "turn"]


def _bullets(items: list[str]) -> str:
    return "\n".join("- " + " ".join(t.split())[:600] for t in items)


def fit(parts: list[tuple[str, str]], budget: int) -> str:
    """The parts as markdown sections, in order, cut at a line so the whole stays within `budget` characters."""
    out: list[str] = []
    used = 0
    for title, body in parts:
        if not body.strip():
            continue
        block = f"## {title}\n{body.strip()}\n"
        if used + len(block) > budget:
            lines, room = [], budget - used - len(title) - 5
            for line in body.strip().splitlines():
                if room - len(line) - 1 < 0:
                    break
                lines.append(line)
                room -= len(line) + 1
            if not lines:
                break
            block = f"## {title}\n" + "\n".join(lines) + "\n"
        out.append(block)
        used += len(block) + 1
    return "\n".join(out)


def harness_context(engine: Engine, params: Params) -> dict[str, Any]:
    """{harness, cwd, hook_agent?, source?} → {"agent_id", "context", "parts": characters per part}."""
    harness = params.get("harness")
    if harness not in route.HARNESSES:
        raise UsageError(f"harness must be one of {', '.join(route.HARNESSES)}")
    cwd = str(params.get("cwd") or "")
    if not cwd or not Path(cwd).is_absolute():
        raise UsageError("cwd must be the session's absolute project dir")
    config = engine.config
    agent = route.agent_for(config, str(harness), cwd, params.get("hook_agent"))
    if not config.agent_dir(agent).is_dir():
        return {"agent_id": agent, "context": "", "parts": {}}
    budget = int(config.section("harness")["context_chars"])
    hot = hot_show(engine, {"agent_id": agent})["markdown"]
    mine = project_memories(engine, agent, cwd)
    related = _related(engine, agent, project_words(Path(cwd)), set(mine))
    parts = [("Hot memory", hot), (f"From this project ({Path(cwd).name})", _bullets(mine)),
             ("Related memories", _bullets(related))]
    header = f"# memoryd: what agent {agent} remembers (memoryd retrieve for more)\n\n"
    body = fit(parts, max(0, budget - len(header)))
    context = header + body if body else ""
    return {"agent_id": agent, "context": context,
            "parts": {"hot": len(hot), "project": len(mine), "related": len(related), "chars": len(context)}}
