"""Talk to a running daemon over its Unix socket (stdlib only: the CLI imports this on every start)."""
from __future__ import annotations

import errno
import json
import socket
from typing import Any

from memoryd.tiers.base import errors
from memoryd.tiers.base.config import Config

from memoryd.daemon import errors as daemon_errors

# errors that mean "nobody is listening" → the caller works in-process instead
_NOT_LISTENING = {errno.ENOENT, errno.ECONNREFUSED, errno.ENOTSOCK, errno.ENOTDIR}
_MAX_REPLY = 64 * 1024 * 1024


def _error_class(title: str) -> type[errors.MemorydError]:
    """The error class with this title: memoryd's tree (tiers/base/errors.py) and the daemon's own."""
    for module in (errors, daemon_errors):
        for obj in vars(module).values():
            if isinstance(obj, type) and issubclass(obj, errors.MemorydError) and obj.title == title:
                return obj
    return errors.MemorydError


def raise_remote_error(err: dict[str, Any]) -> None:
    """Re-raise a daemon-side error here with its class (by title), message and exit code."""
    cls = _error_class(str(err.get("title", "")))
    exc = cls(str(err.get("message") or "daemon error"), transient=bool(err.get("transient", False)))
    exc.exit_code = int(err.get("exit_code", 1))
    raise exc


def _connect(path: str, timeout: float) -> socket.socket | None:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM | socket.SOCK_CLOEXEC)
    sock.settimeout(timeout)
    try:
        sock.connect(path)
    except OSError as exc:
        sock.close()
        if exc.errno in _NOT_LISTENING:
            return None
        if isinstance(exc, socket.timeout):
            raise errors.IPCError(f"daemon socket {path} did not answer within {timeout:g}s") from None
        raise errors.IPCError(f"cannot reach daemon at {path}: {exc.strerror or exc}") from None
    return sock


def _read_line(sock: socket.socket, path: str, timeout: float) -> bytes:
    chunks: list[bytes] = []
    size = 0
    while True:
        try:
            chunk = sock.recv(65536)
        except socket.timeout:
            raise errors.IPCError(f"daemon did not answer within {timeout:g}s") from None
        except OSError as exc:
            raise errors.IPCError(f"daemon connection broken: {exc.strerror or exc}") from None
        if not chunk:
            raise errors.IPCError("daemon closed the connection without an answer")
        nl = chunk.find(b"\n")
        if nl >= 0:
            chunks.append(chunk[:nl])
            return b"".join(chunks)
        chunks.append(chunk)
        size += len(chunk)
        if size > _MAX_REPLY:
            raise errors.IPCError("daemon answer too large")


QUICK_OPS = frozenset({"ping", "status", "daemon"})
WORK_TIMEOUT = 900.0  # seconds to wait for a reply to anything that may do work


def try_daemon(config: Config, op: str, params: dict[str, Any] | None = None,
               timeout: float = 30.0) -> Any | None:
    """Run `op` in the daemon and return its result; None when no daemon is listening.

    Raises IPCError when the exchange breaks, and the daemon's own error (same
    message and exit code) when the operation failed there.
    """
    path = str(config.socket_path)
    sock = _connect(path, timeout)
    if sock is None:
        return None
    try:
        request = json.dumps({"op": op, "params": params or {}}, ensure_ascii=False) + "\n"
        try:
            sock.sendall(request.encode("utf-8"))
        except OSError as exc:
            if exc.errno in (errno.EPIPE, errno.ECONNRESET):
                return None  # a daemon shutting down: fall back to in-process
            raise errors.IPCError(f"cannot send to daemon: {exc.strerror or exc}") from None
        # Once the daemon has the request, give up only after the work surely ended: a false "failed"
        # for a store that then lands is worse than waiting (network steps are bounded daemon-side).
        wait = timeout if op in QUICK_OPS else max(timeout, WORK_TIMEOUT)
        sock.settimeout(wait)
        raw = _read_line(sock, path, wait)
    finally:
        sock.close()
    try:
        reply = json.loads(raw.decode("utf-8"))
    except (ValueError, UnicodeDecodeError):
        raise errors.IPCError("daemon sent an unreadable answer") from None
    if not isinstance(reply, dict) or "ok" not in reply:
        raise errors.IPCError("daemon sent an answer without 'ok'")
    if reply["ok"]:
        return reply.get("result")
    raise_remote_error(reply.get("error") or {})
    return None  # unreachable


def daemon_running(config: Config, timeout: float = 2.0) -> bool:
    """True when a daemon answers `ping` on the socket."""
    try:
        return try_daemon(config, "ping", {}, timeout=timeout) is not None
    except errors.MemorydError:
        return False
