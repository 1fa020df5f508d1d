"""A helper process that runs one pure function on jobs ahead of time, so a second core works on the
next batch while this process writes the current one (`ingest-daily --all`).

A fresh interpreter (`python -m memoryd.tiers.ingest.helper`), not a fork: on this kind of VM a forked child
and its parent both ran ~1.5x slower for as long as they lived (bench year: 1.6 s inline, 1.8 s
forked), and a fork of the daemon would carry its threads' locks and signal handlers along.
Only ever an accelerator: when the helper cannot start, dies, answers with an error or takes longer
than `timeout`, `take()` returns None and the caller does the job itself. The helper writes no file,
holds no lock and exits when this process closes its end of the pipe (or dies).
"""
from __future__ import annotations

import logging
import os
import pickle
import select
import struct
import subprocess
import sys
from typing import Any

log = logging.getLogger("memoryd.tiers")
TIMEOUT = 60.0  # seconds for one job (a batch takes well under one): past it the helper is stuck


def usable(idle_core: bool = True, idle: "IdleCores | None" = None) -> bool:
    """An interpreter to start and, with `idle_core`, a core nobody else is using now: measured by `idle`
    (the machine's idle time since it last looked) where it can tell, else the 1-minute load average.
    With the second core busy, helper and caller each ran ~1.7x slower and the bench's year took 25%
    longer than without a helper."""
    if not sys.executable or os.name != "posix":
        return False
    if not idle_core:
        return True
    free = idle.free() if idle is not None else None
    if free is not None:
        return free >= FREE_CORE
    try:
        load = os.getloadavg()[0]
    except OSError:
        return False
    return (os.cpu_count() or 1) - load >= 1.0


FREE_CORE = 0.75  # idle cores (of the whole machine, this process's own work counted as busy) that make one free
_MIN_TICKS = 16   # clock ticks (all cores) a measure needs: fewer (~80 ms on 2 cores) say too little


def _cpu_ticks() -> tuple[int, int] | None:
    """(idle, total) clock ticks of all cores since boot (Linux's /proc/stat), or None elsewhere."""
    try:
        with open("/proc/stat", "rb") as f:
            fields = f.readline().split()
    except OSError:
        return None
    if not fields or fields[0] != b"cpu" or len(fields) < 6:
        return None
    ticks = [int(x) for x in fields[1:9]]
    return ticks[3] + ticks[4], sum(ticks)  # idle + iowait: a core waiting for a disk is free for us


class IdleCores:
    """How many cores sat idle since the last look: what is free now. The 1-minute load average also counts
    what this command itself just did (reading the notes, the guard's own setup), so on an idle two-core
    machine it said "busy" and a year of notes ingested on one core (1.1 s, not 0.7 s)."""

    def __init__(self) -> None:
        self.last = _cpu_ticks()

    def free(self) -> float | None:
        """Idle cores since the last look that said something; over too short a span, the cores free this
        instant; None without /proc."""
        now = _cpu_ticks()
        if now is None or self.last is None:
            return None
        idle, total = now[0] - self.last[0], now[1] - self.last[1]
        if total < _MIN_TICKS:
            return _running_now()  # keep the mark: the next look measures a longer span
        self.last = now
        return (os.cpu_count() or 1) * idle / total


def _running_now() -> float | None:
    """Cores nobody runs on at this instant (Linux's /proc/loadavg: tasks runnable now, this one among
    them), or None: a first look before the idle time says anything."""
    try:
        with open("/proc/loadavg", "rb") as f:
            running = int(f.read().split()[3].split(b"/")[0])
    except (OSError, IndexError, ValueError):
        return None
    return float((os.cpu_count() or 1) - running)


def _widen(fd: int) -> None:
    """A pipe that holds a few answers (~100 KB each; Linux's default is 64 KB), so the helper goes on
    to its next job instead of waiting for this process to read the last one."""
    try:
        import fcntl

        fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, 1 << 20)
    except (ImportError, AttributeError, OSError):  # not Linux, or above pipe-max-size: a default pipe
        pass


