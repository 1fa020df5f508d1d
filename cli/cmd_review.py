"""`memoryd review [--json]`, `review resolve QID current|both|merge|dismiss`, `review undo QID`: the questions the
knowledge rules cannot decide (tiers/knowledge/review.py), answered with one action."""
from __future__ import annotations

from typing import Any

import click

from memoryd.cli.common import agent_option, emit, get_api, handles_errors, json_option
from memoryd.cli.main import cli

ACTIONS = ("current", "both", "merge", "dismiss")  # tiers/knowledge/review.py ACTIONS
ASKS = {"same_thing": "two values of one thing: does the newer replace the older?",
        "confirm": "a belief a later fact may confirm", "evidence": "an opinion and a memory that may bear on it"}


def _text(result: dict[str, Any]) -> str:
    if not result["questions"]:
        return "no open review questions"
    lines = []
    for q in result["questions"]:
        lines.append(f"{q['id']}  {q['kind']}: {ASKS.get(q['kind'], '')}")
        lines += [f"    {m['date']}  {m['id']}  [{m['kind']}] {m['text']}" for m in q["members"]]
        if q.get("why"):
            lines.append(f"    why: {q['why']}")
    lines.append(f"answer with: memoryd review resolve QID {'|'.join(ACTIONS)}")
    return "\n".join(lines)


@cli.group(invoke_without_command=True)
@agent_option
@json_option
@handles_errors
@click.pass_context
def review(ctx: click.Context, agent_id: str, as_json: bool) -> None:
    """Open knowledge questions (two values that may be one thing, a belief a fact may confirm, an opinion and
    its evidence), oldest first; answer each with `review resolve`."""
    if ctx.invoked_subcommand is None:
        result = get_api().review_list(agent_id=agent_id)
        for w in result.pop("warnings", []):
            click.echo(f"memoryd: warning: {w}", err=True)
        emit(result, as_json, _text)


@review.command("resolve")
@click.argument("question_id")
@click.argument("action", type=click.Choice(ACTIONS))
@agent_option
@json_option
@handles_errors
def resolve(question_id: str, action: str, agent_id: str, as_json: bool) -> None:
    """Answer QUESTION_ID: current (the newer replaces the older), both (both stay true), merge (the newer
    absorbs the older as a restatement) or dismiss. Logged, synced, undoable."""
    result = get_api().review_resolve(agent_id=agent_id, question_id=question_id, action=action)
    emit(result, as_json, lambda r: f"{r['id']}: {r['action']}" + (
        f" (changed {', '.join(r['changed'])})" if r["changed"] else ""))


@review.command("undo")
@click.argument("question_id")
@agent_option
@json_option
@handles_errors
def undo(question_id: str, agent_id: str, as_json: bool) -> None:
    """Take back the answer to QUESTION_ID: its memories as they were, the question open again."""
    result = get_api().review_undo(agent_id=agent_id, question_id=question_id)
    emit(result, as_json, lambda r: f"{r['id']}: answer {r['undone']!r} undone")
