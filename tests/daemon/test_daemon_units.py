"""Daemon parts on their own: schedule maths, scheduler loop, quiet timer, socket server/client, lifecycle."""
from __future__ import annotations

import json
import logging
import os
import socket
import tempfile
import threading
import time
from datetime import datetime, timezone
from pathlib import Path

import pytest

from memoryd.daemon import client, lifecycle, scheduler, server, watcher
from memoryd.tiers.base.config import load_config
from memoryd.tiers.base.errors import ConfigError, IPCError, MemorydError, StoreError, UsageError
from clock import wait_for

UTC = scheduler.ScheduleSettings(timezone="UTC")


def _ts(s: str) -> float:
    return datetime.fromisoformat(s).replace(tzinfo=timezone.utc).timestamp()



# -- schedule maths ------------------------------------------------------------------------
def test_next_fire_daily_monthly_quick():
    trig = UTC.triggers()
    tz = UTC.tz()
    now = _ts("2026-03-10T02:59:59")
    assert scheduler.next_fire(trig["daily"], tz, now) == _ts("2026-03-10T03:00:00")
    assert scheduler.next_fire(trig["quick"], tz, now) == _ts("2026-03-10T03:00:00")
    assert scheduler.next_fire(trig["monthly"], tz, now) == _ts("2026-04-01T04:00:00")
    fired = _ts("2026-03-10T03:00:00")
    assert scheduler.next_fire(trig["daily"], tz, fired) == fired
    assert scheduler.next_fire(trig["daily"], tz, fired + 1) == _ts("2026-03-11T03:00:00")


def test_periods_and_stale_agents():
    trig, tz, now = UTC.triggers(), UTC.tz(), _ts("2026-03-10T12:00:00")
    assert scheduler.period_of(trig["quick"], tz, now) == 3600
    assert scheduler.period_of(trig["daily"], tz, now) == 86400
    assert 28 * 86400 <= scheduler.period_of(trig["monthly"], tz, now) <= 31 * 86400
    last = {"a": now - 86400, "b": now - 100, "c": None}
    assert scheduler.stale_agents(last, trig["daily"], tz, now) == ["a", "c"]
    # a catch-up late on the 9th must not hide the missed 03:00 run of the 10th
    late = {"d": _ts("2026-03-09T09:00:00"), "e": _ts("2026-03-10T03:30:00")}
    assert scheduler.stale_agents(late, trig["daily"], tz, _ts("2026-03-10T08:00:00")) == ["d"]
    monthly = {"f": _ts("2026-02-05T10:00:00")}
    assert scheduler.stale_agents(monthly, trig["monthly"], tz, _ts("2026-03-02T09:00:00")) == ["f"]


def test_sync_backoff_grows_then_caps():
    s = scheduler.ScheduleSettings(sync_backoff_seconds=10, sync_backoff_max_seconds=60, sync_idle_seconds=500)
    assert [scheduler.sync_delay(s, n) for n in range(6)] == [500, 10, 20, 40, 60, 60]


def test_schedule_settings_validation():
    s = scheduler.ScheduleSettings.from_section({"daily": "30 2 * * *", "heartbeat_seconds": 5})
    assert s.cron["daily"] == "30 2 * * *" and s.heartbeat_seconds == 5.0
    for bad in ({"daily": "not cron"}, {"quick": 5}, {"heartbeat_seconds": -1},
                {"heartbeat_seconds": True}, {"timezone": "Mars/Olympus"}):
        with pytest.raises(ConfigError):
            scheduler.ScheduleSettings.from_section(bad)


# -- the scheduler loop, time driven by the test --------------------------------------------------
class _Clocks:
    """Wall and monotonic time set by the test (the scheduler's injectable clocks)."""

    def __init__(self, wall: float) -> None:
        self.wall, self.mono = wall, 1000.0

    def advance(self, seconds: float, jump: bool = False) -> None:
        self.wall += seconds
        if not jump:
            self.mono += seconds


