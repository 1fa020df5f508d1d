"""`memoryd daemon` (foreground) and `memoryd service install|uninstall|status`."""
from __future__ import annotations

import sys

import click

from memoryd.cli.common import emit, get_config, handles_errors, json_option
from memoryd.cli.main import cli

kind_option = click.option("--kind", type=click.Choice(["systemd", "launchd"]), default=None,
                           help="Service manager (default: launchd on macOS, systemd elsewhere).")


@cli.command()
@handles_errors
def daemon() -> None:
    """Run the daemon in the foreground (what the service units start)."""
    from memoryd.daemon.runner import run_daemon

    ctx = click.get_current_context().find_root()
    level = None
    if ctx.get_parameter_source("log_level") not in (None, click.core.ParameterSource.DEFAULT):
        level = ctx.params.get("log_level")  # an explicit --log-level / MEMORYD_LOG_LEVEL wins
    sys.exit(run_daemon(get_config(), log_level=level))


@cli.group()
def service() -> None:
    """The systemd user unit / launchd agent that runs the daemon."""


@service.command("install")
@kind_option
@click.option("--no-enable", is_flag=True, help="Only write the unit; do not enable or start it.")
@json_option
@handles_errors
def service_install(kind: str | None, no_enable: bool, as_json: bool) -> None:
    """Write the unit with paths filled in, then enable and start it when possible."""
    from memoryd.daemon.service import install

    echo = (lambda line: click.echo(line, err=True)) if as_json else click.echo
    result = install(get_config(), echo, kind=kind, enable=not no_enable)
    if as_json:
        emit(result, True)


@service.command("uninstall")
@kind_option
@json_option
@handles_errors
def service_uninstall(kind: str | None, as_json: bool) -> None:
    """Stop and disable the service, then remove its unit file."""
    from memoryd.daemon.service import uninstall

    echo = (lambda line: click.echo(line, err=True)) if as_json else click.echo
    result = uninstall(get_config(), echo, kind=kind)
    if as_json:
        emit(result, True)


@service.command("status")
@kind_option
@json_option
@handles_errors
def service_status(kind: str | None, as_json: bool) -> None:
    """Whether the unit is installed, what the manager says, and whether the daemon answers."""
    from memoryd.daemon.service import service_status as status

    emit(status(get_config(), kind=kind), as_json, _human_status)


def _human_status(s: dict) -> str:
    lines = [f"{s['kind']} unit: {s['path']} ({'installed' if s['installed'] else 'not installed'})",
             f"manager: {s['manager'] or 'unknown'}",
             f"daemon: {'running (pid ' + str(s['daemon_pid']) + ')' if s['daemon_running'] else 'not running'}"]
    return "\n".join(lines)
