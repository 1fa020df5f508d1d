"""When consolidations and outbox drains run: APScheduler 3.x jobs, catch-up after downtime or a clock jump.

APScheduler (BackgroundScheduler) owns the timing: one CronTrigger job per consolidation mode
(coalesce: a backlog of fires runs once; misfire_grace_time: a fire later than that is reported
missed), an interval job for the outbox drain and a heartbeat job. All run one at a time on one daemon thread (_SerialExecutor), as consolidation
and sync must never overlap and SIGTERM must not wait for a long consolidation.

Catch-up is ours: APScheduler keeps no memory across restarts and cannot see a wall-clock jump that
happened while it slept. A consolidation therefore runs for the agents that missed a fire since their
last successful run (`stale_agents`), on start, on a jump the heartbeat notices, and after a misfire.
The same rule filters a scheduled fire, so nothing runs twice for one fire.

Retries. A failed push waits in the durable outbox (sync/outbox.py), whose backoff is the only one: the
drain asks every `sync_backoff_seconds` while a push is owed and the outbox says whether it is due yet;
when none is owed, it asks every `sync_idle_seconds` (which also pulls what other devices pushed).

The clock. APScheduler 3.x reads `datetime.now()` itself (BaseScheduler._process_jobs and
executors.base.run_job take no clock), so its cron firing runs on the real clock and cannot be driven
by a test. Our decisions take an injectable wall clock (`clock`, MEMORYD_CLOCK_FILE in the daemon):
which agents are overdue, whether the clock jumped. Tests drive catch-up with it; the cron jobs
themselves are tested on real time with sub-minute triggers passed in (`triggers=`).
"""
from __future__ import annotations

import logging
import queue
import threading
import time
from dataclasses import dataclass, field, fields
from datetime import datetime, tzinfo
from typing import Any, Callable, Mapping

from memoryd.tiers.base.config import Config
from memoryd.tiers.base.config_schema import check_section, defaults
from memoryd.tiers.base.errors import ConfigError, MemorydError

log = logging.getLogger("memoryd.daemon")

MODES = ("quick", "daily", "monthly")
DEFAULT_CRON = {mode: defaults("schedule")[mode] for mode in MODES}
Clock = Callable[[], float]


@dataclass(frozen=True)
class ScheduleSettings:
    """The `[schedule]` section of config.toml (keys, defaults and limits: tiers/base/config_schema.py)."""

    cron: Mapping[str, str] = field(default_factory=lambda: dict(DEFAULT_CRON))
    timezone: str | None = None
    heartbeat_seconds: float = 60.0
    wake_jump_seconds: float = 120.0
    misfire_grace_seconds: int = 600
    sync_idle_seconds: float = 600.0
    sync_backoff_seconds: float = 30.0  # how often the drain asks the outbox while a push is owed

    @classmethod
    def from_config(cls, config: Config) -> "ScheduleSettings":
        """The daemon's schedule from config.toml's [schedule], checked at load (crontabs included)."""
        return cls._of(dict(vars(config.schedule)))

    @classmethod
    def from_section(cls, section: Mapping[str, Any]) -> "ScheduleSettings":
        """Settings written in code (tests, tools): checked here against the schema, as load_config would."""
        return cls._of(check_section("schedule", section))

    @classmethod
    def _of(cls, values: dict[str, Any]) -> "ScheduleSettings":
        known = {f.name for f in fields(cls)}
        return cls(cron={m: values.pop(m) for m in MODES}, **{k: v for k, v in values.items() if k in known})

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
    """First fire time (unix) of `trigger` at or after `at`."""
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


def sync_delay(settings: ScheduleSettings, owed: bool) -> float:
    """When to drain the outbox again: soon while a push is owed (the outbox's backoff decides when it is
    tried), the idle interval when everything went out."""
    return settings.sync_backoff_seconds if owed else settings.sync_idle_seconds


@dataclass
class JobInfo:
    next_run: float | None = None
    last_run: float | None = None
    last_reason: str | None = None
    runs: int = 0
    last_error: str | None = None


