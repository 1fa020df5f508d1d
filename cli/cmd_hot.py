"""`memoryd hot …`: the always-in-context state; MEMORY.md is re-rendered after each change."""
from __future__ import annotations

from typing import Any, Callable

import click

from .common import agent_option, emit, get_config, handles_errors, json_option
from .main import cli


def _change(agent_id: str, fn: Callable[[dict[str, Any], float], Any], what: str, as_json: bool) -> None:
    from memoryd.daemon.ops import memory, stamp_edits

    with memory(get_config(), {"agent_id": agent_id}) as mem:
        item = mem.change(fn, what)
    stamp_edits(get_config(), agent_id)
    for w in mem.warnings:
        click.echo(f"memoryd: warning: {w}", err=True)
    emit(item, as_json, lambda i: f"{what}: ok")


@cli.group()
def hot() -> None:
    """Show or change hot memory (identity, profile, projects, events, tasks, lessons)."""


@hot.command("show")
@agent_option
@json_option
@handles_errors
def hot_show(agent_id: str, as_json: bool) -> None:
    """Print hot memory (as MEMORY.md renders it)."""
    from memoryd.tiers.agent import AgentMemory
    from memoryd.tiers.hot import render_markdown

    state = AgentMemory(get_config(), agent_id).read_state()
    emit(state["hot"], as_json, lambda h: render_markdown(h, agent_id))


@hot.command("identity")
@click.argument("key")
@click.argument("value")
@agent_option
@json_option
@handles_errors
def hot_identity(key: str, value: str, agent_id: str, as_json: bool) -> None:
    """Set one identity field of the agent (name, role, …)."""
    from memoryd.tiers.hot import set_identity

    _change(agent_id, lambda s, now: set_identity(s["hot"], key, value), "identity", as_json)


@hot.command("profile")
@click.argument("key")
@click.argument("value")
@agent_option
@json_option
@handles_errors
def hot_profile(key: str, value: str, agent_id: str, as_json: bool) -> None:
    """Set one field of the owner's profile (timezone, language, …)."""
    from memoryd.tiers.hot import set_profile

    _change(agent_id, lambda s, now: set_profile(s["hot"], key, value), "profile", as_json)


@hot.command("project")
@click.argument("name")
@click.option("--description", default=None, help="One line about the project.")
@click.option("--status", default=None, help="e.g. active, paused, done.")
@agent_option
@json_option
@handles_errors
def hot_project(name: str, description: str | None, status: str | None, agent_id: str, as_json: bool) -> None:
    """Add an active project, or update its description or status."""
    from memoryd.tiers.hot import upsert_project

    _change(agent_id, lambda s, now: upsert_project(s["hot"], name, description, status, now), "project", as_json)


@hot.command("event")
@click.argument("text")
@agent_option
@json_option
@handles_errors
def hot_event(text: str, agent_id: str, as_json: bool) -> None:
    """Record a recent event (the last 10 are kept)."""
    from memoryd.tiers.hot import add_event

    _change(agent_id, lambda s, now: add_event(s["hot"], text, now), "event", as_json)


@hot.command("task")
@click.argument("text")
@click.option("--status", default=None, help="pending (default), done, or any short word.")
@agent_option
@json_option
@handles_errors
def hot_task(text: str, status: str | None, agent_id: str, as_json: bool) -> None:
    """Add a task or change its status (at most 10 pending are kept)."""
    from memoryd.tiers.hot import upsert_task

    _change(agent_id, lambda s, now: upsert_task(s["hot"], text, status, now), "task", as_json)


@hot.command("lesson")
@click.argument("text")
@click.option("--category", default="lessons", show_default=True, help="Category path of the lesson.")
@click.option("--importance", type=float, default=None, help="0..1; derived by rules when omitted.")
@agent_option
@json_option
@handles_errors
def hot_lesson(text: str, category: str, importance: float | None, agent_id: str, as_json: bool) -> None:
    """Keep a critical lesson (at most 20; the least important go first)."""
    from memoryd.tiers.hot import add_lesson

    _change(agent_id, lambda s, now: add_lesson(s["hot"], text, category, importance, now), "lesson", as_json)