def _scheduler(clocks: _Clocks, last_ok: dict, runs: list, pending: list[int] | None = None):
    settings = scheduler.ScheduleSettings(timezone="UTC", heartbeat_seconds=0.02, wake_jump_seconds=120,
                                          sync_idle_seconds=600, sync_backoff_seconds=30)

    def run_mode(mode, reason, agents):
        runs.append((mode, reason, agents))
        for a in agents or list(last_ok):
            last_ok[a][mode] = clocks.wall
        return True

    def run_sync():
        runs.append(("sync", None, None))
        return pending.pop(0) if pending else 0

    sch = scheduler.Scheduler(settings, run_mode, lambda m: {a: v.get(m) for a, v in last_ok.items()},
                              run_sync, clock=lambda: clocks.wall, monotonic=lambda: clocks.mono)
    return sch


def test_catch_up_on_start_runs_each_overdue_mode_once():
    clocks = _Clocks(_ts("2026-03-10T12:00:30"))
    last_ok = {"a": {"quick": clocks.wall - 7200, "daily": clocks.wall - 3600,
                     "monthly": clocks.wall - 40 * 86400},
               "b": {"quick": clocks.wall - 60, "daily": None, "monthly": clocks.wall - 86400}}
    runs: list = []
    sch = _scheduler(clocks, last_ok, runs)
    sch.start()
    try:
        wait_for(lambda: sch.jobs["sync"].runs >= 1 and sch.jobs["monthly"].runs >= 1)
        time.sleep(0.1)  # several more heartbeats: nothing may run twice
    finally:
        sch.stop()
    modes = [r for r in runs if r[0] != "sync"]
    # b's quick ran at 11:59:30, before the 12:00 fire it missed: due as well
    assert modes == [("quick", "catch-up", ["a", "b"]), ("daily", "catch-up", ["b"]), ("monthly", "catch-up", ["a"])]
    assert sch.jobs["quick"].last_reason == "catch-up"


def test_wake_jump_catches_up_once_and_a_small_step_does_not():
    clocks = _Clocks(_ts("2026-03-10T03:00:30"))
    fresh = clocks.wall - 10  # every mode ran after its last fire
    last_ok = {"a": {"quick": fresh, "daily": fresh, "monthly": fresh}}
    runs: list = []
    sch = _scheduler(clocks, last_ok, runs)
    sch.start()
    try:
        wait_for(lambda: sch.jobs["sync"].runs >= 1)
        clocks.advance(90)  # under wake_jump_seconds and before 04:00: nothing is due
        time.sleep(0.2)
        assert [r for r in runs if r[0] != "sync"] == []
        clocks.advance(3 * 86400, jump=True)  # the laptop slept three days
        wait_for(lambda: sch.jobs["daily"].runs == 1)
        time.sleep(0.2)  # more heartbeats: nothing may run twice
    finally:
        sch.stop()
    modes = [r for r in runs if r[0] != "sync"]
    assert modes == [("quick", "catch-up", ["a"]), ("daily", "catch-up", ["a"])]  # once each, no pile-up


def _real_scheduler(runs: list, last_ok: dict, triggers: dict, slow: dict | None = None, **settings):
    """A Scheduler on the real clock with sub-minute CronTriggers (APScheduler fires them itself)."""
    base = dict(timezone="UTC", heartbeat_seconds=0.05, misfire_grace_seconds=1)
    cfg = scheduler.ScheduleSettings(**{**base, **settings})

    def run_mode(mode, reason, agents):
        runs.append((mode, reason, agents, time.time()))
        time.sleep((slow or {}).pop(mode, 0))
        for a in agents:
            last_ok[a][mode] = time.time()
        return True

    return scheduler.Scheduler(cfg, run_mode, lambda m: {a: v.get(m) for a, v in last_ok.items()},
                               lambda: 0, triggers=triggers)


def test_cron_jobs_fire_on_the_real_clock():
    from apscheduler.triggers.cron import CronTrigger

    now = time.time()
    last_ok = {"a": {m: now for m in scheduler.MODES}}
    runs: list = []
    sch = _real_scheduler(runs, last_ok, {"quick": CronTrigger(second="*/2", timezone="UTC")})
    sch.start()
    try:
        wait_for(lambda: len(runs) >= 2)
    finally:
        sch.stop()
    (m1, r1, a1, t1), (m2, r2, a2, t2) = runs[:2]
    assert (m1, r1, a1) == (m2, r2, a2) == ("quick", "schedule", ["a"])
    assert t1 % 2 < 0.5 and 1.5 < t2 - t1 < 2.5  # on the even seconds, one fire each


