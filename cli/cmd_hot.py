"""`memoryd hot …`: the always-in-context state; MEMORY.md is re-rendered after each change."""
from __future__ import annotations

from typing import Any

import click

from .common import agent_option, emit, get_config, handles_errors, json_option
from .main import cli


def _change(agent_id: str, kind: str, params: dict[str, Any], as_json: bool) -> None:
    """One hot change through the shared `hot_change` operation (the daemon's when it runs)."""
    from .proxy import run_op

    result = run_op(get_config(), "hot_change", {"agent_id": agent_id, "kind": kind, **params})
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
    from .proxy import run_op

    shown = run_op(get_config(), "hot_show", {"agent_id": agent_id})
    emit(shown["hot"], as_json, lambda h: shown["markdown"])


@hot.command("identity")
@click.argument("key")
@click.argument("value")
@agent_option
@json_option
@handles_errors
def hot_identity(key: str, value: str, agent_id: str, as_json: bool) -> None:
    _change(agent_id, "identity", {"key": key, "value": value}, as_json)


@hot.command("profile")
@click.argument("key")
@click.argument("value")
@agent_option
@json_option
@handles_errors
def hot_profile(key: str, value: str, agent_id: str, as_json: bool) -> None:
    _change(agent_id, "profile", {"key": key, "value": value}, as_json)


@hot.command("project")
@click.argument("name")
@click.option("--description", default=None)
@click.option("--status", default=None)
@agent_option
@json_option
@handles_errors
def hot_project(name: str, description: str | None, status: str | None, agent_id: str, as_json: bool) -> None:
    _change(agent_id, "project", {"name": name, "description": description, "status": status}, as_json)


@hot.command("event")
@click.argument("text")
@agent_option
@json_option
@handles_errors
def hot_event(text: str, agent_id: str, as_json: bool) -> None:
    _change(agent_id, "event", {"text": text}, as_json)


@hot.command("task")
@click.argument("text")
@click.option("--status", default=None, help="pending (default), done, or any short word.")
@agent_option
@json_option
@handles_errors
def hot_task(text: str, status: str | None, agent_id: str, as_json: bool) -> None:
    _change(agent_id, "task", {"text": text, "status": status}, as_json)


@hot.command("lesson")
@click.argument("text")
@click.option("--category", default="lessons", show_default=True)
@click.option("--importance", type=float, default=None)
@agent_option
@json_option
@handles_errors
def hot_lesson(text: str, category: str, importance: float | None, agent_id: str, as_json: bool) -> None:
    _change(agent_id, "lesson", {"text": text, "category": category, "importance": importance}, as_json)
