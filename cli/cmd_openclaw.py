"""`memoryd openclaw sync|status` and `memoryd flush --session FILE`: conversations from OpenClaw into memory."""
from __future__ import annotations

import logging
from typing import Any, Callable

import click

from memoryd.cli.common import emit, get_api, handles_errors, json_option
from memoryd.cli.main import cli


class _Reported(logging.Filter):
    """Drops log records whose line the command prints from its report (one line per problem on stderr)."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not getattr(record, "reported", False)


def _quietly(run: Callable[[], Any]) -> Any:
    quiet, logger = _Reported(), logging.getLogger("memoryd.tiers")
    logger.addFilter(quiet)  # run in this process: the sync's own warning would repeat the report's line
    try:
        return run()
    finally:
        logger.removeFilter(quiet)


def _warn(report: dict[str, Any]) -> None:
    for agent in report.get("agents", [report]):
        for line in agent.get("errors", []) + agent.get("warnings", []):
            click.echo(f"memoryd: warning: {line}", err=True)
    for line in report.get("warnings", []) if "agents" in report else []:
        click.echo(f"memoryd: warning: {line}", err=True)


def _refused_too_deep(report: dict[str, Any]) -> None:
    """Lines of JSON nested too deep were refused (the rest was taken): one line on stderr, exit 2."""
    from memoryd.tiers.ingest.openclaw.events import TOO_DEEP

    n = sum((agent.get("skipped") or {}).get(TOO_DEEP, 0) for agent in report.get("agents", [report]))
    if n:
        click.echo(f"memoryd: {n} event(s) refused: {TOO_DEEP} (the rest was ingested)", err=True)
        raise SystemExit(2)


@cli.group()
def openclaw() -> None:
    """Conversations and notes of an OpenClaw install (OPENCLAW_STATE_DIR, default ~/.openclaw)."""


def _human_sync(r: dict[str, Any]) -> str:
    if not r["agents"]:
        return f"no OpenClaw agents under {r['state_dir']}"
    lines = []
    for a in r["agents"]:
        lines.append(f"{a['openclaw_agent']} → {a['agent_id']}: {a['segments']} conversation(s), {a['turns']} turn(s) "
                     f"to cold, {a['warm']} fact(s) to warm, {len(a['hot'])} hot change(s), {a['notes']} note(s)")
    return "\n".join(lines)


@openclaw.command("sync")
@click.option("--agent", "agent", default=None, metavar="ID", help="Only this OpenClaw agent (default: all).")
@json_option
@handles_errors
def openclaw_sync(agent: str | None, as_json: bool) -> None:
    """Ingest everything new now: session store, older JSONL transcripts, daily and session notes."""
    from memoryd.tiers.base.config import validate_agent_id

    if agent is not None:
        validate_agent_id(agent)
    api = get_api()
    report = _quietly(lambda: api.openclaw_sync(openclaw_agent=agent, close_open=True))
    _warn(report)
    emit(report, as_json, _human_sync)
    if report.get("state_dir_missing") or any(a.get("errors") for a in report["agents"]):
        raise SystemExit(1)
    _refused_too_deep(report)


def _human_status(r: dict[str, Any]) -> str:
    if not r["agents"]:
        return f"no OpenClaw agents under {r['state_dir']}"
    lines = [f"OpenClaw state dir: {r['state_dir']}"]
    for a in r["agents"]:
        skipped = sum(a["skipped"].values())
        lines.append(f"  {a['openclaw_agent']} → agent {a['agent_id']}: {a['sessions']} session(s), "
                     f"{a['pending_events'] if a['pending_events'] is not None else '?'} event(s) not yet taken, "
                     f"last ingest {_when(a['last_ingest'])}, {skipped} skipped (not conversation)")
        for sid, seq in sorted(a["cursor"].items()):
            lines.append(f"    cursor {sid}: seq {seq}")
        if a.get("jsonl_sessions"):
            lines.append(f"    older JSONL transcripts: {a['jsonl_sessions']} session(s) read")
        if skipped:
            lines.append(f"    skipped: {skipped_words(a['skipped'])}")
        if a["error"]:
            lines.append(f"    error: {a['error']}")
    return "\n".join(lines)


def skipped_words(skipped: dict[str, int]) -> str:
    """"silent reply 4, internal turn 3, …": what was left out of memory and how often, most first."""
    return ", ".join(f"{why} {n}" for why, n in sorted(skipped.items(), key=lambda kv: (-kv[1], kv[0])))


def cursor_words(cursor: dict[str, int], most: int = 2) -> str:
    """"cursor 0a5d9bd1…#58": where reading goes on, per store session (the first few, then a count)."""
    if not cursor:
        return "no cursor yet"
    shown = [f"{sid[:8]}{'…' if len(sid) > 8 else ''}#{seq}" for sid, seq in sorted(cursor.items())[:most]]
    more = f" +{len(cursor) - most} more" if len(cursor) > most else ""
    return "cursor " + " ".join(shown) + more


def _when(t: float | None) -> str:
    import time

    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(t)) if t else "never"


@openclaw.command("status")
@json_option
@handles_errors
def openclaw_status(as_json: bool) -> None:
    """Per OpenClaw agent: cursor, events not yet taken, last ingest, what was skipped, errors."""
    api = get_api()
    report = _quietly(lambda: api.openclaw_status())
    _warn(report)
    emit(report, as_json, _human_status)


@cli.command("flush")
@click.option("--session", "session", required=True, type=click.Path(dir_okay=False),
              help="A transcript (<id>.jsonl, a .reset./.deleted. rename or .zst archive) or a session store.")
@click.option("--agent-id", "agent_id", default=None,
              help="Agent to store into [default: the OpenClaw agent owning FILE, else default].")
@json_option
@handles_errors
def flush(session: str, agent_id: str | None, as_json: bool) -> None:
    """Ingest one conversation up to now (before a harness compacts it); idempotent with the daemon."""
    from memoryd.tiers.base.config import validate_agent_id

    root = (click.get_current_context().find_root().obj or {}).get("agent_id")
    agent_id = root if agent_id is None else agent_id  # "" is refused below, not taken for "not given"
    if agent_id is not None:
        validate_agent_id(agent_id)
    api = get_api()
    report = _quietly(lambda: api.flush(agent_id=agent_id, session=session))
    _warn(report)
    emit(report, as_json, lambda r: f"flushed {r['turns']} turn(s) to cold, {r['warm']} fact(s) to warm, "
                                    f"{len(r['hot'])} hot change(s) for agent {r['agent_id']}")
    _refused_too_deep(report)
