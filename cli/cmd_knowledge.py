"""`memoryd entity list | show NAME | refresh`, `memoryd reflect [--since 7d]`, `memoryd digest [--date D]`."""
from __future__ import annotations

from typing import Any

import click

from memoryd.cli.common import agent_option, emit, get_api, handles_errors, json_option
from memoryd.cli.main import cli


def _warn(warnings: list[str]) -> None:
    for w in warnings:
        click.echo(f"memoryd: warning: {w}", err=True)


@cli.group()
def entity() -> None:
    """Entities named in memories (people, projects, repos, sites, versions, dates, amounts) and how hot they are."""


def _list_text(result: dict[str, Any]) -> str:
    if not result["entities"]:
        return "no entities yet"
    lines = [f"{'hotness':>7}  {'mentions':>8}  {'last seen':<10}  {'type':<8}  name"]
    lines += [f"{e['hotness']:>7.2f}  {e['mentions']:>8}  {e['last_seen']:<10}  {e['type']:<8}  {e['name']}"
              for e in result["entities"]]
    return "\n".join(lines)


@entity.command("list")
@click.option("--limit", type=click.IntRange(1, 100_000), default=None, help="Show only the hottest N.")
@agent_option
@json_option
@handles_errors
def entity_list(limit: int | None, agent_id: str, as_json: bool) -> None:
    """Every entity, hottest first: hotness (+0.05 a mention, ×0.95 a day), mentions, last seen."""
    result = get_api().entity_list(agent_id=agent_id, limit=limit)
    _warn(result.pop("warnings"))
    emit(result, as_json, _list_text)


def _show_text(v: dict[str, Any]) -> str:
    lines = [f"{v['name']} ({v['type']}): hotness {v['hotness']:.2f} ({v['state']}), {v['mentions']} mentions, "
             f"last seen {v['last_seen']}"]
    if v.get("page"):
        lines.append(f"page: {v['page']}")
    for title, key in (("facts", "facts"), ("beliefs", "beliefs"), ("opinions", "opinions"), ("summaries", "summaries")):
        if v.get(key):
            lines.append(f"{title}:")
            lines += [f"  - {'(c=%.2f) ' % i['confidence'] if 'confidence' in i else ''}{i['text']} [{i['id']}]"
                      for i in v[key]]
    if v.get("timeline"):
        lines.append("timeline:")
        for day in v["timeline"]:
            lines += [f"  {day['date']}  {i['text']}" for i in day["items"]]
    return "\n".join(lines)


@entity.command("show")
@click.argument("name")
@agent_option
@json_option
@handles_errors
def entity_show(name: str, agent_id: str, as_json: bool) -> None:
    """One entity (NAME as written: "Project Atlas", @handle, TYPE:NAME): its page, facts, opinions, timeline."""
    result = get_api().entity_show(agent_id=agent_id, name=name)
    _warn(result.pop("warnings"))
    emit(result, as_json, _show_text)


@entity.command("refresh")
@click.option("--rebuild", is_flag=True, help="Forget what was read and read every memory again.")
@agent_option
@json_option
@handles_errors
def entity_refresh(rebuild: bool, agent_id: str, as_json: bool) -> None:
    """Read the memories not read yet for entities (the daemon does this after each consolidation)."""
    result = get_api().entity_refresh(agent_id=agent_id, rebuild=rebuild)
    _warn(result.pop("warnings"))
    emit(result, as_json, lambda r: f"read {r['read']} memories, {r['gone']} gone, {r['mentions']} mentions changed")


@cli.command("reflect")
@click.option("--since", default="7d", show_default=True, help="Pages for active entities named this recently (7d, 24h, 2w).")
@agent_option
@json_option
@handles_errors
def reflect_cmd(since: str, agent_id: str, as_json: bool) -> None:
    """Write bank/entities/<name>.md for each active entity and bank/opinions.md (edits outside the block are kept)."""
    result = get_api().reflect(agent_id=agent_id, since=since)
    _warn(result.pop("warnings"))
    emit(result, as_json, lambda r: f"{len(r['entities'])} entity pages ({len(r['written'])} files written, "
                                    f"{r['unchanged']} unchanged), {r['opinions']} opinions, in "
                                    + ", ".join(r["roots"]))


@cli.command("digest")
@click.option("--date", default=None, metavar="YYYY-MM-DD", help="The day (default today; also 'yesterday').")
@agent_option
@json_option
@handles_errors
def digest_cmd(date: str | None, agent_id: str, as_json: bool) -> None:
    """The day's digest across every source: decided, learned, changed, active entities (stored as a summary)."""
    result = get_api().digest(agent_id=agent_id, date=date)
    _warn(result.pop("warnings"))
    emit(result, as_json, lambda r: r["text"] if r["stored"] else f"nothing stored on {r['date']}: no digest")
