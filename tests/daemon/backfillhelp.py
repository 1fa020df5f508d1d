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

from waiting import eventually
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
        eventually(lambda: self.proc.poll() is not None or self._ping(), timeout=20)
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


def random_vectors(env: dict[str, str], agent: str) -> int:
    """Stand-in vectors for every memory of `agent` (random unit vectors: the idle daemon's matrix is as
    big as after a back-fill, without the minutes of model time)."""
    import numpy as np

    from memoryd.tiers.cold.index import LocalIndex
    from memoryd.tiers.cold.index_file import index_path
    from memoryd.tiers.retrieval import embed

    index = LocalIndex(index_path(load_config(env)))
    try:
        index.vectors.check_model()
        rowids = [r[0] for r in index.read("SELECT rowid FROM memories WHERE agent_id = ?", [agent])]
        v = np.random.default_rng(7).standard_normal((len(rowids), embed.load().dim)).astype(np.float32)
        v /= np.linalg.norm(v, axis=1, keepdims=True)
        with index.tx() as conn:
            conn.executemany("INSERT INTO vectors (rowid, agent_id, vec) VALUES (?, ?, ?)",
                             [(rowid, agent, blob) for rowid, blob in zip(rowids, embed.pack(v))])
        return len(rowids)
    finally:
        index.close()


def drop_vectors(env: dict[str, str], agent: str) -> None:
    from memoryd.tiers.cold.index import LocalIndex
    from memoryd.tiers.cold.index_file import index_path

    index = LocalIndex(index_path(load_config(env)))
    try:
        with index.tx() as conn:
            conn.execute("DELETE FROM vectors WHERE agent_id = ?", [agent])
    finally:
        index.close()


def queries(n: int, seed_no: int) -> list[str]:
    rng = random.Random(seed_no)
    return [f"what did {rng.choice(PEOPLE)} say about the {rng.choice(TOPICS)} plan {rng.randint(1000, 9999)}"
            for _ in range(n)]
