"""Core commands: init, store, retrieve, urls, consolidate, forget (each one call of daemon/api.py's MemoryApi)."""
from __future__ import annotations

from typing import Any

import click

from memoryd.cli.common import agent_option, emit, get_api, get_config, handles_errors, json_option
from memoryd.cli.main import cli


def _warn(warnings: list[str]) -> None:
    for w in warnings or []:
        click.echo(f"memoryd: warning: {w}", err=True)


@cli.command()
@agent_option
@json_option
@handles_errors
def init(agent_id: str, as_json: bool) -> None:
    """Create the agent's directories, key and cloud schema (idempotent)."""
    result = get_api().init(agent_id=agent_id)
    if result.get("recovery_key") and not as_json:  # shown this once: the device never stores it
        click.echo("memoryd: the agent's recovery key follows: write it down offline now; it restores this "
                   "agent on a new device and is never shown again", err=True)
    emit(result, as_json, lambda r: f"initialised agent {r['agent_id']} in {r['dir']} (key {r['key_fingerprint']})"
         + (f"\nrecovery key: {r['recovery_key']}" if r.get("recovery_key") else ""))


@cli.command()
@click.argument("text")
@click.option("--category", required=True, help="Category path, e.g. projects/evoclaw (depth ≤ 4).")
@click.option("--importance", type=float, default=None, help="0..1; derived by rules when omitted.")
@click.option("--kind", default=None, metavar="KIND",
              help="fact, experience, belief, opinion or summary; inferred when omitted (a hedge makes a belief).")
@click.option("--confidence", type=float, default=None, help="0..1, for a belief or an opinion.")
@click.option("--basis", default=None, help="Why a belief is held.")
@click.option("--supersedes", "supersedes", multiple=True, metavar="ID",
              help="A memory this one replaces (repeatable); an unknown id stores nothing (exit 2).")
@agent_option
@json_option
@handles_errors
def store(text: str, category: str, importance: float | None, kind: str | None, confidence: float | None,
          basis: str | None, supersedes: tuple[str, ...], agent_id: str, as_json: bool) -> None:
    """Distil TEXT and store it in warm memory; prints its id (a restatement prints the id it merged into)."""
    entry = get_api().store(agent_id=agent_id, text=text, category=category, importance=importance, kind=kind,
                            confidence=confidence, basis=basis, supersedes=list(supersedes) or None)
    if entry.get("note"):
        click.echo(f"memoryd: note: {entry['note']}", err=True)
    emit(entry, as_json, lambda e: e["id"])


def _human_results(data: dict[str, Any]) -> str:
    if not data["results"]:
        return "no memories found"
    lines = []
    for r in data["results"]:
        kind = "" if r.get("kind", "fact") == "fact" else f"  {r['kind']}" + (
            f" c={r['confidence']:.2f}" if r.get("confidence") is not None else "")
        past = f"  (superseded by {r['superseded_by']})" if r.get("superseded_by") else ""
        lines.append(f"[{r['tier']}] {r['id']}  {r['category']}  score={r['score']:.3f}  rank={r['rank']:.4f}{kind}{past}")
        lines.append(f"    {r['text']}")
        lines.append(f"    why: {r['reason']}")
    return "\n".join(lines)


@cli.command()
@click.argument("query", required=False, default="")
@click.option("--limit", type=click.IntRange(1, 1000), default=10, show_default=True, help="Most results to show.")
@click.option("--mode", type=click.Choice(["keyword", "llm"]), default="keyword", show_default=True,
              help="Pick tree branches by keywords, or let the configured LLM pick them and re-order the top results.")
@click.option("--url", "url", default=None, help="Only facts whose URLs contain this fragment.")
@click.option("--entity", default=None, help="Only facts about this @entity (from daily notes' Retain lines).")
@click.option("--since", default=None, metavar="YYYY-MM-DD", help="Only facts dated on or after this day.")
@click.option("--until", default=None, metavar="YYYY-MM-DD", help="Only facts dated on or before this day.")
@click.option("--kind", default=None, metavar="KIND", help="Only memories of this kind (fact, experience, belief, "
              "opinion, summary).")
