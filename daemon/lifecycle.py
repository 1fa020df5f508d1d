"""Daemon lifecycle: single-instance lock + pid file, signals, sd_notify, journald-friendly logging."""
from __future__ import annotations

import logging
import os
import signal
import socket
import sys
import time
from pathlib import Path
from typing import Callable

from memoryd.tiers.base.atomic import FileLock, atomic_write_text, ensure_private_dir
from memoryd.tiers.base.errors import MemorydError

log = logging.getLogger("memoryd.daemon")

# syslog priorities for the "<N>" prefix journald understands on stderr
_PRIORITY = {logging.DEBUG: 7, logging.INFO: 6, logging.WARNING: 4, logging.ERROR: 3, logging.CRITICAL: 2}


class AlreadyRunning(MemorydError):
    """Another daemon holds the instance lock for this MEMORYD_HOME."""

    title = "daemon"


class _JournalFormatter(logging.Formatter):
    """One line per record: `<prio>message` under journald, `LEVEL message` on a terminal."""

    def __init__(self, journald: bool) -> None:
        super().__init__()
        self.journald = journald

    def format(self, record: logging.LogRecord) -> str:
        msg = " ".join(record.getMessage().split())  # one line, always
        if record.exc_info:
            exc = record.exc_info[1]
            msg += f" ({type(exc).__name__}: {' '.join(str(exc).split())})"
        if self.journald:
            return f"<{_PRIORITY.get(record.levelno, 6)}>{msg}"
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(record.created))
        return f"{stamp} {record.levelname} {msg}"


def setup_logging(level: str = "INFO") -> None:
    """Send every memoryd log line to stderr in the journald-friendly one-line format."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(_JournalFormatter(journald=bool(os.environ.get("JOURNAL_STREAM"))))
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level.upper())


class InstanceLock:
    """One daemon per MEMORYD_HOME: flock on daemon.lock, our pid in daemon.pid.

    The kernel drops the flock when the process dies (even by kill -9), so a
    stale pid file never blocks a restart.
    """

    def __init__(self, home: Path) -> None:
        self.home = home
        self.lock = FileLock(home / "daemon.lock")
        self.pid_path = home / "daemon.pid"

    def acquire(self) -> None:
        ensure_private_dir(self.home)
        if not self.lock.acquire(blocking=False):
            pid = read_pid(self.home)
            raise AlreadyRunning(f"already running (pid {pid if pid else 'unknown'})")
        atomic_write_text(self.pid_path, f"{os.getpid()}\n")

    def release(self) -> None:
        try:
            if read_pid(self.home) == os.getpid():
                self.pid_path.unlink()
        except OSError:
            pass
        self.lock.release()


def read_pid(home: Path) -> int | None:
    try:
        return int((home / "daemon.pid").read_text().strip())
    except (OSError, ValueError):
        return None


def sd_notify(state: str) -> bool:
    """Send `state` (e.g. "READY=1") to systemd via $NOTIFY_SOCKET; False when not under systemd."""
    addr = os.environ.get("NOTIFY_SOCKET")
    if not addr or addr[0] not in "@/":
        return False
    target = "\0" + addr[1:] if addr[0] == "@" else addr  # '@' = abstract namespace
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC) as sock:
            sock.connect(target)
            sock.sendall(state.encode("utf-8"))
        return True
    except OSError as exc:
        log.debug("sd_notify failed: %s", exc.strerror)
        return False


def watchdog_interval() -> float | None:
    """Half of systemd's WatchdogSec (from WATCHDOG_USEC), or None when no watchdog is asked for."""
    usec = os.environ.get("WATCHDOG_USEC")
    pid = os.environ.get("WATCHDOG_PID")
    if not usec or (pid and pid != str(os.getpid())):
        return None
    try:
        return max(0.5, int(usec) / 2e6)
    except ValueError:
        return None


class Signals:
    """SIGTERM/SIGINT → stop; SIGHUP → reload.

    Handlers only assign plain flags: taking a lock in a signal handler (Event.set) deadlocks when
    the signal lands while the main thread holds that lock. The main loop sleeps in select() on a
    self-pipe that the interpreter writes to on every signal (signal.set_wakeup_fd).
    """

    def __init__(self) -> None:
        self.stopping = False
        self.reload = False
        self._previous: dict[int, Callable | int | None] = {}
        self._pipe: tuple[int, int] | None = None
        self._previous_fd = -1

    def install(self) -> None:
        r, w = os.pipe()
        os.set_blocking(r, False)
        os.set_blocking(w, False)
        self._pipe = (r, w)
        self._previous_fd = signal.set_wakeup_fd(w, warn_on_full_buffer=False)
        for sig, handler in ((signal.SIGTERM, self._on_stop), (signal.SIGINT, self._on_stop),
                             (signal.SIGHUP, self._on_hup)):
            self._previous[sig] = signal.signal(sig, handler)

    def restore(self) -> None:
        for sig, handler in self._previous.items():
            signal.signal(sig, handler if handler is not None else signal.SIG_DFL)
        if self._pipe is not None:
            signal.set_wakeup_fd(self._previous_fd)
            for fd in self._pipe:
                os.close(fd)
            self._pipe = None

    def sleep(self, timeout: float | None) -> None:
        """Sleep until a signal arrives or `timeout` passes (None: until a signal)."""
        import select

        if self._pipe is None:
            raise RuntimeError("Signals.install() first")
        if not (self.stopping or self.reload):
            select.select([self._pipe[0]], [], [], timeout)
        try:
            while os.read(self._pipe[0], 512):
                pass
        except BlockingIOError:
            pass

    def _on_stop(self, signum: int, frame: object) -> None:
        self.stopping = True

    def _on_hup(self, signum: int, frame: object) -> None:
        self.reload = True
