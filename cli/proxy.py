"""Run an operation in the daemon when one is listening, else in this process (never both)."""
from __future__ import annotations

from typing import Any

from memoryd.tiers.config import Config


def run_op(config: Config, name: str, params: dict[str, Any]) -> Any:
    if config.socket_path.exists():  # no socket file, no daemon: skip the client entirely
        from memoryd.daemon.client import try_daemon

        result = try_daemon(config, name, params)
        if result is not None:
            return result
    from memoryd.daemon.ops import dispatch

    return dispatch(config, name, params)
