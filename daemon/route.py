"""Run an operation in the daemon when one is listening, else in this process (never both).

Shared by the CLI and the MCP server. A daemon that does not know the operation (started from an
older install, or without the module that registers it) answers "unknown operation": the work then
runs here, under the same per-agent file lock the daemon would take.
"""
from __future__ import annotations

from typing import Any

from memoryd.tiers.base.config import Config
from memoryd.tiers.base.errors import UsageError


def unknown_op_message(name: str) -> str:
    return f"unknown operation {name!r}"  # the wording of daemon/ops.dispatch


def run_op(config: Config, name: str, params: dict[str, Any]) -> Any:
    if config.socket_path.exists():  # no socket file, no daemon: skip the client entirely
        from memoryd.daemon.client import try_daemon

        try:
            result = try_daemon(config, name, params)
        except UsageError as exc:
            if exc.message != unknown_op_message(name):
                raise
            result = None
        if result is not None:
            return result
    from memoryd.daemon import hot_ops  # noqa: F401  (registers hot_show, hot_change, tree_show)
    from memoryd.daemon.ops import dispatch

    if config.section("render"):  # configured harness files follow hot changes made here too
        from memoryd.daemon.render_targets import install

        install(config)

    return dispatch(config, name, params)
