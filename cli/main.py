"""The `memoryd` command: a click group; each command group lives in its own cmd_*.py module."""
from __future__ import annotations

import importlib
import sys

import click

from memoryd.cli.common import setup_logging


def _check_agent_root(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    from memoryd.tiers.base.config import validate_agent_id
    from memoryd.tiers.base.errors import UsageError

    try:
        return None if value is None else validate_agent_id(value)
    except UsageError as exc:
        raise click.BadParameter(exc.message) from None

# Command name → the module that registers it; only the invoked command's module is imported,
# so `memoryd status` does not pay for the others (they load all at once for --help).
COMMANDS = {
    "init": "cmd_core", "store": "cmd_core", "retrieve": "cmd_core", "urls": "cmd_core",
    "consolidate": "cmd_core", "forget": "cmd_core", "hot": "cmd_hot", "tree": "cmd_tree",
    "status": "cmd_status", "distill": "cmd_notes", "ingest-daily": "cmd_notes", "validate": "cmd_notes",
    "sync": "cmd_sync", "restore": "cmd_sync", "key": "cmd_sync", "daemon": "cmd_daemon",
    "service": "cmd_daemon", "export": "cmd_transfer", "import": "cmd_transfer",
    "config": "cmd_config",
    "mcp": "cmd_mcp", "render": "cmd_render",
    "openclaw": "cmd_openclaw", "flush": "cmd_openclaw",
    "embed": "cmd_embed", "web": "cmd_web",
    "device": "cmd_device", "namespace": "cmd_namespace",
    "entity": "cmd_knowledge", "reflect": "cmd_knowledge", "digest": "cmd_knowledge",
    "unseal": "cmd_seal", "review": "cmd_review", "route": "cmd_route",
    "hooks": "cmd_hooks", "codex": "cmd_hooks", "claude": "cmd_hooks",
}


class LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        module = COMMANDS.get(cmd_name)
        if module is not None and cmd_name not in self.commands:
            importlib.import_module(f"{__package__}.{module}")  # registers itself on `cli`
        return self.commands.get(cmd_name)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]}, invoke_without_command=True)
@click.option("--log-level", default="WARNING", envvar="MEMORYD_LOG_LEVEL", show_default=True,
              type=click.Choice(["DEBUG", "INFO", "WARNING", "ERROR"], case_sensitive=False),
              help="How much to log on stderr.")
@click.option("--agent-id", "agent_id", default=None, callback=_check_agent_root,
              help="Agent for the command (also accepted after the command name).")
@click.version_option(package_name="memoryd")
@click.pass_context
def cli(ctx: click.Context, log_level: str, agent_id: str | None) -> None:
    """memoryd: tiered, encrypted, multi-device memory for AI agents.

    Every command takes --agent-id and, where it prints data, --json (one object with a "schema"
    version; errors too). Exit codes: 0 success, 2 bad input, 1 any other failure.
    """
    setup_logging(log_level)
    ctx.ensure_object(dict)["agent_id"] = agent_id
    if ctx.invoked_subcommand is None:  # `memoryd` alone: the help, on stdout, and success
        click.echo(ctx.get_help())


def _wants_json(args: list[str]) -> bool:
    """--json among the options (not after `--`): a usage error must then be JSON too."""
    return "--json" in (args[: args.index("--")] if "--" in args else args)


def main() -> None:
    """Entry point: click's usage errors become one line on stderr (exit 2), like ours, or JSON with --json."""
    from memoryd.cli.common import error_code, fail

    as_json = _wants_json(sys.argv[1:])
    try:
        cli.main(prog_name="memoryd", standalone_mode=False)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except click.ClickException as exc:
        fail(exc.format_message(), exc.exit_code, as_json, "usage" if exc.exit_code == 2 else error_code(exc))
    except click.Abort:
        fail("aborted", 1, as_json, "aborted")
    except Exception as exc:  # a bug: the traceback for the report, and still one JSON object for a script
        if not as_json:
            raise
        import traceback

        traceback.print_exc()
        fail(f"internal error: {type(exc).__name__}: {exc}", 1, True, "internal")
