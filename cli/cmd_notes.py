"""Notes commands: distill (rule|llm), ingest-daily (daily notes → memory), validate (completeness warnings)."""
from __future__ import annotations

import sys
from typing import Any

import click

from memoryd.cli.common import agent_option, emit, get_api, get_config, handles_errors, json_option
from memoryd.cli.main import cli

MAX_DISTILL_BYTES = 64 * 1024


def _warn(warnings: list[str] | None) -> None:
    for w in warnings or []:
        click.echo(f"memoryd: warning: {w}", err=True)


def _read_text(text: str) -> str:
    from memoryd.tiers.base.errors import UsageError

    if text == "-":
        text = sys.stdin.read()
    if not text or not text.strip():
        raise UsageError("text is empty")
    size = len(text.encode("utf-8"))
    if size > MAX_DISTILL_BYTES:
        raise UsageError(f"text is {size} bytes; the maximum is {MAX_DISTILL_BYTES}")
    return text


def _write_prompt(path: str, prompt: str) -> None:
    from pathlib import Path

    from memoryd.tiers.base.errors import UsageError

    try:
        Path(path).write_text(prompt, encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"cannot write {path}: {exc.strerror or exc}") from None


@cli.command()
@click.option("--text", "text", required=True, help="Text to distil ('-' reads stdin).")
@click.option("--mode", type=click.Choice(["rule", "llm"]), default="rule", show_default=True,
              help="Rules on this device, or the configured LLM.")
@click.option("--core-summary", "core", is_flag=True, help="Also give the ≤30-byte one-line summary.")
@click.option("--llm-prompt-file", type=click.Path(dir_okay=False), default=None,
              help="Write the LLM prompt to FILE for an external LLM instead of calling one.")
@agent_option
@json_option
@handles_errors
def distill(text: str, mode: str, core: bool, llm_prompt_file: str | None, agent_id: str, as_json: bool) -> None:
    """Distil TEXT into fact, emotion, people, topics, actions, outcome, urls, commands, paths."""
    from memoryd.tiers.distillation.distill import core_summary
    from memoryd.tiers.distillation.distill import distill as rule_distill
    from memoryd.tiers.base.errors import ConfigError
    from memoryd.tiers.distillation.redact import redact

    clean, _ = redact(_read_text(text))  # secrets never leave the device, not even to the LLM
    if llm_prompt_file:
        from memoryd.tiers.distillation.llm_prompts import distill_prompt

        _write_prompt(llm_prompt_file, distill_prompt(clean))
        click.echo(f"memoryd: prompt written to {llm_prompt_file}", err=True)
        return
    result: dict[str, Any]
    if mode == "llm":
        from memoryd.sync.llm import llm_from_config
        from memoryd.tiers.distillation.llm_prompts import distill_llm

        llm = llm_from_config(get_config())
        if llm is None:
            raise ConfigError("--mode llm needs MEMORYD_LLM_ENDPOINT (or llm_endpoint in config.toml)")
        result = distill_llm(clean, llm)
        _warn([result.pop("warning")] if "warning" in result else None)
    else:
        result = rule_distill(clean)
    if core:
        result["core_summary"] = core_summary(result)
        if not as_json:
            click.echo(result["core_summary"])
            return
    emit(result, as_json)


@cli.command("ingest-daily")
@click.option("--date", "date", default=None, metavar="YYYY-MM-DD", help="The day to ingest (default: today).")
@click.option("--all", "all_", is_flag=True, help="Every memory/YYYY-MM-DD.md in the workspace.")
@agent_option
@json_option
@handles_errors
def ingest_daily(date: str | None, all_: bool, agent_id: str, as_json: bool) -> None:
    """Read $MEMORYD_WORKSPACE/memory/YYYY-MM-DD.md daily notes into memory (idempotent)."""
    from memoryd.tiers.ingest.dailynotes import check_date
    from memoryd.tiers.base.errors import UsageError

    from memoryd.cli.progress import progress_for

    if date and all_:
        raise UsageError("give either --date or --all, not both")
    if date:
        check_date(date)
    ctx = click.get_current_context()
    named = ctx.get_parameter_source("agent_id") != click.core.ParameterSource.DEFAULT \
        or (ctx.find_root().obj or {}).get("agent_id")
    with progress_for(as_json):  # drawn when the work runs here; a running daemon does it out of sight
        # no --agent-id: the agent the workspace feeds (memoryd route), `default` the first time
        report = get_api().ingest_daily(agent_id=agent_id if named else None, date=date, all_days=all_)
    _warn(report.get("warnings"))
    emit(report, as_json, _human_ingest)


def _human_ingest(r: dict[str, Any]) -> str:
    kinds = ", ".join(f"{k}={v}" for k, v in sorted(r.get("by_kind", {}).items()))
    return (f"ingested {r['files']} note(s): {r['stored']} stored, {r['skipped']} already known"
            + (f" ({kinds})" if kinds else ""))


@cli.command()
@click.argument("file", type=click.Path(dir_okay=True, allow_dash=False))
@agent_option  # accepted like everywhere (DESIGN: every command takes it); a note file needs no agent
@json_option
@handles_errors
def validate(file: str, agent_id: str, as_json: bool) -> None:
    """Warn about a note's deployments/links/commands without URL or command, and missing next steps."""
    from memoryd.tiers.distillation.validate import validate_file

    warnings = validate_file(file)
    if as_json:
        emit({"file": file, "ok": not warnings, "warnings": warnings}, True)
        return
    if not warnings:
        click.echo(f"{file}: complete, no warnings")
        return
    for w in warnings:
        where = f"{file}:{w['line']}" if w["line"] else file
        click.echo(f"{where}: warning: {w['message']} — {w['suggestion']}")
