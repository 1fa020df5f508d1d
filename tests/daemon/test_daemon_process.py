"""The real daemon process on a temp home and socket: status, ingestion, signals, crash, catch-up."""
from __future__ import annotations

import json
import os
import platform
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import pytest

from memoryd.daemon.client import try_daemon
from memoryd.tiers.base.config import Config, load_config
from memoryd.tiers.base.errors import UsageError
from waiting import eventually

CONFIG_TOML = """
[schedule]
heartbeat_seconds = 0.2
[watch]
quiet_seconds = {quiet}
recheck_seconds = 0.5
"""



MEMORYD = str(Path(sys.executable).parent / "memoryd")  # the console script the service units start


class DaemonProc:
    """`memoryd daemon` with its own env; stderr kept in a file."""

    def __init__(self, env: dict[str, str], log: Path) -> None:
        self.env, self.log = env, log
        self.proc: subprocess.Popen | None = None

    @property
    def config(self) -> Config:
        # the socket alone: a test may have left a config.toml there that the daemon must refuse
        return Config(home=Path(self.env["MEMORYD_HOME"]), db_url="file:unused",
                      socket=Path(self.env["MEMORYD_SOCKET"]))

    def start(self, wait: bool = True) -> "DaemonProc":
        with open(self.log, "ab") as err:
            self.proc = subprocess.Popen([MEMORYD, "daemon"], env=self.env,
                                         stdout=subprocess.DEVNULL, stderr=err, stdin=subprocess.DEVNULL)
        if wait:
            eventually(lambda: self.proc.poll() is not None or self.ping(), timeout=15)
            assert self.proc.poll() is None, self.log.read_text()
        return self

    def ping(self) -> Any:
        try:
            return try_daemon(self.config, "ping", {}, timeout=2)
        except Exception:
            return None

    def op(self, op: str, params: dict | None = None, timeout: float = 30) -> Any:
        return try_daemon(self.config, op, params or {}, timeout=timeout)

    def info(self) -> dict:
        return self.op("daemon")

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 10) -> int:
        assert self.proc is not None
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        return self.proc.wait(timeout)


@pytest.fixture
def env(home: Path, tmp_path: Path) -> dict[str, str]:
    sock_dir = Path(tempfile.mkdtemp(prefix="mdd-", dir="/tmp"))  # sun_path is short; tmp_path is not
    e = dict(os.environ)
    e.update({"MEMORYD_SOCKET": str(sock_dir / "d.sock"), "MEMORYD_SESSIONS_DIR": str(tmp_path / "agents"),
              "MEMORYD_LOG_LEVEL": "DEBUG", "PYTHONUNBUFFERED": "1"})
    e.pop("NOTIFY_SOCKET", None)
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(CONFIG_TOML.format(quiet=1))
    yield e
    shutil.rmtree(sock_dir, ignore_errors=True)


@pytest.fixture
def daemon(env: dict[str, str], tmp_path: Path):
    procs: list[DaemonProc] = []

    def make() -> DaemonProc:
        p = DaemonProc(env, tmp_path / f"daemon-{len(procs)}.log")
        procs.append(p)
        return p

    yield make
    for p in procs:  # only the processes this test started, by their own handle
        if p.proc is not None and p.proc.poll() is None:
            p.proc.kill()
            p.proc.wait(5)


def init_agent(env: dict[str, str], agent: str = "default") -> None:
    from memoryd.daemon.api import in_process

    in_process(load_config(env)).call("init", {"agent_id": agent})


def test_status_through_socket_and_second_daemon_refused(env, daemon):
    init_agent(env)
    d = daemon().start()
    status = d.op("status", {"agent_id": "default"})
    info = status["daemon"]
    assert info["pid"] == d.proc.pid and info["uptime"] >= 0
    assert set(info["jobs"]) == {"quick", "daily", "monthly", "sync"}
    assert all(info["jobs"][m]["next_run"] for m in ("quick", "daily", "monthly"))
    assert info["watcher"]["state"] == "running"
    assert [a["agent_id"] for a in status["agents"]] == ["default"]
    sock = Path(env["MEMORYD_SOCKET"])
    assert (sock.stat().st_mode & 0o777) == 0o600
    second = subprocess.run([MEMORYD, "daemon"], env=env, capture_output=True, text=True, timeout=20)
    assert second.returncode == 1
    assert f"already running (pid {d.proc.pid})" in second.stderr
    assert d.ping()  # the first one is untouched
    with pytest.raises(UsageError):  # daemon-side bad input comes back as exit 2
        d.op("store", {"agent_id": "../x", "text": "t", "category": "c"})


