"""`memoryd mcp` while the daemon runs: a line pump between stdin/stdout and an MCP session in the daemon.

Stdlib only, so the `initialize` answer comes from a daemon that already loaded the SDK instead of
waiting a second for this process to import it. Lines are forwarded whole in both directions, so a
daemon that stops mid-session (an upgrade, `service restart`) never leaves a torn frame: the bridge
answers the requests the daemon took with it with an error, and hands the session to an in-process
server (daemon/mcp_server.serve) primed with the client's own `initialize`, whose second answer is
dropped. The client sees one failed call at most, never a dead server.
"""
from __future__ import annotations

import json
import os
import selectors
import socket
from dataclasses import dataclass, field
from typing import Any

from memoryd.tiers.base.config import Config
from memoryd.tiers.base.errors import MemorydError

from memoryd.daemon.client import _connect, _read_line

LOST = ("the memoryd daemon stopped during this request, which may or may not have been carried out; "
        "check before retrying (this server goes on without the daemon)")


@dataclass
class Handover:
    """What an in-process server needs to take over a session the daemon dropped."""

    replay: list[bytes] = field(default_factory=list)  # the client's initialize and initialized, as sent
    drop_reply_to: Any = None  # the initialize id, when the client already has its answer
    unread: bytes = b""  # a line the client had begun to send


@dataclass
class _Session:
    init: bytes | None = None
    init_id: Any = None
    initialized: bytes | None = None
    init_answered: bool = False
    waiting: dict[str, Any] = field(default_factory=dict)  # json of a request id → the id

    def client_line(self, line: bytes) -> None:
        msg = _parse(line)
        if not isinstance(msg, dict) or "method" not in msg:
            return
        if msg["method"] == "initialize" and self.init is None:
            self.init, self.init_id = line, msg.get("id")
        elif msg["method"] == "notifications/initialized":
            self.initialized = line
        if "id" in msg:
            self.waiting[json.dumps(msg["id"])] = msg["id"]

    def server_line(self, line: bytes) -> None:
        msg = _parse(line)
        if isinstance(msg, dict) and "id" in msg and "method" not in msg:
            key = json.dumps(msg["id"])
            self.waiting.pop(key, None)
            if self.init is not None and key == json.dumps(self.init_id):
                self.init_answered = True

    def lost_answers(self) -> list[bytes]:
        """An error for each request the daemon took with it (a pending initialize is replayed instead)."""
        init_key = json.dumps(self.init_id) if self.init is not None and not self.init_answered else None
        return [json.dumps({"jsonrpc": "2.0", "id": rid, "error": {"code": -32603, "message": LOST}}).encode() + b"\n"
                for key, rid in self.waiting.items() if key != init_key]

    def handover(self, unread: bytes) -> Handover:
        replay = [line for line in (self.init, self.initialized) if line is not None]
        return Handover(replay, self.init_id if self.init_answered else None, unread)


def _parse(line: bytes) -> Any:
    try:
        return json.loads(line)
    except ValueError:
        return None


def bridge(config: Config, agent_id: str) -> Handover | None:
    """Serve the session through the daemon. None: the client closed it. A Handover: serve it here
    (the daemon is not there, refused the session, or went away during it)."""
    try:
        sock = _connect(str(config.socket_path), 5.0)
    except MemorydError:
        sock = None
    if sock is None:
        return Handover()
    try:
        sock.sendall(json.dumps({"op": "mcp_attach", "params": {"agent_id": agent_id}}).encode() + b"\n")
        reply = json.loads(_read_line(sock, str(config.socket_path), 5.0))
    except (OSError, ValueError, MemorydError):  # no answer, or an unreadable one: serve it here
        sock.close()
        return Handover()
    if not (isinstance(reply, dict) and reply.get("ok")):
        sock.close()
        return Handover()
    sock.settimeout(None)
    try:
        return _pump(sock)
    except BrokenPipeError:  # the client went away while we wrote to it: the session is over
        return None
    finally:
        sock.close()


def _pump(sock: socket.socket) -> Handover | None:
    session = _Session()
    from_client = from_daemon = b""
    client_open = True
    with selectors.DefaultSelector() as sel:
        sel.register(0, selectors.EVENT_READ, "client")
        sel.register(sock, selectors.EVENT_READ, "daemon")
        while True:
            for key, _ in sel.select():
                if key.data == "client":
                    chunk = os.read(0, 65536)
                    if not chunk:  # the client ended the session: let the daemon finish and close
                        sel.unregister(0)
                        client_open = False
                        _shutdown_write(sock)
                        continue
                    lines, from_client = _split(from_client + chunk)
                    for line in lines:
                        session.client_line(line)
                    if lines and not _send(sock, b"".join(lines)):
                        return _lost(session, from_client) if client_open else None
                else:
                    try:
                        chunk = sock.recv(65536)
                    except OSError:
                        chunk = b""
                    if not chunk:
                        return _lost(session, from_client) if client_open else None
                    lines, from_daemon = _split(from_daemon + chunk)
                    for line in lines:
                        session.server_line(line)
                    _write_out(b"".join(lines))


def _lost(session: _Session, unread: bytes) -> Handover:
    _write_out(b"".join(session.lost_answers()))
    return session.handover(unread)


def _split(data: bytes) -> tuple[list[bytes], bytes]:
    """Whole lines (each with its newline) and the unfinished rest."""
    end = data.rfind(b"\n") + 1
    return ([line + b"\n" for line in data[:end - 1].split(b"\n")] if end else []), data[end:]


def _send(sock: socket.socket, data: bytes) -> bool:
    try:
        sock.sendall(data)
        return True
    except OSError:
        return False


def _shutdown_write(sock: socket.socket) -> None:
    try:
        sock.shutdown(socket.SHUT_WR)
    except OSError:
        pass


def _write_out(data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(1, view):]