def test_a_fire_later_than_the_grace_becomes_a_catch_up():
    from apscheduler.triggers.cron import CronTrigger

    now = time.time()
    last_ok = {"a": {m: now for m in scheduler.MODES}}
    runs: list = []
    triggers = {"quick": CronTrigger(second="*/4", timezone="UTC"),  # busy for 3 s at 0, 4, 8 …
                "daily": CronTrigger(second="1-59/4", timezone="UTC")}  # … so this waits 2 s > grace 1 s
    sch = _real_scheduler(runs, last_ok, triggers, slow={"quick": 3})
    sch.start()
    try:
        wait_for(lambda: any(r[0] == "daily" for r in runs), timeout=15)
    finally:
        sch.stop()
    daily = [r for r in runs if r[0] == "daily"]
    assert daily[0][1] == "catch-up" and daily[0][2] == ["a"]
    assert sch.jobs["daily"].last_error is None


def test_sync_drain_backs_off_while_pending():
    pending = [3, 3, 3]
    drains: list[float] = []

    def run_sync():
        drains.append(time.monotonic())
        return pending.pop(0) if pending else 0

    cfg = scheduler.ScheduleSettings(timezone="UTC", sync_backoff_seconds=0.3, sync_backoff_max_seconds=0.6,
                                     sync_idle_seconds=600)
    sch = scheduler.Scheduler(cfg, lambda *a: True, lambda m: {}, run_sync)
    sch.start()
    try:
        wait_for(lambda: len(drains) == 4)
        time.sleep(0.1)
        info = sch.info()["sync"]
    finally:
        sch.stop()
    gaps = [b - a for a, b in zip(drains, drains[1:])]
    for gap, want in zip(gaps, (0.3, 0.6, 0.6)):  # doubled, then capped
        assert want - 0.02 <= gap <= want + 0.4, gaps
    assert info["next_run"] == pytest.approx(info["last_run"] + 600, abs=1)  # drained: the idle interval


# -- watcher pieces ----------------------------------------------------------------------
def test_classify_paths(config, tmp_path, monkeypatch):
    monkeypatch.delenv("MEMORYD_WORKSPACE")
    state = tmp_path / "openclaw"
    (state / "workspace" / "memory").mkdir(parents=True)
    (state / "agents" / "bot-1" / "agent").mkdir(parents=True)
    s = watcher.WatchSettings.from_config(config, env={"OPENCLAW_STATE_DIR": str(state)})
    monkeypatch.setenv("OPENCLAW_STATE_DIR", str(state))
    layout = watcher.Layout.of(s)
    notes = state / "workspace" / "memory"
    assert watcher.classify(notes / "2026-03-10.md", layout) == ("note", "main")
    assert watcher.classify(notes / "2026-03-10-1530.md", layout) == ("note", "main")
    assert watcher.classify(notes / "2026-03-10-vendor-pitch.md", layout) == ("note", "main")
    assert watcher.classify(notes / "notes.md", layout) is None
    agent_dir = state / "agents" / "bot-1"
    assert watcher.classify(agent_dir / "agent" / "openclaw-agent.sqlite-wal", layout) == ("store", "bot-1")
    assert watcher.classify(agent_dir / "agent" / "openclaw-agent.sqlite.generation-lock.sqlite", layout) is None
    t = agent_dir / "sessions" / "abc.jsonl"
    assert watcher.classify(t, layout) == ("transcript", "bot-1")
    assert watcher.classify(t.with_name("abc.jsonl.reset.2026-03-10T10-00-00Z"), layout) == ("transcript", "bot-1")
    assert watcher.classify(agent_dir / "x.jsonl", layout) is None
    assert watcher.classify(state / "agents" / ".." / "sessions" / "a.jsonl", layout) is None
    assert set(layout.roots()) == {state / "agents", notes, state / "workspace-bot-1" / "memory"}


def test_watch_settings_from_config_toml(home, config):
    (home).mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text('[watch]\nsessions_dir = "/x/agents"\nquiet_seconds = 7\nnotes_agent = "bot"\n')
    s = watcher.WatchSettings.from_config(load_config(dict(os.environ)), env={})
    assert (s.sessions_dir, s.quiet_seconds, s.notes_agent) == (Path("/x/agents"), 7.0, "bot")
    (home / "config.toml").write_text('[watch]\nquiet_seconds = 0\n')
    with pytest.raises(ConfigError):
        watcher.WatchSettings.from_config(load_config(dict(os.environ)), env={})