@click.option("--history", is_flag=True, help="Superseded memories too, each after the current ones.")
@click.option("--llm-prompt-file", type=click.Path(dir_okay=False), default=None,
              help="Write the tree-search prompt for an external LLM instead of calling one.")
@agent_option
@json_option
@handles_errors
def retrieve(query: str, limit: int, mode: str, url: str | None, entity: str | None, since: str | None,
             until: str | None, kind: str | None, history: bool, llm_prompt_file: str | None, agent_id: str,
             as_json: bool) -> None:
    """Search hot, warm and cold memory through the tree index."""
    api = get_api()
    if llm_prompt_file:  # an external LLM will answer; nothing is searched now
        from memoryd.cli.llm_paths import write_prompt

        return write_prompt(api, agent_id, query, llm_prompt_file)
    asked: dict[str, Any] = {"agent_id": agent_id, "query": query, "limit": limit, "url": url, "entity": entity,
                             "since": since, "until": until, "kind": kind, "history": history}
    if mode == "llm":  # tree paths from the LLM, and its order of the top candidates
        from memoryd.cli.llm_paths import retrieve_llm

        data = retrieve_llm(get_config(), api, **asked)
    else:
        data = api.retrieve(**asked)
    _warn(data.get("warnings"))
    emit({"results": data["results"], "warnings": data.get("warnings") or []}, as_json, _human_results)


@cli.command()
@agent_option
@json_option
@handles_errors
def urls(agent_id: str, as_json: bool) -> None:
    """Every URL stored in warm memory."""
    emit(get_api().urls(agent_id=agent_id), as_json, lambda r: "\n".join(r["urls"]) if r["urls"] else "no URLs stored")


@cli.command()
@click.option("--mode", type=click.Choice(["quick", "daily", "monthly", "full"]), default="quick",
              show_default=True, help="How much to do (each mode includes the ones before it).")
@agent_option
@json_option
@handles_errors
def consolidate(mode: str, agent_id: str, as_json: bool) -> None:
    """Rescore, evict, archive to cold and prune (quick ⊂ daily ⊂ monthly ⊂ full)."""
    report = get_api().consolidate(agent_id=agent_id, mode=mode)
    _warn(report.get("warnings"))
    emit(report, as_json, lambda r: f"{r['mode']} consolidation of {r['agent_id']}: "
         + ", ".join(f"{k}={v}" for k, v in sorted(r["counts"].items())))


@cli.command()
@click.argument("memory_id", required=False)
@click.option("--days", type=float, default=None, help="Forget everything created in the last N days.")
@click.option("--shred/--no-shred", default=None,
              help="Also destroy every key that could open its old ciphertexts (default: [sync] shred_forget).")
@click.option("--verify", is_flag=True, help="Only report, per place, whether anything of memory ID is left "
              "(exit 1 if so).")
@agent_option
@json_option
@handles_errors
def forget(memory_id: str | None, days: float | None, shred: bool | None, verify: bool, agent_id: str,
           as_json: bool) -> None:
    """Delete one memory (by id) or the last N days from every tier, cloud included."""
    if verify:
        from memoryd.cli.forget_report import verify_forgotten

        return verify_forgotten(get_api(), agent_id, memory_id, days, shred, as_json)
    if (memory_id is None) == (days is None):
        raise click.UsageError("give either a memory ID or --days N")
    result = get_api().forget(agent_id=agent_id, memory_id=memory_id, days=days, shred=shred, new_recovery=True)
    sync = result.get("sync") or {}
    if sync.get("status") not in ("pushed", "unchanged", "merged", None):
        _warn([f"cloud copy not updated yet ({sync['status']}): {sync.get('error')}"])
    if result.get("shred"):
        from memoryd.cli.forget_report import human_shred

        return emit(result, as_json, human_shred)
    emit(result, as_json, lambda r: "forgot " + ", ".join(f"{k}={v}" for k, v in r["removed"].items()))
