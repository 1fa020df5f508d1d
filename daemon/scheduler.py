"""When consolidations and outbox drains run: cron times, catch-up after downtime or sleep, backoff.

One thread, one injectable wall clock. APScheduler's CronTrigger only computes the next
fire time (time zones, DST); the loop sleeps on an Event until the earliest of: next fire,
next sync drain, the heartbeat (which is what notices a wall-clock jump after a wake).
"""
from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass, field
from datetime import datetime, tzinfo
from typing import Any, Callable, Mapping

from memoryd.tiers.errors import ConfigError, MemorydError

log = logging.getLogger("memoryd.daemon")

MODES = ("quick", "daily", "monthly")
DEFAULT_CRON = {"quick": "0 * * * *", "daily": "0 3 * * *", "monthly": "0 4 1 * *"}
Clock = Callable[[], float]


@dataclass(frozen=True)
class ScheduleSettings:
    """The `[schedule]` section of config.toml, validated."""

    cron: Mapping[str, str] = field(default_factory=lambda: dict(DEFAULT_CRON))
    timezone: str | None = None
    heartbeat_seconds: float = 60.0
    wake_jump_seconds: float = 120.0
    sync_idle_seconds: float = 600.0
    sync_backoff_seconds: float = 30.0
    sync_backoff_max_seconds: float = 1800.0

    @classmethod
    def from_section(cls, section: Mapping[str, Any]) -> "ScheduleSettings":
        cron = dict(DEFAULT_CRON)
        for mode in MODES:
            value = section.get(mode, cron[mode])
            if not isinstance(value, str):
                raise ConfigError(f"config.toml [schedule] {mode} must be a crontab string like {DEFAULT_CRON[mode]!r}")
            cron[mode] = value
        nums: dict[str, float] = {}
        for key in ("heartbeat_seconds", "wake_jump_seconds", "sync_idle_seconds",
                    "sync_backoff_seconds", "sync_backoff_max_seconds"):
            value = section.get(key, getattr(cls, key))
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
                raise ConfigError(f"config.toml [schedule] {key} must be a positive number")
            nums[key] = float(value)
        tz = section.get("timezone")
        if tz is not None and not isinstance(tz, str):
            raise ConfigError("config.toml [schedule] timezone must be a string")
        settings = cls(cron=cron, timezone=tz, **nums)
        settings.triggers()  # validate the crontab strings now, not at 03:00
        return settings

    def triggers(self) -> dict[str, Any]:
        from apscheduler.triggers.cron import CronTrigger  # heavy: daemon only

        out = {}
        for mode in MODES:
            try:
                out[mode] = CronTrigger.from_crontab(self.cron[mode], timezone=self.tz())
            except (ValueError, TypeError) as exc:
                raise ConfigError(f"config.toml [schedule] {mode}: bad crontab {self.cron[mode]!r}: {exc}") from None
        return out

    def tz(self) -> tzinfo:
        if self.timezone:
            from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

            try:
                return ZoneInfo(self.timezone)
            except (ZoneInfoNotFoundError, ValueError):
                raise ConfigError(f"config.toml [schedule] timezone: unknown zone {self.timezone!r}") from None
        from tzlocal import get_localzone

        return get_localzone()


def next_fire(trigger: Any, tz: tzinfo, at: float) -> float:
    """First fire time (unix) of `trigger` at or after `at` (never one in the past: no pile-up)."""
    nxt = trigger.get_next_fire_time(None, datetime.fromtimestamp(at, tz))
    return nxt.timestamp() if nxt is not None else float("inf")


def period_of(trigger: Any, tz: tzinfo, now: float) -> float:
    """A schedule's period: the gap between its next two fire times (1 h, 1 day, ~1 month)."""
    first = next_fire(trigger, tz, now)
    return next_fire(trigger, tz, first + 1) - first


def stale_agents(last_ok: Mapping[str, float | None], trigger: Any, tz: tzinfo, now: float) -> list[str]:
    """Agents that missed a scheduled fire since their last successful run (or never ran).

    Not "older than a period": a run late in the day (a catch-up) must not hide tomorrow's missed one.
    """
    return sorted(a for a, t in last_ok.items() if t is None or next_fire(trigger, tz, t + 1) <= now)


def sync_delay(settings: ScheduleSettings, failures: int) -> float:
    """Exponential backoff for the outbox drain; the idle interval when all went out."""
    if failures <= 0:
        return settings.sync_idle_seconds
    return min(settings.sync_backoff_seconds * 2 ** (failures - 1), settings.sync_backoff_max_seconds)


@dataclass
class JobInfo:
    next_run: float | None = None
    last_run: float | None = None
    last_reason: str | None = None
    runs: int = 0
    last_error: str | None = None