def _serial_executor() -> Any:
    """An APScheduler executor running jobs in submission order on one daemon thread."""
    from apscheduler.executors.base import BaseExecutor, run_job

    class SerialExecutor(BaseExecutor):  # the pool executors' threads would hold up exit on SIGTERM
        def start(self, scheduler: Any, alias: str) -> None:
            super().start(scheduler, alias)
            self._queue: queue.SimpleQueue = queue.SimpleQueue()
            self._thread = threading.Thread(target=self._work, name="memoryd-jobs", daemon=True)
            self._thread.start()

        def shutdown(self, wait: bool = True) -> None:
            self._queue.put(None)
            if wait:
                self._thread.join()

        def _do_submit_job(self, job: Any, run_times: list[datetime]) -> None:
            self._queue.put((job, run_times))

        def _work(self) -> None:
            while (item := self._queue.get()) is not None:
                job, run_times = item
                try:
                    events = run_job(job, job._jobstore_alias, run_times, self._logger.name)
                except BaseException as exc:
                    self._run_job_error(job.id, exc, exc.__traceback__)
                else:
                    self._run_job_success(job.id, events)

    return SerialExecutor()


class Scheduler:
    """Consolidation modes on their cron times, the outbox drain on its cadence, catch-up on start and jumps.

    run_mode(mode, reason, agents) returns True when all agents succeeded;
    last_ok(mode) maps agent → last successful end (unix) or None;
    run_sync() returns how many pushes are still pending (raises on failure).
    `triggers` replaces the crontab triggers (tests: sub-minute CronTriggers on real time).
    """

    def __init__(self, settings: ScheduleSettings, run_mode: Callable[[str, str, list[str] | None], bool],
                 last_ok: Callable[[str], Mapping[str, float | None]], run_sync: Callable[[], int],
                 clock: Clock = time.time, monotonic: Clock = time.monotonic,
                 triggers: Mapping[str, Any] | None = None, on_heartbeat: Callable[[], None] | None = None) -> None:
        self._run_mode, self._last_ok, self._run_sync = run_mode, last_ok, run_sync
        self._on_heartbeat = on_heartbeat  # light upkeep on the heartbeat's existing wake-up
        self.clock, self.monotonic = clock, monotonic
        self._fixed_triggers = dict(triggers) if triggers else None
        self.jobs: dict[str, JobInfo] = {m: JobInfo() for m in (*MODES, "sync")}
        self._stop = threading.Event()
        self._catch_up = True  # on start: anything overdue runs once
        self.heartbeats = 0  # rounds ended: a test waits for one more instead of sleeping
        self._last_wall, self._last_mono = clock(), monotonic()
        self._aps: Any = None
        self._apply(settings)

    def _apply(self, settings: ScheduleSettings) -> None:
        self.settings = settings
        self._tz = settings.tz()
        self._triggers = {**settings.triggers(), **(self._fixed_triggers or {})}

    # -- control -----------------------------------------------------------------
    def start(self) -> None:
        from apscheduler.events import EVENT_JOB_MISSED
        from apscheduler.schedulers.background import BackgroundScheduler

        logging.getLogger("apscheduler").setLevel(logging.ERROR)  # its per-run INFO lines; we log our own
        self._aps = BackgroundScheduler(executors={"default": _serial_executor()}, timezone=self._tz,
                                        job_defaults={"coalesce": True, "max_instances": 1})
        self._aps.add_listener(self._on_missed, EVENT_JOB_MISSED)
        now = datetime.now(self._tz)
        self._aps.add_job(self._heartbeat, self._interval(self.settings.heartbeat_seconds), id="heartbeat",
                          next_run_time=now, misfire_grace_time=None)
        for mode in MODES:
            self._aps.add_job(self._scheduled, self._triggers[mode], args=[mode], id=mode,
                              misfire_grace_time=self.settings.misfire_grace_seconds)
        # the first drain at once: whatever a previous run left in the outbox
        self._aps.add_job(self._drain, self._interval(self.settings.sync_idle_seconds), id="sync",
                          next_run_time=now, misfire_grace_time=None)
        self._aps.start()

    def stop(self, timeout: float = 4.0) -> None:
        """Stop firing; a job in progress sees `stopping` between agents (its thread is a daemon)."""
        self._stop.set()
        if self._aps is not None and self._aps.running:
            self._aps.shutdown(wait=False)

    def reload(self, settings: ScheduleSettings) -> None:
        self._apply(settings)
        if self._aps is None:
            return
        for mode in MODES:
            self._aps.reschedule_job(mode, trigger=self._triggers[mode])
            self._aps.modify_job(mode, misfire_grace_time=settings.misfire_grace_seconds)
        self._aps.reschedule_job("heartbeat", trigger=self._interval(settings.heartbeat_seconds))
        self._aps.reschedule_job("sync", trigger=self._interval(settings.sync_idle_seconds))
        self.kick_sync()
        self.kick()

    def kick(self, catch_up: bool = True) -> None:
        """Look for overdue work now (after a reload, or when someone knows the clock moved)."""
        self._catch_up = self._catch_up or catch_up
        self._run_soon("heartbeat")

    def kick_sync(self) -> None:
        self._run_soon("sync")

    @property
    def stopping(self) -> bool:
        return self._stop.is_set()

    def info(self) -> dict[str, dict[str, Any]]:
        out = {}
        for name, job in self.jobs.items():
            aps_job = self._aps.get_job(name) if self._aps is not None and self._aps.running else None
            if aps_job is not None and aps_job.next_run_time is not None:
                job.next_run = aps_job.next_run_time.timestamp()
            out[name] = dict(vars(job))
        return out

    def _interval(self, seconds: float) -> Any:
        from apscheduler.triggers.interval import IntervalTrigger

        return IntervalTrigger(seconds=seconds, timezone=self._tz)

    def _run_soon(self, job_id: str) -> None:
        if self._aps is not None and self._aps.running and not self.stopping:
            self._aps.modify_job(job_id, next_run_time=datetime.now(self._tz))

    def _on_missed(self, event: Any) -> None:
        """A fire came later than misfire_grace_time (a busy or sleeping daemon): catch up instead."""
        if event.job_id in MODES:
            log.info("consolidation %s missed its %s fire: catching up", event.job_id, event.scheduled_run_time)
            self.kick()

    # -- the jobs (one at a time, on the executor's thread) --------------------------------
    def _heartbeat(self) -> None:
        now, mono = self.clock(), self.monotonic()
        drift = (now - self._last_wall) - (mono - self._last_mono)
        if abs(drift) >= self.settings.wake_jump_seconds:
            log.info("wall clock moved %+.0fs (wake from sleep or clock change): checking for missed runs", drift)
            self._catch_up = True
            self._aps.wakeup()  # cron jobs now overdue by the real clock fire (coalesced) or misfire
        if self._catch_up:
            self._catch_up = False
            for mode in MODES:
                self._consolidate(mode, "catch-up", now)
        self._last_wall, self._last_mono = self.clock(), self.monotonic()  # a long round is no jump
        self.heartbeats += 1
        if self._on_heartbeat is not None:
            try:
                self._on_heartbeat()
            except Exception as exc:
                log.error("heartbeat upkeep failed", exc_info=exc)

    def _scheduled(self, mode: str) -> None:
        self._consolidate(mode, "schedule", self.clock())

    def _consolidate(self, mode: str, reason: str, now: float) -> None:
        """Run `mode` for the agents that missed one of its fires; none missed, nothing runs."""
        if self.stopping:
            return
        try:
            agents = stale_agents(self._last_ok(mode), self._triggers[mode], self._tz, now)
        except Exception as exc:  # a bug in one round must not kill the schedule
            log.error("consolidation %s: cannot tell which agents are due", mode, exc_info=exc)
            return
        if agents:
            self._run(mode, reason, agents)

    def _run(self, mode: str, reason: str, agents: list[str]) -> None:
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
        if self.stopping:
            return
        job = self.jobs["sync"]
        job.last_run, job.runs = self.clock(), job.runs + 1
        try:
            owed = self._run_sync() > 0
            job.last_error = None
        except Exception as exc:
            job.last_error = exc.message if isinstance(exc, MemorydError) else f"{type(exc).__name__}: {exc}"
            owed = isinstance(exc, MemorydError) and exc.transient  # else asking sooner cannot help
            log.warning("outbox drain failed: %s", job.last_error)
        delay = sync_delay(self.settings, owed)
        job.next_run = time.time() + delay
        if not self.stopping:
            self._aps.modify_job("sync", next_run_time=datetime.fromtimestamp(job.next_run, self._tz))