def test_quiet_timer_fires_once_after_quiet():
    fired: list[tuple[str, float]] = []
    t0 = time.monotonic()
    timer = watcher.QuietTimer(0.3, lambda key: fired.append((key, time.monotonic() - t0)))
    timer.start()
    try:
        timer.touch("a")
        time.sleep(0.2)
        timer.touch("a")  # still talking: the deadline moves
        timer.touch("b", delay=0.05)
        wait_for(lambda: len(fired) == 2, timeout=3)
        time.sleep(0.3)
    finally:
        timer.stop()
    assert [k for k, _ in fired] == ["b", "a"]
    assert fired[1][1] >= 0.45  # 0.2 + 0.3
    assert timer.pending() == 0


# -- socket server and client -----------------------------------------------------------------
@pytest.fixture
def sock_path():
    d = Path(tempfile.mkdtemp(prefix="mdu-", dir="/tmp"))
    yield d / "s.sock"
    for p in d.iterdir():
        p.unlink()
    d.rmdir()


def _handler(op, params):
    if op == "echo":
        return params
    if op == "usage":
        raise UsageError("bad thing\nsecond line")
    if op == "store":
        raise StoreError("disk gone", transient=True)
    raise RuntimeError("boom")


def test_server_roundtrip_errors_and_cleanup(sock_path, home):
    srv = server.SocketServer(sock_path, _handler)
    srv.start()
    cfg = load_config({"MEMORYD_HOME": str(home), "MEMORYD_SOCKET": str(sock_path)})
    try:
        assert (sock_path.stat().st_mode & 0o777) == 0o600
        assert client.try_daemon(cfg, "echo", {"x": "日本"}) == {"x": "日本"}
        with pytest.raises(UsageError) as err:
            client.try_daemon(cfg, "usage", {})
        assert err.value.exit_code == 2 and err.value.message == "bad thing second line"
        with pytest.raises(StoreError) as err2:
            client.try_daemon(cfg, "store", {})
        assert err2.value.transient and err2.value.exit_code == 1
        with pytest.raises(MemorydError, match="internal error: RuntimeError: boom"):
            client.try_daemon(cfg, "other", {})
        # raw protocol: several lines on one connection, bad JSON answered with exit 2
        with socket.socket(socket.AF_UNIX) as s:
            s.connect(str(sock_path))
            s.sendall(b'{"op":"echo","params":{"n":1}}\nnot json\n{"op":"echo"}\n')
            s.shutdown(socket.SHUT_WR)  # the server answers all three, then sees EOF
            lines = s.makefile("rb").read().split(b"\n")
        replies = [json.loads(x) for x in lines if x]
        assert replies[0] == {"ok": True, "result": {"n": 1}}
        assert replies[1]["ok"] is False and replies[1]["error"]["exit_code"] == 2
        assert replies[2] == {"ok": True, "result": {}}
    finally:
        srv.stop()
    assert not sock_path.exists()
    assert client.try_daemon(cfg, "echo", {}) is None  # nobody listening → in-process


def test_client_none_for_stale_socket_and_ipcerror_for_broken_exchange(sock_path, home):
    cfg = load_config({"MEMORYD_HOME": str(home), "MEMORYD_SOCKET": str(sock_path)})
    stale = socket.socket(socket.AF_UNIX)
    stale.bind(str(sock_path))
    stale.close()  # a socket file left by a killed daemon
    assert client.try_daemon(cfg, "ping") is None
    sock_path.unlink()
    # a listener that reads the request, then hangs up without answering
    lst = socket.socket(socket.AF_UNIX)
    lst.bind(str(sock_path))
    lst.listen(1)

    def hang_up() -> None:
        conn = lst.accept()[0]
        conn.recv(65536)
        conn.close()

    t = threading.Thread(target=hang_up)
    t.start()
    with pytest.raises(IPCError):
        client.try_daemon(cfg, "ping", timeout=2)
    t.join()
    # a listener that never answers → timeout
    with pytest.raises(IPCError, match="did not answer"):
        client.try_daemon(cfg, "ping", timeout=0.3)
    lst.close()


