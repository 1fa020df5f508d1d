"""The `memoryd` command: a click group; each command group lives in its own cmd_*.py module."""
from __future__ import annotations

import importlib

import click

from .common import setup_logging

# Command modules register on `cli` at import; each keeps heavy imports inside its commands.
COMMAND_MODULES = (
    "cmd_core",
)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--log-level", default="WARNING", envvar="MEMORYD_LOG_LEVEL", show_default=True,
              type=click.Choice(["DEBUG", "INFO", "WARNING", "ERROR"], case_sensitive=False))
@click.version_option(package_name="memoryd")
def cli(log_level: str) -> None:
    """memoryd: tiered, encrypted, multi-device memory for AI agents."""
    setup_logging(log_level)


for _name in COMMAND_MODULES:
    try:
        importlib.import_module(f"{__package__}.{_name}")
    except ModuleNotFoundError as _exc:  # a module not written yet must not break the others
        if _exc.name != f"{__package__}.{_name}":
            raise


def main() -> None:
    cli(prog_name="memoryd")