def test_sigterm_exits_zero_fast_and_cleans_up(env, daemon):
    init_agent(env)
    d = daemon().start()
    t0 = time.monotonic()
    assert d.stop(signal.SIGTERM) == 0
    assert time.monotonic() - t0 < 5
    assert not Path(env["MEMORYD_SOCKET"]).exists()
    assert not (Path(env["MEMORYD_HOME"]) / "daemon.pid").exists()
    log = d.log.read_text()
    assert "stopped" in log and all(len(line) < 2000 for line in log.splitlines())
    if platform.libc_ver()[0] == "glibc" and "MALLOC_ARENA_MAX" not in env:
        assert "heap settings: " in log and "MALLOC_ARENA_MAX" in log  # daemon/heap.tune ran at start
    d2 = daemon().start()
    assert d2.stop(signal.SIGINT) == 0


def test_kill9_then_restart_no_stale_lock_nothing_lost(env, daemon):
    init_agent(env)
    d = daemon().start()
    stored = d.op("store", {"agent_id": "default", "text": "The staging database runs on port 5433",
                            "category": "projects/infra"})
    assert stored["id"]
    assert d.stop(signal.SIGKILL) == -signal.SIGKILL
    assert Path(env["MEMORYD_SOCKET"]).exists()  # left behind by the crash
    d2 = daemon().start()  # no stale lock, stale socket replaced
    assert d2.info()["pid"] == d2.proc.pid
    hits = d2.op("retrieve", {"agent_id": "default", "query": "staging database port"})["results"]
    assert any(h["id"] == stored["id"] for h in hits)
    assert d2.stop() == 0
    logs = d.log.read_text() + d2.log.read_text()
    assert "staging database" not in logs  # DEBUG logs name operations, never memories


@pytest.mark.parametrize("backend", ["auto", "watchfiles"])
def test_daily_note_ingested_within_seconds(env, daemon, backend):
    init_agent(env)
    env["MEMORYD_WATCH_BACKEND"] = backend
    d = daemon().start()
    eventually(lambda: d.info()["watcher"]["watching"])
    assert d.info()["watcher"]["backend"] == ("inotify" if backend == "auto" else backend)
    note = Path(env["MEMORYD_WORKSPACE"]) / "memory" / "2026-03-10.md"
    t0 = time.monotonic()
    note.write_text("# 2026-03-10\n\n- Decided to migrate the billing service to PostgreSQL 16\n")

    def found():
        # no OpenClaw here: the workspace's notes go where `ingest-daily` puts them, the default agent
        hits = d.op("retrieve", {"agent_id": "default", "query": "billing PostgreSQL"})["results"]
        return [h for h in hits if "PostgreSQL" in h["text"]]

    assert eventually(found, timeout=10)
    assert time.monotonic() - t0 < 10
    assert d.info()["watcher"]["events"] >= 1


def test_note_written_while_down_is_caught_up_on_start(env, daemon):
    init_agent(env)
    note = Path(env["MEMORYD_WORKSPACE"]) / "memory" / "2026-03-11.md"
    note.write_text("# 2026-03-11\n\n- Learned that the CDN cache purge takes fifteen minutes\n")
    d = daemon().start()

    def found():
        hits = d.op("retrieve", {"agent_id": "default", "query": "CDN cache purge"})["results"]
        return [h for h in hits if "purge" in h["text"]]

    assert eventually(found, timeout=10)


def _transcript_line(role: str, text: str) -> str:
    return json.dumps({"type": "message", "timestamp": "2026-03-10T10:00:00Z",
                       "message": {"role": role, "content": [{"type": "text", "text": text}]}}) + "\n"