class Scheduler:
    """Runs consolidation modes on their cron times and the outbox drain on its backoff.

    run_mode(mode, reason, agents|None) returns True when all agents succeeded;
    last_ok(mode) maps agent → last successful end (unix) or None;
    run_sync() returns how many pushes are still pending (raises on failure).
    """

    def __init__(self, settings: ScheduleSettings, run_mode: Callable[[str, str, list[str] | None], bool],
                 last_ok: Callable[[str], Mapping[str, float | None]], run_sync: Callable[[], int],
                 clock: Clock = time.time, monotonic: Clock = time.monotonic) -> None:
        self._run_mode, self._last_ok, self._run_sync = run_mode, last_ok, run_sync
        self.clock, self.monotonic = clock, monotonic
        self.jobs: dict[str, JobInfo] = {m: JobInfo() for m in (*MODES, "sync")}
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._catch_up = True  # on start: anything overdue runs once
        self._sync_failures = 0
        self._thread: threading.Thread | None = None
        self._apply(settings)

    def _apply(self, settings: ScheduleSettings) -> None:
        self.settings = settings
        self._tz = settings.tz()
        self._triggers = settings.triggers()
        now = self.clock()
        for mode, trig in self._triggers.items():
            self.jobs[mode].next_run = next_fire(trig, self._tz, now)
        if self.jobs["sync"].next_run is None:
            self.jobs["sync"].next_run = now  # drain whatever a previous run left in the outbox

    # -- control -----------------------------------------------------------------
    def start(self) -> None:
        self._thread = threading.Thread(target=self._loop, name="memoryd-scheduler", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 4.0) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout)

    def reload(self, settings: ScheduleSettings) -> None:
        self._apply(settings)
        self.kick()

    def kick(self, catch_up: bool = True) -> None:
        """Wake the loop now (after a reload, or when someone knows the clock moved)."""
        self._catch_up = self._catch_up or catch_up
        self._wake.set()

    def kick_sync(self) -> None:
        self.jobs["sync"].next_run = self.clock()
        self._wake.set()

    @property
    def stopping(self) -> bool:
        return self._stop.is_set()

    def info(self) -> dict[str, dict[str, Any]]:
        return {name: dict(vars(job)) for name, job in self.jobs.items()}

    # -- the loop ----------------------------------------------------------------
    def _loop(self) -> None:
        last_wall, last_mono = self.clock(), self.monotonic()
        while not self._stop.is_set():
            now, mono = self.clock(), self.monotonic()
            drift = (now - last_wall) - (mono - last_mono)
            if abs(drift) >= self.settings.wake_jump_seconds:
                log.info("wall clock moved %+.0fs (wake from sleep or clock change): checking for missed runs", drift)
                self._catch_up = True
                for mode, trig in self._triggers.items():
                    self.jobs[mode].next_run = min(self.jobs[mode].next_run or now, next_fire(trig, self._tz, now))
            last_wall, last_mono = now, mono
            try:
                self._run_due(now)
            except Exception as exc:  # a bug in one round must not kill the schedule
                log.error("scheduler round failed", exc_info=exc)
            last_wall, last_mono = self.clock(), self.monotonic()
            self._wake.wait(self._sleep_for())
            self._wake.clear()

    def _sleep_for(self) -> float:
        now = self.clock()
        upcoming = [j.next_run for j in self.jobs.values() if j.next_run is not None]
        until = min(upcoming, default=now + self.settings.heartbeat_seconds) - now
        return max(0.01, min(until, self.settings.heartbeat_seconds))

    def _run_due(self, now: float) -> None:
        catch_up, self._catch_up = self._catch_up, False
        for mode in MODES:
            if self._stop.is_set():
                return
            job, trig = self.jobs[mode], self._triggers[mode]
            if job.next_run is not None and job.next_run <= now:
                self._run(mode, "schedule", None)
                job.next_run = next_fire(trig, self._tz, max(self.clock(), job.next_run + 1))
            elif catch_up:
                agents = stale_agents(self._last_ok(mode), trig, self._tz, now)
                if agents:
                    self._run(mode, "catch-up", agents)
        sync = self.jobs["sync"]
        if not self._stop.is_set() and sync.next_run is not None and sync.next_run <= now:
            self._drain()

    def _run(self, mode: str, reason: str, agents: list[str] | None) -> None:
        job = self.jobs[mode]
        job.last_run, job.last_reason = self.clock(), reason
        job.runs += 1
        log.info("consolidation %s (%s) starting", mode, reason)
        started = self.monotonic()
        try:
            ok = self._run_mode(mode, reason, agents)
            job.last_error = None if ok else "see the daemon log"
            log.info("consolidation %s (%s) %s in %.0f ms", mode, reason, "done" if ok else "had failures",
                     (self.monotonic() - started) * 1000)
        except Exception as exc:
            job.last_error = exc.message if isinstance(exc, MemorydError) else f"{type(exc).__name__}: {exc}"
            log.error("consolidation %s failed: %s", mode, job.last_error)

    def _drain(self) -> None:
        job = self.jobs["sync"]
        job.last_run, job.runs = self.clock(), job.runs + 1
        try:
            pending = self._run_sync()
            job.last_error = None
            self._sync_failures = self._sync_failures + 1 if pending else 0
        except Exception as exc:
            job.last_error = exc.message if isinstance(exc, MemorydError) else f"{type(exc).__name__}: {exc}"
            self._sync_failures += 1
            log.warning("outbox drain failed (retry #%d): %s", self._sync_failures, job.last_error)
        job.next_run = self.clock() + sync_delay(self.settings, self._sync_failures)
