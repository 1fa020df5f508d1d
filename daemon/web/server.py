"""The web view's server: 127.0.0.1 only, one thread per request, no wake-ups while idle.

`memoryd web` runs it in the foreground; the daemon runs it on a thread when `[web] enabled = true` and
leaves its URL (with the token) in `$MEMORYD_HOME/web.json` (0600) for `memoryd web` to print.
"""
from __future__ import annotations

import errno
import json
import logging
import os
import socket
import threading
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import Any

from memoryd.daemon.web.handler import Handler
from memoryd.daemon.web.security import Guard
from memoryd.tiers.base.config import Config
from memoryd.tiers.base.errors import MemorydError

log = logging.getLogger("memoryd.web")
HOST = "127.0.0.1"


class _Server(ThreadingHTTPServer):
    daemon_threads = True  # a stuck browser connection never holds up a stop
    allow_reuse_address = True
    app: "WebServer"


class WebServer:
    """A bound web view; `url` (with the token) is for the person who started it and is never logged."""

    def __init__(self, config: Config, port: int | None = None, *, agent_id: str | None = None,
                 allow_edits: bool | None = None, data: Any = None) -> None:
        from memoryd.daemon.web.data import WebData

        self.data = data if data is not None else WebData.for_config(config)
        self.default_agent = agent_id
        self.edits = config.web.allow_edits if allow_edits is None else allow_edits
        wanted = config.web.port if port is None else port
        try:
            self.httpd = _Server((HOST, wanted), Handler)
        except OSError as exc:
            busy = " (in use: pick another with --port or [web] port)" if exc.errno == errno.EADDRINUSE else ""
            raise MemorydError(f"cannot listen on {HOST}:{wanted}: {exc.strerror}{busy}") from None
        self.httpd.app = self
        self.port: int = self.httpd.server_address[1]
        self.guard = Guard(self.port)
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        return self.guard.url()

    def serve_forever(self) -> None:
        """Handle requests until stop(); blocks in select() between them (no polling)."""
        try:
            while not self._stopping.is_set():
                self.httpd.handle_request()
        finally:
            self.httpd.server_close()
            self.data.close()

    def start(self) -> "WebServer":
        self._thread = threading.Thread(target=self.serve_forever, name="memoryd-web", daemon=True)
        self._thread.start()
        return self

    def request_stop(self) -> None:
        """Make serve_forever() return after the request in hand; safe in a signal handler (it raises nothing
        into the code it interrupts, so the server closes in its own time)."""
        self._stopping.set()
        try:  # wake the blocking select() with one empty connection
            socket.create_connection((HOST, self.port), timeout=0.5).close()
        except OSError:
            pass

    def stop(self, timeout: float = 2.0) -> None:
        self.request_stop()
        if self._thread is not None:
            self._thread.join(timeout)


def state_path(config: Config) -> Path:
    return config.home / "web.json"


def serve_for_daemon(config: Config, api: Any) -> WebServer | None:
    """Start the daemon's web view on its own in-process API (`api`) and leave its URL for `memoryd web`;
    None (logged) when it cannot listen."""
    from memoryd.daemon.web.data import WebData
    from memoryd.tiers.base.atomic import atomic_write_json

    try:
        server = WebServer(config, data=WebData(api))
        atomic_write_json(state_path(config), {"pid": os.getpid(), "port": server.port, "url": server.url})
    except MemorydError as exc:
        log.error("web view not started: %s", exc.message)
        return None
    log.info("web view on %s:%d (memoryd web prints its address)", HOST, server.port)
    return server.start()


def stop_for_daemon(config: Config, server: WebServer) -> None:
    server.stop()
    state_path(config).unlink(missing_ok=True)


def daemon_url(config: Config) -> str | None:
    """The running daemon's web view address (with its token), or None when it serves none."""
    try:
        info = json.loads(state_path(config).read_text(encoding="utf-8"))
        pid, port, url = int(info["pid"]), int(info["port"]), str(info["url"])
        os.kill(pid, 0)
        socket.create_connection((HOST, port), timeout=0.5).close()
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return url
