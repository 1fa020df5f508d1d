"""The daemon's local API: one JSON object per line over a 0600 Unix socket."""
from __future__ import annotations

import json
import logging
import os
import selectors
import socket
import stat
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, BinaryIO, Callable

from memoryd.tiers.base import jsontext
from memoryd.tiers.base.errors import IPCError, MemorydError, UsageError

log = logging.getLogger("memoryd.daemon")

Handler = Callable[[str, dict], Any]
# A request that turns its connection into a long-lived stream of another protocol (MCP): it is
# checked, answered with one line, then the connection and its buffered reader belong to the upgrade.
Upgrade = Callable[[socket.socket, BinaryIO, dict], None]
_MAX_REQUEST = 16 * 1024 * 1024
_SUN_PATH_MAX = 107  # sockaddr_un.sun_path minus the NUL
WORKERS = 4           # connections served at once; more wait in the queue
IDLE_SECONDS = 300.0  # a connected client silent this long is dropped


def error_payload(exc: BaseException) -> dict[str, Any]:
    """What a failed operation looks like on the wire (never a traceback, never secrets)."""
    if isinstance(exc, MemorydError):
        return {"message": exc.message, "exit_code": exc.exit_code,
                "transient": exc.transient, "title": exc.title}
    return {"message": f"internal error: {type(exc).__name__}: {' '.join(str(exc).split())}",
            "exit_code": 1, "transient": False, "title": "error"}


def parse_request(line: bytes) -> tuple[str, dict]:
    try:
        req = jsontext.loads(line.decode("utf-8"))
    except jsontext.TooDeep as exc:
        raise UsageError(f"request is {exc}") from None
    except (ValueError, UnicodeDecodeError):
        raise UsageError("request is not a JSON object") from None
    if not isinstance(req, dict) or not isinstance(req.get("op"), str):
        raise UsageError("request needs a string 'op'")
    params = req.get("params", {})
    if not isinstance(params, dict):
        raise UsageError("'params' must be an object")
    return req["op"], params