def test_server_refuses_non_socket_and_long_paths(sock_path, home):
    sock_path.write_text("not a socket")
    with pytest.raises(IPCError, match="not a socket"):
        server.SocketServer(sock_path, _handler).start()
    sock_path.unlink()
    with pytest.raises(IPCError, match="too long"):
        server.SocketServer(sock_path.parent / ("x" * 120 + ".sock"), _handler).start()


# -- lifecycle ------------------------------------------------------------------------
def test_instance_lock_refuses_second_and_cleans_pid(tmp_path):
    first = lifecycle.InstanceLock(tmp_path)
    first.acquire()
    assert lifecycle.read_pid(tmp_path) == os.getpid()
    with pytest.raises(lifecycle.AlreadyRunning, match=f"already running \\(pid {os.getpid()}\\)"):
        lifecycle.InstanceLock(tmp_path).acquire()
    first.release()
    assert lifecycle.read_pid(tmp_path) is None
    again = lifecycle.InstanceLock(tmp_path)
    again.acquire()
    again.release()


@pytest.mark.parametrize("abstract", [False, True])
def test_sd_notify_reaches_notify_socket(tmp_path, monkeypatch, abstract):
    recv = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    if abstract:
        name = f"memoryd-test-{os.getpid()}-{time.monotonic_ns()}"
        recv.bind("\0" + name)
        monkeypatch.setenv("NOTIFY_SOCKET", "@" + name)
    else:
        recv.bind(str(tmp_path / "n.sock"))
        monkeypatch.setenv("NOTIFY_SOCKET", str(tmp_path / "n.sock"))
    recv.settimeout(2)
    with recv:
        assert lifecycle.sd_notify("READY=1")
        assert recv.recv(100) == b"READY=1"
    monkeypatch.delenv("NOTIFY_SOCKET")
    assert lifecycle.sd_notify("READY=1") is False


def test_watchdog_interval(monkeypatch):
    monkeypatch.delenv("WATCHDOG_USEC", raising=False)
    assert lifecycle.watchdog_interval() is None
    monkeypatch.setenv("WATCHDOG_USEC", "120000000")
    monkeypatch.setenv("WATCHDOG_PID", str(os.getpid()))
    assert lifecycle.watchdog_interval() == 60.0
    monkeypatch.setenv("WATCHDOG_PID", "1")  # meant for another process
    assert lifecycle.watchdog_interval() is None


def test_log_lines_are_one_line_and_journald_prefixed():
    rec = logging.LogRecord("memoryd.daemon", logging.WARNING, __file__, 1, "two\nlines", None, None)
    assert lifecycle._JournalFormatter(journald=True).format(rec) == "<4>two lines"
    plain = lifecycle._JournalFormatter(journald=False).format(rec)
    assert plain.endswith("WARNING two lines") and "\n" not in plain


def test_signals_wake_the_sleeping_main_loop_without_locks():
    """A signal during sleep() wakes it at once; handlers only set flags (no Event lock to deadlock on)."""
    import os
    import signal as sig

    from memoryd.daemon.lifecycle import Signals

    before = sig.getsignal(sig.SIGTERM)
    s = Signals()
    s.install()
    try:
        threading.Timer(0.1, lambda: os.kill(os.getpid(), sig.SIGHUP)).start()
        t0 = time.monotonic()
        s.sleep(30)
        assert s.reload and not s.stopping and time.monotonic() - t0 < 5
        s.reload = False
        os.kill(os.getpid(), sig.SIGTERM)
        s.sleep(30)
        assert s.stopping
    finally:
        s.restore()
    assert sig.getsignal(sig.SIGTERM) == before


def test_heartbeat_upkeep_runs_and_its_failure_does_not_stop_the_heartbeat():
    calls: list[float] = []

    def upkeep() -> None:
        calls.append(time.monotonic())
        if len(calls) == 1:
            raise RuntimeError("one bad round")

    cfg = scheduler.ScheduleSettings(timezone="UTC", heartbeat_seconds=0.1, sync_idle_seconds=600)
    sch = scheduler.Scheduler(cfg, lambda *a: True, lambda m: {}, lambda: 0, on_heartbeat=upkeep)
    sch.start()
    try:
        wait_for(lambda: len(calls) >= 3)
    finally:
        sch.stop()
