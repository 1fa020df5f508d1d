"""A home whose local index holds many memories without a vector, and the real daemon on it (hybrid mode)."""
from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Callable

from clock import wait_for
from memoryd.daemon.client import try_daemon
from memoryd.tiers.base.config import load_config

MEMORYD = str(Path(sys.executable).parent / "memoryd")
TOPICS = ["garden", "budget", "release", "holiday", "dentist", "invoice", "roadmap", "piano", "marathon", "tax"]
PEOPLE = ["Alice", "Bruno", "Chen", "Dana", "Emeka", "Farah", "Goran", "Hana"]


def note(rng: random.Random, i: int) -> str:
    return (f"Note {i}: talked with {rng.choice(PEOPLE)} about the {rng.choice(TOPICS)} and the "
            f"{rng.choice(TOPICS)}; plan number {rng.randint(1000, 9999)} is due in {rng.randint(2, 40)} days.")


def seed(env: dict[str, str], agent: str, rows: int, seed_no: int = 7) -> None:
    """`memoryd init`, then `rows` memories put straight into the local index (no model on that path)."""
    from memoryd.tiers.cold.index import LocalIndex
    from memoryd.tiers.cold.index_file import index_path

    subprocess.run([MEMORYD, "--agent-id", agent, "init"], env=env, check=True, capture_output=True)
    rng = random.Random(seed_no)
    now = time.time()
    index = LocalIndex(index_path(load_config(env)))
    try:
        index.put(agent, [{"id": f"n{i:06d}", "text": note(rng, i), "category": "notes/daily", "importance": 0.4,
                           "created_at": now - i * 600, "access_count": 0, "last_access": None, "metadata": {}}
                          for i in range(rows)])
    finally:
        index.close()


class Daemon:
    """The real `memoryd daemon` process on `env`, and a client for its socket."""

    def __init__(self, env: dict[str, str], log: Path) -> None:
        self.env, self.config = env, load_config(env)
        self._log = open(log, "ab")
        self.proc = subprocess.Popen([MEMORYD, "daemon"], env=env, stdout=subprocess.DEVNULL, stderr=self._log,
                                     stdin=subprocess.DEVNULL)
        wait_for(lambda: self.proc.poll() is not None or self._ping(), timeout=20)
        assert self.proc.poll() is None, log.read_text()

    def op(self, name: str, params: dict[str, Any] | None = None, timeout: float = 30) -> Any:
        return try_daemon(self.config, name, params or {}, timeout=timeout)

    def _ping(self) -> bool:
        try:
            return bool(self.op("ping"))
        except Exception:
            return False

    def backfill(self) -> dict[str, Any]:
        return self.op("daemon")["backfill"]

    def sigterm(self) -> float:
        """Seconds from SIGTERM to the process gone."""
        t0 = time.monotonic()
        self.proc.send_signal(signal.SIGTERM)
        self.proc.wait(30)
        return time.monotonic() - t0

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)
        self._log.close()


def timed(fn: Callable[[], Any]) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def daemon_env(home: Path, sock_dir: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.pop("NOTIFY_SOCKET", None)
    env.update({"MEMORYD_HOME": str(home), "MEMORYD_SOCKET": str(sock_dir / "d.sock"), "PYTHONUNBUFFERED": "1"})
    return env