class SocketServer:
    """Owns the listening socket: bind 0600 in a private dir, accept in a thread, clean up.

    The accept loop sleeps in select() on the socket and a wake pipe: no polling. Connections are
    served by a small fixed pool (not a thread each): a burst of clients queues instead of growing
    the daemon, and a client idle for IDLE_SECONDS is let go so it cannot hold a worker.
    """

    def __init__(self, path: Path, handler: Handler,
                 upgrades: dict[str, tuple[Callable[[dict], None], Upgrade]] | None = None) -> None:
        self.path = path
        self.handler = handler
        self.upgrades = upgrades or {}  # op → (check params or raise, take the connection over)
        self._sock: socket.socket | None = None
        self._wake_r, self._wake_w = os.pipe()
        self._thread: threading.Thread | None = None
        self._busy = 0
        self._idle = threading.Condition()
        self._pool: ThreadPoolExecutor | None = None

    def start(self) -> None:
        path = self.path
        if len(os.fsencode(str(path))) > _SUN_PATH_MAX:
            raise IPCError(f"socket path too long for a Unix socket: {path}; set MEMORYD_SOCKET to a shorter path")
        if not path.parent.exists():
            path.parent.mkdir(mode=0o700, parents=True)
        _remove_stale(path)
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM | socket.SOCK_CLOEXEC)
        old_umask = os.umask(0o177)  # born 0600: no window in which others could connect
        try:
            sock.bind(str(path))
        except OSError as exc:
            sock.close()
            raise IPCError(f"cannot listen on {path}: {exc.strerror or exc}") from None
        finally:
            os.umask(old_umask)
        os.chmod(path, 0o600)
        sock.listen(64)
        self._sock = sock
        self._pool = ThreadPoolExecutor(max_workers=WORKERS, thread_name_prefix="memoryd-conn")
        self._thread = threading.Thread(target=self._accept_loop, name="memoryd-socket", daemon=True)
        self._thread.start()

    def _accept_loop(self) -> None:
        assert self._sock is not None
        with selectors.DefaultSelector() as sel:
            sel.register(self._sock, selectors.EVENT_READ)
            sel.register(self._wake_r, selectors.EVENT_READ)
            while True:
                for key, _ in sel.select():
                    if key.fileobj == self._wake_r:
                        return
                    try:
                        conn, _ = self._sock.accept()
                    except OSError:
                        continue
                    conn.settimeout(IDLE_SECONDS)
                    assert self._pool is not None
                    self._pool.submit(self._serve_conn, conn)

    def _serve_conn(self, conn: socket.socket) -> None:
        # several requests may share one connection; each line is answered in order
        rfile = conn.makefile("rb")
        try:
            while True:
                try:
                    line = rfile.readline(_MAX_REQUEST + 1)
                except OSError:  # includes the idle timeout
                    return
                if not line:
                    return
                if len(line) > _MAX_REQUEST:
                    self._reply(conn, {"ok": False, "error": error_payload(UsageError("request too large"))})
                    return
                if not line.strip():
                    continue
                upgrade, refused = self._upgrade(line)
                if refused is not None:
                    self._reply(conn, refused)
                    return
                if upgrade is not None:
                    if self._reply(conn, {"ok": True, "result": {"upgraded": True}}):
                        conn.settimeout(None)  # an MCP session may rightly sit silent for hours
                        threading.Thread(target=self._run_upgrade, args=(upgrade, conn, rfile),
                                         name="memoryd-upgraded", daemon=True).start()
                        rfile = conn = None  # type: ignore[assignment]  # the upgrade closes them
                    return
                if not self._reply(conn, self._answer(line)):
                    return
        finally:
            if conn is not None:
                rfile.close()
                conn.close()

    def _upgrade(self, line: bytes) -> tuple[tuple[Upgrade, dict] | None, dict | None]:
        """(the upgrade this line asks for with its params, or the refusal to answer); (None, None) for a plain request."""
        try:
            op, params = parse_request(line)
        except UsageError:
            return None, None  # _answer reports it
        found = self.upgrades.get(op)
        if found is None:
            return None, None
        check, take_over = found
        try:
            check(params)
        except Exception as exc:
            return None, {"ok": False, "error": error_payload(exc)}
        return (take_over, params), None

    @staticmethod
    def _run_upgrade(upgrade: tuple[Upgrade, dict], conn: socket.socket, rfile: BinaryIO) -> None:
        take_over, params = upgrade
        try:
            take_over(conn, rfile, params)
        except Exception as exc:  # one session's failure must not reach the daemon
            log.error("upgraded connection failed", exc_info=exc)
        finally:
            rfile.close()
            conn.close()

    def _answer(self, line: bytes) -> dict:
        with self._idle:
            self._busy += 1
        try:
            op, params = parse_request(line)
            return {"ok": True, "result": self.handler(op, params)}
        except Exception as exc:  # every failure becomes an answer; the server lives on
            if not isinstance(exc, MemorydError):
                log.error("operation failed unexpectedly", exc_info=exc)
            return {"ok": False, "error": error_payload(exc)}
        finally:
            with self._idle:
                self._busy -= 1
                self._idle.notify_all()

    @staticmethod
    def _reply(conn: socket.socket, obj: dict) -> bool:
        data = json.dumps(obj, ensure_ascii=False, default=str).encode("utf-8") + b"\n"
        try:
            conn.sendall(data)
            return True
        except OSError:
            return False  # the client went away

    def stop(self, timeout: float = 3.0) -> None:
        """Stop accepting, let operations in progress finish (up to `timeout`), remove the socket."""
        os.write(self._wake_w, b"x")
        if self._thread is not None:
            self._thread.join(timeout)
        with self._idle:
            self._idle.wait_for(lambda: self._busy == 0, timeout=timeout)
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
        if self._sock is not None:
            self._sock.close()
        try:
            if stat.S_ISSOCK(os.lstat(self.path).st_mode):
                os.unlink(self.path)
        except OSError:
            pass
        for fd in (self._wake_r, self._wake_w):
            try:
                os.close(fd)
            except OSError:
                pass


def _remove_stale(path: Path) -> None:
    """A socket left by a killed daemon (we hold the instance lock, so it is not live)."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return
    if not stat.S_ISSOCK(mode):
        raise IPCError(f"{path} exists and is not a socket; refusing to replace it")
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    probe.settimeout(1.0)
    try:
        probe.connect(str(path))
    except OSError:
        os.unlink(path)  # nobody listening: stale
        return
    finally:
        probe.close()
    raise IPCError(f"another process is listening on {path}")
