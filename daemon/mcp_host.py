"""MCP sessions served inside the daemon, so `memoryd mcp` answers `initialize` without importing the SDK.

The SDK costs about a second to import (bench/bench_mcp.py). A `memoryd mcp` started while the daemon
runs is only a byte pump (daemon/mcp_bridge.py): it asks for an `mcp_attach` upgrade on the socket,
and the daemon serves the session with the SDK it already loaded, its operations run by the daemon's
own request handler under the per-agent locks. The SDK is imported in the background at start-up when an
MCP session was served in the last PRELOAD_DAYS (or `[mcp] preload = "always"`): a daemon nobody
speaks MCP to does not carry its ~50 MB.
"""
from __future__ import annotations

import logging
import socket
import threading
import time
from typing import TYPE_CHECKING, Any, BinaryIO, Callable

from memoryd.tiers.base.config import Config, validate_agent_id
from memoryd.tiers.base.errors import UsageError

if TYPE_CHECKING:
    from memoryd.daemon.api import MemoryApi

log = logging.getLogger("memoryd.mcp")

MAX_SESSIONS = 16  # more clients get a refusal and serve themselves in-process
PRELOAD_DAYS = 30
STATE_KEY = "mcp_last_session"


class MCPHost:
    """The daemon's MCP sessions: checks attach requests, runs each session in a thread of its own."""

    def __init__(self, config: Callable[[], Config], api: Callable[[], MemoryApi],
                 remember: Callable[[str, float], None]) -> None:
        self._config, self._api, self._remember = config, api, remember
        self._sessions: set[socket.socket] = set()
        self._guard = threading.Lock()
        self._loaded = threading.Event()
        self._loading = threading.Lock()  # one thread imports the SDK; sessions arriving meanwhile wait for it
        self.served = 0

    # -- start-up ------------------------------------------------------------------------------
    def should_preload(self, last_session: float | None, now: float) -> bool:
        choice = self._config().mcp.preload
        if choice == "always":
            return True
        if choice == "never":
            return False
        return last_session is not None and now - last_session < PRELOAD_DAYS * 86400

    def preload_in_background(self) -> None:
        threading.Thread(target=self._load, name="memoryd-mcp-preload", daemon=True).start()

    def _load(self) -> None:
        if self._loaded.is_set():
            return
        with self._loading:
            if self._loaded.is_set():
                return
            started = time.monotonic()
            from memoryd.daemon.mcp_server import preload

            preload()
            self._loaded.set()
        log.info("MCP SDK loaded in %.2f s", time.monotonic() - started)

    # -- sessions ------------------------------------------------------------------------------
    def check(self, params: dict[str, Any]) -> None:
        """Refuse an attach before the connection is handed over (the bridge then serves in-process)."""
        agent = params.get("agent_id")
        if not isinstance(agent, str):
            raise UsageError("mcp_attach needs a string agent_id")
        validate_agent_id(agent)
        with self._guard:
            if len(self._sessions) >= MAX_SESSIONS:
                raise UsageError(f"the daemon already serves {MAX_SESSIONS} MCP sessions")

    def take_over(self, conn: socket.socket, rfile: BinaryIO, params: dict[str, Any]) -> None:
        """Serve one MCP session on this connection until the client ends it or the daemon stops."""
        agent = params["agent_id"]
        with self._guard:
            self._sessions.add(conn)
            self.served += 1
        self._remember(STATE_KEY, time.time())
        log.debug("MCP session for agent %s started", agent)
        try:
            self._load()
            from memoryd.daemon.mcp_server import build_server, serve_stream

            server = build_server(self._config(), agent, self._api())
            with conn.makefile("wb") as wfile:
                serve_stream(server, rfile, wfile)
        finally:
            with self._guard:
                self._sessions.discard(conn)
            log.debug("MCP session for agent %s ended", agent)

    def info(self) -> dict[str, Any]:
        with self._guard:
            return {"sessions": len(self._sessions), "served": self.served, "sdk_loaded": self._loaded.is_set()}

    def stop(self) -> None:
        """End every session: its reader sees the end of the stream, the bridge serves on by itself."""
        with self._guard:
            sessions = list(self._sessions)
        for conn in sessions:
            try:
                conn.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
