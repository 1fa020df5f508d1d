"""`memoryd hooks install|uninstall|run claude|codex`, `memoryd hooks status` and `memoryd codex sync`."""
from __future__ import annotations

import sys
import time
from typing import Any

import click

from memoryd.cli.common import emit, get_api, get_config, handles_errors, json_option
from memoryd.cli.main import cli

HARNESS = click.Choice(["claude", "codex"])


@cli.group()
def hooks() -> None:
    """Claude Code and Codex: memoryd's hooks in their settings (see docs/HARNESSES.md)."""


def _agent(value: str | None) -> str | None:
    from memoryd.tiers.base.config import validate_agent_id

    return None if value is None else validate_agent_id(value)


@hooks.command("install")
@click.argument("harness", type=HARNESS)
@click.option("--scope", type=click.Choice(["user", "project"]), default="user", show_default=True,
              help="Claude Code: ~/.claude/settings.json (user) or ./.claude/settings.json (project).")
@click.option("--agent-id", "agent_id", default=None, help="The agent these sessions feed [default: claude / codex].")
@json_option
@handles_errors
def install(harness: str, scope: str, agent_id: str | None, as_json: bool) -> None:
    """Add memoryd's hooks beside the user's own: context at SessionStart; turns taken at Stop/PreCompact/SessionEnd."""
    from memoryd.daemon.hooks_install import install as run

    report = run(get_config(), harness, scope, _agent(agent_id) or _root_agent())
    if harness == "codex":
        report["agents_md"] = _render_agents_md(report.get("agent_id") or _agent(agent_id) or "codex")
    emit(report, as_json, lambda r: f"{'installed' if r['changed'] else 'already installed'}: {r['settings']} "
                                    f"runs {r['command']}" + (f"; {r['agents_md']}" if r.get("agents_md") else ""))


def _render_agents_md(agent: str) -> str:
    """Codex also reads AGENTS.md: the hot memory rendered there, as `memoryd render --target agents` does, when
    this directory is a project (a git checkout); else how to do it."""
    import os
    from pathlib import Path

    from memoryd.tiers.base.errors import MemorydError

    here = Path(os.getcwd())
    if not (here / ".git").exists():
        return "AGENTS.md not written (not in a project): run `memoryd render --target agents` in one"
    try:
        get_api().render(agent_id=agent, targets=["agents"], project_dir=str(here))
    except MemorydError as exc:  # e.g. the agent has no memory on this device yet
        return f"AGENTS.md not written ({exc.message}): run `memoryd render --target agents` later"
    return f"AGENTS.md rendered in {here}"


@hooks.command("uninstall")
@click.argument("harness", type=HARNESS)
@click.option("--scope", type=click.Choice(["user", "project"]), default="user", show_default=True)
@json_option
@handles_errors
def uninstall(harness: str, scope: str, as_json: bool) -> None:
    """Take memoryd's hooks out again (the file as it was before install, when untouched since)."""
    from memoryd.daemon.hooks_install import uninstall as run

    report = run(get_config(), harness, scope)
    emit(report, as_json, lambda r: ("restored" if r["restored"] else "removed memoryd's entries from" if r["changed"]
                                     else "nothing of memoryd's in") + f" {r['settings']}")


def _root_agent() -> str | None:
    root = click.get_current_context().find_root()
    return (root.obj or {}).get("agent_id")


@hooks.command("run", hidden=True)
@click.argument("harness", type=HARNESS)
@click.option("--agent-id", "agent_id", default=None)
def run_hook(harness: str, agent_id: str | None) -> None:
    """The hook itself: reads the harness's JSON on stdin; never fails (errors go to <home>/logs/hooks.log)."""
    from memoryd.daemon.hooks_run import caller, log_line, run_hook as run

    try:
        config = get_config()
    except Exception as exc:  # a broken config.toml must not fail the session either
        click.echo(f"memoryd: {getattr(exc, 'message', exc)}", err=True)
        return
    try:
        out = run(config, caller(config), harness, sys.stdin.buffer.read(), _agent(agent_id) or _root_agent())
    except Exception as exc:
        log_line(config, f"{harness} hook failed: {exc}")
        out = ""
    if out:
        click.echo(out)


def _when(t: Any) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(t)) if t else "never"


def human_status(r: dict[str, Any]) -> str:
    lines = []
    for h in r["harnesses"]:
        lines.append(f"{h['harness']}: {h['dir']}{'' if h['exists'] else ' (missing)'}, default agent {h['default_agent']}")
        for a in h["agents"]:
            pending = sum(c["pending_bytes"] or 0 for c in a["cursors"])
            lines.append(f"  agent {a['agent_id']}: {len(a['cursors'])} file(s), {a.get('turns', 0)} turn(s), "
                         f"{a.get('warm', 0)} fact(s), {a.get('notes', 0)} note(s); last took {_when(a.get('last_at'))}"
                         f"; {pending} byte(s) not yet read")
            lines += [f"    took: {t}" for t in a.get("took", [])]
    return "\n".join(lines)


@hooks.command("status")
@json_option
@handles_errors
def status(as_json: bool) -> None:
    """Each harness: its dir, its agent, cursors per file, what was taken last and when."""
    emit(get_api().harness_status(agent_id=_root_agent()), as_json, human_status)


@cli.group()
def codex() -> None:
    """Codex's session files (~/.codex/sessions, or $CODEX_HOME/sessions)."""


@codex.command("sync")
@json_option
@handles_errors
def codex_sync(as_json: bool) -> None:
    """Take what is new in every Codex rollout now (the daemon does it as they are written); idempotent."""
    report = get_api().harness_sync(harness="codex", hook_agent=_root_agent())
    emit(report, as_json, lambda r: f"codex: {r['turns']} turn(s), {r['warm']} fact(s) from {r['dir']}"
                                    + "".join(f"\n  → agent {a['agent_id']}: {a['turns']} turn(s)" for a in r["agents"]))
    if report.get("dir_missing"):
        click.echo(f"memoryd: warning: no Codex sessions at {report['dir']}", err=True)


@cli.group("claude")
def claude() -> None:
    """Claude Code's transcripts and memory files (~/.claude/projects, or $CLAUDE_CONFIG_DIR/projects)."""


@claude.command("sync")
@json_option
@handles_errors
def claude_sync(as_json: bool) -> None:
    """Take what is new in every Claude Code transcript and memory file now; idempotent."""
    report = get_api().harness_sync(harness="claude", hook_agent=_root_agent())
    emit(report, as_json, lambda r: f"claude: {r['turns']} turn(s), {r['warm']} fact(s), {r['notes']} note(s) "
                                    f"from {r['dir']}")