def test_transcript_going_quiet_is_distilled_and_pushed(env, daemon, sqld, tmp_path):
    sqld.wipe()
    env["MEMORYD_DB_URL"] = sqld.http_url
    init_agent(env, "bot1")
    d = daemon().start()
    sessions = Path(env["MEMORYD_SESSIONS_DIR"]) / "bot1" / "sessions"
    sessions.mkdir(parents=True)
    eventually(lambda: str(Path(env["MEMORYD_SESSIONS_DIR"])) in d.info()["watcher"]["watching"])
    path = sessions / "s1.jsonl"
    # the watcher's count of events it read, not the quiet timer's pending count: that one is 1 only for the quiet
    # second, a window a loaded machine's polls can miss; an event read is what starts the timer
    seen = d.info()["watcher"]["events"]
    with open(path, "a") as fh:
        fh.write(_transcript_line("user", "Please remember that my dentist appointment is on Friday at 9am"))
        fh.flush()
        seen = eventually(lambda: (n := d.info()["watcher"]["events"]) > seen and n, timeout=15)
        fh.write(_transcript_line("assistant", "Noted: the dentist appointment is Friday at 9am, I will remind you"))
    eventually(lambda: d.info()["watcher"]["events"] > seen, timeout=15)
    hits = eventually(lambda: [h for h in d.op("retrieve", {"agent_id": "bot1", "query": "dentist appointment"})["results"]
                             if "dentist" in h["text"]], timeout=10)
    assert hits
    rows = eventually(lambda: sqld._pipeline(["SELECT agent_id, version FROM critical_state WHERE agent_id = 'bot1'"],
                                           None)[0], timeout=10)
    assert rows[0][0] == "bot1"


def test_sync_force_through_socket(env, daemon, sqld):
    sqld.wipe()
    env["MEMORYD_DB_URL"] = sqld.http_url
    init_agent(env)
    d = daemon().start()
    d.op("store", {"agent_id": "default", "text": "Owner prefers dark roast coffee", "category": "owner/preferences"})
    result = d.op("sync", {"agent_id": "default", "force": True})
    assert isinstance(result, dict)
    rows = sqld._pipeline(["SELECT version FROM critical_state WHERE agent_id = 'default'"], None)[0]
    assert rows and int(rows[0][0]) >= 1


def _jobs(d: DaemonProc) -> dict:
    return d.info()["jobs"]


def _jobs_after_two_more_heartbeats(d: DaemonProc) -> dict:
    """The jobs once two more scheduler rounds ended (jobs run one at a time: every run begun before has ended,
    and a full round looked for overdue work): what did not run by then was not due."""
    target = d.info()["heartbeats"] + 2
    return eventually(lambda: (i := d.info())["heartbeats"] >= target and i["jobs"], what=f"heartbeat {target}")


def test_missed_runs_caught_up_after_restart_with_driven_clock(env, daemon, tmp_path):
    init_agent(env)
    clock = tmp_path / "clock"
    t0 = time.time()
    if time.gmtime(t0).tm_mday >= 25:  # the two days below must reach no month's first day (the monthly run)
        t0 -= 5 * 86400
    # the two hours below must cross no daily (03:00) or monthly (04:00) cron time: the crontab's zone is
    # picked 12 hours away when the real hour is near them
    if time.gmtime(t0).tm_hour in (0, 1, 2, 3):
        home = Path(env["MEMORYD_HOME"])
        (home / "config.toml").write_text(CONFIG_TOML.format(quiet=1).replace(
            "[schedule]\n", "[schedule]\ntimezone = 'Etc/GMT-12'\n"))
    clock.write_text(str(t0))
    env["MEMORYD_CLOCK_FILE"] = str(clock)
    d = daemon().start()  # never consolidated: every mode is overdue once
    jobs = eventually(lambda: (j := _jobs(d))["sync"]["runs"] and j["monthly"]["runs"] and j)
    assert [jobs[m]["runs"] for m in ("quick", "daily", "monthly")] == [1, 1, 1]
    assert {jobs[m]["last_reason"] for m in ("quick", "daily", "monthly")} == {"catch-up"}
    assert d.stop() == 0

    clock.write_text(str(t0 + 2 * 3600))  # down for two hours: only quick is overdue
    d = daemon().start()
    eventually(lambda: _jobs(d)["sync"]["runs"])
    jobs = _jobs_after_two_more_heartbeats(d)
    assert [jobs[m]["runs"] for m in ("quick", "daily", "monthly")] == [1, 0, 0]
    assert d.stop() == 0

    clock.write_text(str(t0 + 2 * 86400 + 3 * 3600))  # down for two days: quick and daily, once each
    d = daemon().start()
    eventually(lambda: _jobs(d)["sync"]["runs"])
    jobs = _jobs_after_two_more_heartbeats(d)
    assert [jobs[m]["runs"] for m in ("quick", "daily", "monthly")] == [1, 1, 0]
    assert jobs["daily"]["last_reason"] == "catch-up" and jobs["daily"]["last_error"] is None
    metrics = json.loads((Path(env["MEMORYD_HOME"]) / "agents" / "default" / "metrics.json").read_text())
    assert metrics["runs"]["daily"]["last_ok_end"] > t0

    clock.write_text(str(t0 + 40 * 86400))  # the machine slept 38 days while the daemon ran
    eventually(lambda: _jobs(d)["monthly"]["runs"] == 1)
    jobs = _jobs_after_two_more_heartbeats(d)
    assert [jobs[m]["runs"] for m in ("quick", "daily", "monthly")] == [2, 2, 1]  # once each, no pile-up
    assert d.stop() == 0


