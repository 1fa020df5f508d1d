"""The `memoryd` command: a click group; each command group lives in its own cmd_*.py module."""
from __future__ import annotations

import importlib
import sys

import click

from .common import setup_logging


def _check_agent_root(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    from memoryd.tiers.config import validate_agent_id
    from memoryd.tiers.errors import UsageError

    try:
        return None if value is None else validate_agent_id(value)
    except UsageError as exc:
        raise click.BadParameter(exc.message) from None

# Command modules register on `cli` at import; each keeps heavy imports inside its commands.
COMMAND_MODULES = (
    "cmd_core",
    "cmd_hot",
    "cmd_tree",
    "cmd_status",
    "cmd_notes",
    "cmd_sync",
    "cmd_daemon",
    "cmd_transfer",
)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--log-level", default="WARNING", envvar="MEMORYD_LOG_LEVEL", show_default=True,
              type=click.Choice(["DEBUG", "INFO", "WARNING", "ERROR"], case_sensitive=False))
@click.option("--agent-id", "agent_id", default=None, callback=_check_agent_root,
              help="Agent for the command (also accepted after the command name).")
@click.version_option(package_name="memoryd")
@click.pass_context
def cli(ctx: click.Context, log_level: str, agent_id: str | None) -> None:
    """memoryd: tiered, encrypted, multi-device memory for AI agents."""
    setup_logging(log_level)
    ctx.ensure_object(dict)["agent_id"] = agent_id


for _name in COMMAND_MODULES:
    try:
        importlib.import_module(f"{__package__}.{_name}")
    except ModuleNotFoundError as _exc:  # a module not written yet must not break the others
        if _exc.name != f"{__package__}.{_name}":
            raise


def main() -> None:
    """Entry point: click's usage errors become one line on stderr (exit 2), like ours."""
    try:
        cli.main(prog_name="memoryd", standalone_mode=False)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except click.ClickException as exc:
        click.echo(f"memoryd: {exc.format_message()}", err=True)
        sys.exit(exc.exit_code)
    except click.Abort:
        click.echo("memoryd: aborted", err=True)
        sys.exit(1)
