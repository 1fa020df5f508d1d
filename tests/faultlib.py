"""The fault suite's harness (tests/system/test_faults.py, bench/faults.py): devices running real `memoryd`
commands forked from a zygote (tests/crash_child.py cli-zygote), killed with SIGKILL at random moments,
a server stopped now and then, and a ledger of what each command acknowledged (exit 0)."""
from __future__ import annotations

import json
import os
import random
import select
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from synchelp import KEYWORD

CHILD = Path(__file__).with_name("crash_child.py")
AGENT = "default"  # the daemon's watcher files daily notes under this agent


@dataclass
class Run:
    """One command: how it ended (code < 0: killed by that signal) and what it printed."""
    argv: list[str]
    code: int
    seconds: float
    out: str
    err: str
    hung: bool = False

    @property
    def killed(self) -> bool:
        return self.code == -signal.SIGKILL

    def json(self) -> Any:
        try:
            return json.loads(self.out)
        except ValueError:
            return None


class Zygote:
    """A process that imported the whole CLI once and forks a worker per command (cheap kills)."""

    def __init__(self, scratch: Path, env: dict[str, str]) -> None:
        self.scratch = scratch
        scratch.mkdir(parents=True, exist_ok=True)
        self.proc = subprocess.Popen([sys.executable, str(CHILD), "cli-zygote"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, env=env)
        self._buf = b""
        self._n = 0

    def _send(self, line: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write((line + "\n").encode("utf-8"))
        self.proc.stdin.flush()

    def _line(self, timeout: float | None = None) -> str | None:
        """The zygote's next line; None when `timeout` passed first."""
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        deadline = None if timeout is None else time.monotonic() + timeout
        while b"\n" not in self._buf:
            wait = None if deadline is None else max(0.0, deadline - time.monotonic())
            if not select.select([fd], [], [], wait)[0]:
                return None
            chunk = os.read(fd, 65536)
            if not chunk:
                raise RuntimeError("the zygote died")
            self._buf += chunk
        line, _, self._buf = self._buf.partition(b"\n")
        return line.decode("utf-8")

    def _request(self, verb: str, argv: list[str], env: dict[str, str]) -> tuple[int, Path, Path]:
        self._n += 1
        out, err = self.scratch / f"{self._n}.out", self.scratch / f"{self._n}.err"
        self._send(f"{verb} " + json.dumps({"argv": argv, "env": env, "out": str(out), "err": str(err)}))
        line = self._line(30)
        assert line and line.startswith("pid "), line
        return int(line.split()[1]), out, err

    def run(self, argv: list[str], env: dict[str, str], kill_after: float | None = None,
            timeout: float = 120.0) -> Run:
        """Run `memoryd ARGV`; SIGKILL it after `kill_after` seconds (if still running), or at `timeout` (hung)."""
        started = time.monotonic()
        pid, out, err = self._request("go", argv, env)
        hung = False
        if kill_after is not None:
            time.sleep(kill_after)
            os.kill(pid, signal.SIGKILL)  # our own grandchild by its pid (a zombie at worst: reaped only later)
        line = self._line(timeout if kill_after is None else 30)
        if line is None:
            hung = True
            os.kill(pid, signal.SIGKILL)
            line = self._line(30)
        assert line and line.startswith(f"done {pid} "), line
        code = int(line.split()[2])
        run = Run(argv, code, time.monotonic() - started, _read(out), _read(err), hung)
        out.unlink(missing_ok=True)
        err.unlink(missing_ok=True)
        return run

    def start_bg(self, argv: list[str], env: dict[str, str]) -> tuple[int, Path]:
        pid, _, err = self._request("bg", argv, env)
        return pid, err

    def kill_bg(self, pid: int) -> int:
        """SIGKILL a background worker (a daemon) and reap it; its exit code (-9 when the kill hit it)."""
        os.kill(pid, signal.SIGKILL)
        self._send(f"reap {pid}")
        line = self._line(30)
        assert line and line.startswith(f"reaped {pid} "), line
        return int(line.split()[2])

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        self.proc.wait(30)


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        return ""


def base_env(home: Path, url: str, workspace: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMORYD_")}
    env.update({"MEMORYD_HOME": str(home), "MEMORYD_DB_URL": url, "MEMORYD_WORKSPACE": str(workspace),
                "MEMORYD_SESSIONS_DIR": str(home.parent / f"{home.name}-sessions"), "MEMORYD_LOG_LEVEL": "WARNING",
                **KEYWORD})  # durability is under test here, not ranking
    return env


@dataclass
class Op:
    """One command in the ledger: what it meant to change and how it ended."""
    device: str
    kind: str
    run: Run
    target: Any = None  # register key, store text, forgotten id, …
    value: Any = None

    @property
    def acked(self) -> bool:
        return self.run.code == 0

    @property
    def refused(self) -> bool:  # bad input (exit 2) changes nothing: the fuzz suite holds it to that
        return self.run.code == 2

    @property
    def maybe(self) -> bool:  # killed or failed: it may or may not have taken effect
        return not self.acked and not self.refused


@dataclass
class Ledger:
    ops: list[Op] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    kills: dict[str, int] = field(default_factory=dict)

    def add(self, op: Op) -> Op:
        with self.lock:
            self.ops.append(op)
            if op.run.killed:
                self.kills[op.kind] = self.kills.get(op.kind, 0) + 1
        return op

    def count_kill(self, kind: str) -> None:
        with self.lock:
            self.kills[kind] = self.kills.get(kind, 0) + 1

    def acked_store_ids(self) -> list[str]:
        with self.lock:
            return [o.target for o in self.ops if o.kind == "store" and o.acked and o.target]


class Outages:
    """Stops the server for 0.3–2 s every so many commands (SIGTERM, or now and then SIGKILL) until stopped.

    Paced by commands, not seconds, so a fast machine sees as many outages as a slow one."""

    def __init__(self, server: Any, rng: random.Random, ledger: Ledger,
                 every: tuple[int, int] = (60, 150)) -> None:
        self.server, self.rng, self.ledger, self.every = server, rng, ledger, every
        self.count = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="outages", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def _commands(self) -> int:
        with self.ledger.lock:
            return len(self.ledger.ops)

    def _loop(self) -> None:
        due = self.rng.randint(*self.every)
        while not self._stop.wait(0.05):
            if self._commands() < due:
                continue
            started = self._commands()
            (self.server.kill if self.rng.random() < 0.3 else self.server.stop)()
            self.count += 1
            self._stop.wait(self.rng.uniform(0.3, 2.0))
            self.server.start()
            # Counted from the outage's start: the commands run while it was down count towards the next
            # one, so a fast machine (many commands per second of downtime) still sees one per `every`.
            due = max(started + self.rng.randint(*self.every), self._commands() + 10)

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(30)
        self.server.start()