def test_sighup_reloads_config(env, daemon):
    init_agent(env)
    d = daemon().start()
    assert d.info()["watcher"]["quiet_seconds"] == 1
    (Path(env["MEMORYD_HOME"]) / "config.toml").write_text(CONFIG_TOML.format(quiet=7))
    d.proc.send_signal(signal.SIGHUP)
    eventually(lambda: d.info()["watcher"]["quiet_seconds"] == 7, timeout=20)
    (Path(env["MEMORYD_HOME"]) / "config.toml").write_text("[schedule]\ndaily = 'nonsense'\n")
    d.proc.send_signal(signal.SIGHUP)
    eventually(lambda: "reload refused" in d.log.read_text(), timeout=20)
    assert d.info()["watcher"]["quiet_seconds"] == 7  # a bad file keeps the old config
    (Path(env["MEMORYD_HOME"]) / "config.toml").write_text("[daemon]\nlog_level = 'verbose'\n")
    d.proc.send_signal(signal.SIGHUP)
    eventually(lambda: d.log.read_text().count("reload refused") >= 2, timeout=20)
    (Path(env["MEMORYD_HOME"]) / "config.toml").write_text("[watch]\nquiet_secs = 3\n")  # a typo'd key
    d.proc.send_signal(signal.SIGHUP)
    eventually(lambda: d.log.read_text().count("reload refused") >= 3, timeout=20)
    assert "unknown key quiet_secs in [watch]" in d.log.read_text()
    (Path(env["MEMORYD_HOME"]) / "config.toml").write_text("[render]\ntargets = ['claude']\n")  # no project_dir
    d.proc.send_signal(signal.SIGHUP)
    eventually(lambda: d.log.read_text().count("reload refused") >= 4, timeout=20)
    assert "needs a project directory" in d.log.read_text()
    assert d.proc.poll() is None and d.info()["watcher"]["quiet_seconds"] == 7
    assert d.stop() == 0


def test_sd_notify_ready_watchdog_stopping(env, daemon, tmp_path):
    notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    notify.bind(str(tmp_path / "notify.sock"))
    notify.settimeout(10)
    env.update({"NOTIFY_SOCKET": str(tmp_path / "notify.sock"), "WATCHDOG_USEC": "1000000"})
    with notify:
        d = daemon().start()
        seen = [notify.recv(4096).decode()]
        while not any("WATCHDOG=1" in m for m in seen):
            seen.append(notify.recv(4096).decode())
        assert seen[0].startswith("READY=1") and f"MAINPID={d.proc.pid}" in seen[0]
        assert d.stop() == 0
        while "STOPPING=1" not in seen[-1]:
            seen.append(notify.recv(4096).decode())


def test_transcript_survives_restarts_before_it_goes_quiet(env, daemon):
    """Two restarts while a conversation is still 'talking' must not lose it (the catch-up mark waits)."""
    init_agent(env, "bot1")
    home = Path(env["MEMORYD_HOME"])
    (home / "config.toml").write_text(CONFIG_TOML.format(quiet=60))
    sessions = Path(env["MEMORYD_SESSIONS_DIR"]) / "bot1" / "sessions"
    sessions.mkdir(parents=True)
    d1 = daemon().start()
    eventually(lambda: str(Path(env["MEMORYD_SESSIONS_DIR"])) in d1.info()["watcher"]["watching"])
    with open(sessions / "s1.jsonl", "a") as fh:
        fh.write(_transcript_line("user", "Please remember the boiler service is booked for March 3rd"))
    eventually(lambda: d1.info()["watcher"]["transcripts_waiting"] == 1, timeout=15)
    assert d1.stop() == 0
    d2 = daemon().start()
    eventually(lambda: d2.info()["watcher"]["transcripts_waiting"] == 1, timeout=15)
    assert d2.stop() == 0
    (home / "config.toml").write_text(CONFIG_TOML.format(quiet=1))
    d3 = daemon().start()
    assert eventually(lambda: [h for h in d3.op("retrieve", {"agent_id": "bot1", "query": "boiler service"})["results"]
                             if "boiler" in h["text"]], timeout=20)
    assert d3.stop() == 0
