"""`memoryd hot …`: the always-in-context state; MEMORY.md is re-rendered after each change."""
from __future__ import annotations

from typing import Any

import click

from memoryd.cli.common import agent_option, emit, get_api, handles_errors, json_option
from memoryd.cli.main import cli


def _change(agent_id: str, kind: str, params: dict[str, Any], as_json: bool) -> None:
    """One hot change through the shared `hot_change` operation (the daemon's when it runs)."""
    result = get_api().hot_change(agent_id=agent_id, kind=kind, **params)
    for w in result.get("warnings") or []:
        click.echo(f"memoryd: warning: {w}", err=True)
    emit(result["item"], as_json, lambda i: f"{kind}: ok")


@cli.group()
def hot() -> None:
    """Show or change hot memory (identity, profile, projects, events, tasks, lessons)."""


@hot.command("show")
@agent_option
@json_option
@handles_errors
def hot_show(agent_id: str, as_json: bool) -> None:
    """Print hot memory (as MEMORY.md renders it)."""
    shown = get_api().hot_show(agent_id=agent_id)
    emit(shown["hot"], as_json, lambda h: shown["markdown"])


@hot.command("identity")
@click.argument("key")
@click.argument("value")
@agent_option
@json_option
@handles_errors
def hot_identity(key: str, value: str, agent_id: str, as_json: bool) -> None:
    """Set one identity field of the agent (name, role, …)."""
    _change(agent_id, "identity", {"key": key, "value": value}, as_json)


@hot.command("profile")
@click.argument("key")
@click.argument("value")
@agent_option
@json_option
@handles_errors
def hot_profile(key: str, value: str, agent_id: str, as_json: bool) -> None:
    """Set one field of the owner's profile (timezone, language, …)."""
    _change(agent_id, "profile", {"key": key, "value": value}, as_json)


@hot.command("project")
@click.argument("name")
@click.option("--description", default=None, help="One line about the project.")
@click.option("--status", default=None, help="e.g. active, paused, done.")
@agent_option
@json_option
@handles_errors
def hot_project(name: str, description: str | None, status: str | None, agent_id: str, as_json: bool) -> None:
    """Add an active project, or update its description or status."""
    _change(agent_id, "project", {"name": name, "description": description, "status": status}, as_json)


@hot.command("event")
@click.argument("text")
@agent_option
@json_option
@handles_errors
def hot_event(text: str, agent_id: str, as_json: bool) -> None:
    """Record a recent event (the last 10 are kept)."""
    _change(agent_id, "event", {"text": text}, as_json)


@hot.command("task")
@click.argument("text")
@click.option("--status", default=None, help="pending (default), done, or any short word.")
@agent_option
@json_option
@handles_errors
def hot_task(text: str, status: str | None, agent_id: str, as_json: bool) -> None:
    """Add a task or change its status (at most 10 pending are kept)."""
    _change(agent_id, "task", {"text": text, "status": status}, as_json)


@hot.command("lesson")
@click.argument("text")
@click.option("--category", default="lessons", show_default=True, help="Category path of the lesson.")
@click.option("--importance", type=float, default=None, help="0..1; derived by rules when omitted.")
@agent_option
@json_option
@handles_errors
def hot_lesson(text: str, category: str, importance: float | None, agent_id: str, as_json: bool) -> None:
    """Keep a critical lesson (at most 20; the least important go first)."""
    _change(agent_id, "lesson", {"text": text, "category": category, "importance": importance}, as_json)
