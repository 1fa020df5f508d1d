"""Where an operation runs: in this process, or in the daemon over its socket (maestral's proxy idea).

`api.connect()` picks the transport: DaemonTransport when a daemon's socket exists, else
InProcessTransport. DaemonTransport runs here what the daemon cannot do: an operation the socket does
not serve (it reads this process's files, environment or terminal), an operation an older daemon does
not know (UnknownOperationError), and everything while no daemon listens.
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any, Callable, Protocol

from memoryd.tiers.base.config import Config

from memoryd.daemon.engine import Engine, Params
from memoryd.daemon.errors import UnknownOperationError


def lazy(module: str, name: str) -> Callable[[Engine, Params], Any]:
    """`memoryd.daemon.<module>.<name>`, its module imported on the first call: a command loads the code of the
    operation it runs, not of all of them (the table in api.py named every ops module: ~55 ms of every command)."""
    def run(engine: Engine, params: Params) -> Any:
        return getattr(importlib.import_module(f"memoryd.daemon.{module}"), name)(engine, params)

    run.__qualname__ = run.__name__ = f"{module}.{name}"
    return run


@dataclass(frozen=True)
class Operation:
    """One operation: its wire name, the function doing it, and whether the daemon's socket serves it."""

    name: str
    run: Callable[[Engine, Params], Any]
    served: bool = True  # False: always in the calling process (its files, environment, terminal)


class Transport(Protocol):
    def call(self, op: Operation, params: Params) -> Any: ...

    def close(self) -> None: ...


class InProcessTransport:
    """Runs operations in this process, on an Engine it owns."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def call(self, op: Operation, params: Params) -> Any:
        return op.run(self.engine, dict(params))

    def close(self) -> None:
        self.engine.close()


class DaemonTransport:
    """Runs operations in the daemon listening on config.socket_path; in this process when it cannot."""

    def __init__(self, config: Config, local: Callable[[], InProcessTransport]) -> None:
        self.config = config
        self._make_local = local
        self._local: InProcessTransport | None = None

    def call(self, op: Operation, params: Params) -> Any:
        if op.served and self.config.socket_path.exists():  # no socket file: no daemon (now)
            from memoryd.daemon.client import try_daemon

            try:
                result = try_daemon(self.config, op.name, params)
            except UnknownOperationError:  # a daemon from an older install: the work runs here instead
                result = None
            if result is not None:
                return result
        return self.local().call(op, params)  # under the same per-agent file lock the daemon would take

    def local(self) -> InProcessTransport:
        if self._local is None:
            self._local = self._make_local()
        return self._local

    def close(self) -> None:
        if self._local is not None:
            self._local.close()


class HandlerTransport:
    """Operations carried out by a request handler: the daemon's own, for the MCP sessions it hosts
    (its per-agent locks and parameter checks apply as to a socket request)."""

    def __init__(self, handle: Callable[[str, Params], Any]) -> None:
        self._handle = handle

    def call(self, op: Operation, params: Params) -> Any:
        return self._handle(op.name, params)

    def close(self) -> None:
        pass