class Pipe:
    """One end of an os.pipe carrying pickled objects, each after its length: what the helper uses of
    multiprocessing.connection.Connection, whose import took ~15 ms at the start of both processes."""

    _HEAD = struct.Struct("!Q")

    def __init__(self, fd: int) -> None:
        self.fd = fd

    def _open_fd(self) -> int:
        if self.fd < 0:
            raise OSError("pipe is closed")
        return self.fd

    def send(self, obj: Any) -> None:
        data = pickle.dumps(obj, pickle.HIGHEST_PROTOCOL)
        view = memoryview(self._HEAD.pack(len(data)) + data)
        fd = self._open_fd()
        while view:
            view = view[os.write(fd, view):]

    def _read(self, n: int) -> bytes:
        fd, parts = self._open_fd(), []
        while n:
            part = os.read(fd, n)
            if not part:
                raise EOFError
            parts.append(part)
            n -= len(part)
        return b"".join(parts)

    def recv(self) -> Any:
        (size,) = self._HEAD.unpack(self._read(self._HEAD.size))
        return pickle.loads(self._read(size))

    def poll(self, timeout: float) -> bool:
        """Something to read (or the other end closed) within `timeout` seconds."""
        waiter = select.poll()
        waiter.register(self._open_fd(), select.POLLIN)
        return bool(waiter.poll(timeout * 1000))

    def close(self) -> None:
        if self.fd >= 0:
            fd, self.fd = self.fd, -1
            os.close(fd)


class Helper:
    """`submit(*args)` hands target(*args) to the helper; `take()` gives its result, or None (do it yourself).

    `target` is "module:function", imported by the helper."""

    def __init__(self, target: str, timeout: float = TIMEOUT) -> None:
        self.timeout = timeout
        self.pending = 0  # jobs handed over whose answers were not taken yet (answered in order)
        job_r, job_w = os.pipe()
        out_r, out_w = os.pipe()
        _widen(out_r)
        try:
            self.proc: subprocess.Popen[bytes] | None = subprocess.Popen(
                [sys.executable, "-m", __name__, target, str(job_r), str(out_w)], pass_fds=(job_r, out_w),
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        except BaseException:
            for fd in (job_w, out_r):
                os.close(fd)
            raise
        finally:
            os.close(job_r)
            os.close(out_w)
        self.jobs = Pipe(job_w)
        self.results = Pipe(out_r)

    def submit(self, *args: Any) -> bool:
        if self.proc is None:
            return False
        try:
            self.jobs.send(args)
        except (OSError, ValueError) as exc:
            self._give_up(f"took no job ({type(exc).__name__})")
            return False
        self.pending += 1
        return True

    def take(self) -> Any | None:
        if not self.pending or self.proc is None:
            return None
        self.pending -= 1
        try:
            status, value = self.results.recv() if self.results.poll(self.timeout) else \
                ("error", f"no answer in {self.timeout:g} s")
        except (EOFError, OSError) as exc:
            status, value = "error", f"gone ({type(exc).__name__})"
        if status == "ok":
            return value
        self._give_up(str(value))
        return None

    def _give_up(self, why: str) -> None:
        log.info("helper process: %s; doing its work here", why)
        self.close()

    def close(self) -> None:
        if self.proc is None:
            return
        proc, self.proc = self.proc, None
        self.jobs.close()  # the helper reads EOF and exits
        self.results.close()
        try:
            proc.wait(1.0)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def main(argv: list[str]) -> None:
    import importlib

    module, name = argv[0].split(":")
    fn = getattr(importlib.import_module(module), name)
    jobs, results = Pipe(int(argv[1])), Pipe(int(argv[2]))
    while True:
        try:
            args = jobs.recv()
        except (EOFError, OSError):
            return
        try:
            results.send(("ok", fn(*args)))
        except Exception as exc:  # the caller redoes the job and meets the error itself (the
            results.send(("error", type(exc).__name__))  # message may quote a note: not logged)


if __name__ == "__main__":
    try:
        main(sys.argv[1:])
    except KeyboardInterrupt:  # Ctrl-C reaches the whole process group; the caller handles it
        pass
    # nothing to flush or clean up (it writes no file; answers went out whole): skip the interpreter's
    # teardown, which took ~30 ms of a year's ingest while the caller waited in close()
    os._exit(0)
