"""The daemon's scheduler on its own: schedule maths, catch-up, cron firing on the real clock, the outbox drain."""
from __future__ import annotations

import time
from datetime import datetime, timezone

import pytest

from memoryd.daemon import scheduler
from memoryd.tiers.base.errors import ConfigError, RemoteError, UsageError
from waiting import eventually

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


def test_sync_drain_asks_soon_while_a_push_is_owed():
    """One backoff (the outbox's): the drain asks on a plain cadence, the outbox says when a push is due."""
    s = scheduler.ScheduleSettings(sync_backoff_seconds=10, sync_idle_seconds=500)
    assert [scheduler.sync_delay(s, owed) for owed in (False, True, True, True)] == [500, 10, 10, 10]


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


class _Beats:
    """Counts the scheduler's heartbeats (its on_heartbeat hook). Jobs run one at a time on one thread, so a
    heartbeat ending after the test looked began after every job then running had ended: waiting for two more
    is waiting for a full round of "is anything due?" that the test can then check did nothing."""

    def __init__(self) -> None:
        self.n = 0

    def __call__(self) -> None:
        self.n += 1

    def two_more(self) -> None:
        target = self.n + 2
        eventually(lambda: self.n >= target, what=f"heartbeat {target}")


def _scheduler(clocks: _Clocks, last_ok: dict, runs: list, pending: list[int] | None = None,
               beats: _Beats | None = None):
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
                              run_sync, clock=lambda: clocks.wall, monotonic=lambda: clocks.mono, on_heartbeat=beats)
    return sch


def test_catch_up_on_start_runs_each_overdue_mode_once():
    clocks = _Clocks(_ts("2026-03-10T12:00:30"))
    last_ok = {"a": {"quick": clocks.wall - 7200, "daily": clocks.wall - 3600,
                     "monthly": clocks.wall - 40 * 86400},
               "b": {"quick": clocks.wall - 60, "daily": None, "monthly": clocks.wall - 86400}}
    runs: list = []
    beats = _Beats()
    sch = _scheduler(clocks, last_ok, runs, beats=beats)
    sch.start()
    try:
        eventually(lambda: sch.jobs["sync"].runs >= 1 and sch.jobs["monthly"].runs >= 1)
        beats.two_more()  # more rounds: nothing may run twice
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
    beats = _Beats()
    sch = _scheduler(clocks, last_ok, runs, beats=beats)
    sch.start()
    try:
        eventually(lambda: sch.jobs["sync"].runs >= 1)
        clocks.advance(90)  # under wake_jump_seconds and before 04:00: nothing is due
        beats.two_more()  # a full round saw the new time
        assert [r for r in runs if r[0] != "sync"] == []
        clocks.advance(3 * 86400, jump=True)  # the laptop slept three days
        eventually(lambda: sch.jobs["daily"].runs == 1)
        beats.two_more()  # more rounds: nothing may run twice
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
        eventually(lambda: len(runs) >= 2)
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
    # start between a daily fire and the next quick one (second 1.2–3 of a 4 s cycle): the first daily fire then comes
    # while the quick job is busy, not before its first fire (started at second 0.5, daily ran at 1 on time)
    eventually(lambda: 1.2 <= time.time() % 4 < 3.0, timeout=5)
    sch.start()
    try:
        eventually(lambda: any(r[0] == "daily" for r in runs), timeout=15)
    finally:
        sch.stop()
    daily = [r for r in runs if r[0] == "daily"]
    assert daily[0][1] == "catch-up" and daily[0][2] == ["a"]
    assert sch.jobs["daily"].last_error is None


def test_sync_drain_asks_again_while_pending_then_idles():
    pending = [3, 3, 3]
    drains: list[float] = []

    def run_sync():
        drains.append(time.monotonic())
        return pending.pop(0) if pending else 0

    cfg = scheduler.ScheduleSettings(timezone="UTC", sync_backoff_seconds=0.3, sync_idle_seconds=600,
                                     heartbeat_seconds=0.05)
    beats = _Beats()
    sch = scheduler.Scheduler(cfg, lambda *a: True, lambda m: {}, run_sync, on_heartbeat=beats)
    sch.start()
    try:
        eventually(lambda: len(drains) == 4)
        beats.two_more()  # the fourth drain has ended and set its next run
        info = sch.info()["sync"]
    finally:
        sch.stop()
    gaps = [b - a for a, b in zip(drains, drains[1:])]
    for gap in gaps:  # the plain cadence: the outbox's own backoff decides whether each ask pushes
        assert 0.3 - 0.02 <= gap <= 0.3 + 0.4, gaps
    assert info["next_run"] == pytest.approx(info["last_run"] + 600, abs=1)  # drained: the idle interval


@pytest.mark.parametrize("error, delay", [(RemoteError("server down"), 0.3), (UsageError("no key"), 600)])
def test_a_failed_drain_asks_again_only_when_waiting_can_help(error, delay):
    def run_sync():
        raise error

    cfg = scheduler.ScheduleSettings(timezone="UTC", sync_backoff_seconds=0.3, sync_idle_seconds=600,
                                     heartbeat_seconds=0.05)
    beats = _Beats()
    sch = scheduler.Scheduler(cfg, lambda *a: True, lambda m: {}, run_sync, on_heartbeat=beats)
    sch.start()
    try:
        eventually(lambda: sch.jobs["sync"].runs >= 1 and sch.jobs["sync"].last_error is not None)
        beats.two_more()  # the failed drain has ended and set its next run
        info = sch.info()["sync"]
    finally:
        sch.stop()
    assert info["last_error"] == error.message
    assert info["next_run"] == pytest.approx(info["last_run"] + delay, abs=0.2)


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
        eventually(lambda: len(calls) >= 3)
    finally:
        sch.stop()
