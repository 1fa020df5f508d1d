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
import subprocess
import sys
from typing import Any

log = logging.getLogger("memoryd.tiers")
TIMEOUT = 60.0  # seconds for one job (a batch takes well under one): past it the helper is stuck


def usable(idle_core: bool = True) -> bool:
    """An interpreter to start and, with `idle_core`, a core nobody else is using now (1-minute load
    average): with the second core busy, helper and caller each ran ~1.7x slower and the bench's
    year took 25% longer than without a helper."""
    if not sys.executable or os.name != "posix":
        return False
    if not idle_core:
        return True
    try:
        load = os.getloadavg()[0]
    except OSError:
        return False
    return (os.cpu_count() or 1) - load >= 1.0


def _widen(fd: int) -> None:
    """A pipe that holds a few answers (~100 KB each; Linux's default is 64 KB), so the helper goes on
    to its next job instead of waiting for this process to read the last one."""
    try:
        import fcntl

        fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, 1 << 20)
    except (ImportError, AttributeError, OSError):  # not Linux, or above pipe-max-size: a default pipe
        pass


class Helper:
    """`submit(*args)` hands target(*args) to the helper; `take()` gives its result, or None (do it yourself).

    `target` is "module:function", imported by the helper."""

    def __init__(self, target: str, timeout: float = TIMEOUT) -> None:
        from multiprocessing.connection import Connection

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
        self.jobs = Connection(job_w, readable=False)
        self.results = Connection(out_r, writable=False)

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
    from multiprocessing.connection import Connection

    module, name = argv[0].split(":")
    fn = getattr(importlib.import_module(module), name)
    jobs, results = Connection(int(argv[1]), writable=False), Connection(int(argv[2]), readable=False)
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
