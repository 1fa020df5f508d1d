"""The daemon process: wires config → scheduler, watcher and socket server; `run_daemon` is the entry.

Test hook (explicit, documented): when MEMORYD_CLOCK_FILE names a file holding a unix time,
the scheduler's wall clock reads it on every call instead of time.time(), so tests drive
"now" (catch-up after downtime, wake detection) by rewriting that file, not by sleeping.
APScheduler's own cron firing keeps the real clock (it reads datetime.now() itself).
"""
from __future__ import annotations

import logging
import os
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

from memoryd.tiers.base.atomic import atomic_write_json, read_json
from memoryd.tiers.base.config import Config, load_config, validate_agent_id
from memoryd.tiers.base.errors import ConfigError, MemorydError, UsageError

from memoryd.daemon.backfill import Backfill, RequestGate
from memoryd.daemon.engine import agent_ids, clock_of
from memoryd.daemon.lifecycle import InstanceLock, Signals, sd_notify, setup_logging, watchdog_interval
from memoryd.daemon.render_targets import RenderSettings, install as install_render
from memoryd.daemon.scheduler import Clock, Scheduler, ScheduleSettings
from memoryd.daemon.mcp_host import STATE_KEY, MCPHost
from memoryd.daemon.server import SocketServer
from memoryd.daemon.hooks_watch import HarnessWatcher
from memoryd.daemon.watcher import Watcher, WatchSettings

log = logging.getLogger("memoryd.daemon")
STOP_BUDGET = 0.8  # seconds: SIGTERM → exit within 1 s at any point (every write is atomic: a request cut
                   # short leaves the old state or the new one; the back-fill stops between two model calls)


class Daemon:
    """Everything the daemon runs, with the per-agent serialization of writes."""

    def __init__(self, config: Config, clock: Clock) -> None:
        from memoryd.daemon.api import MemoryApi, in_process
        from memoryd.daemon.transport import HandlerTransport

        install_render(config)  # [render] targets follow every hot change the daemon makes

        self.config, self.clock = config, clock
        self.api = in_process(config, shared=True)  # one long-lived local-index connection for every request
        self._retired: list[MemoryApi] = []  # APIs of configs replaced by a reload: closed at stop
        self.started_wall, self.started_mono = time.time(), time.monotonic()
        self.last_error: str | None = None
        self._locks: dict[str, threading.Lock] = {}
        self._locks_guard = threading.Lock()
        self._state_path = config.home / "daemon-state.json"
        self._state_guard = threading.Lock()
        self.state = read_json(self._state_path, lambda: {"last_ok": {}, "watch_mark": 0.0})
        self.scheduler = Scheduler(ScheduleSettings.from_config(config),
                                   self.run_mode, self.last_ok, self.run_sync, clock=clock,
                                   on_heartbeat=lambda: release_idle_model(self.config.retrieval.model_idle))
        self.watcher = Watcher(WatchSettings.from_config(config), self.openclaw_pass)
        self.harness_watcher = HarnessWatcher(config, self.harness_pass, self.harness_catch_up)  # hooks_watch.py
        self.gate = RequestGate()  # the back-fill embeds only while no request is being served
        self.backfill = Backfill(lambda: self.config, self.agents, self.gate)
        # the MCP sessions hosted here run their operations as socket requests: same checks, same locks
        self.mcp = MCPHost(lambda: self.config, lambda: MemoryApi(HandlerTransport(self.handle)), self._remember)
        self.server = SocketServer(config.socket_path, self.handle,
                                   upgrades={"mcp_attach": (self.mcp.check, self.mcp.take_over)})
        self.web: Any = None  # the web view (daemon/web/server.py) when [web] enabled = true

    # -- agents and their locks ----------------------------------------------------
    def agents(self) -> list[str]:
        return agent_ids(self.config)

    @contextmanager
    def agent_lock(self, agent_id: str) -> Iterator[None]:
        validate_agent_id(agent_id)
        with self._locks_guard:
            lock = self._locks.setdefault(agent_id, threading.Lock())
        with lock:
            yield

    def call(self, op: str, params: dict[str, Any]) -> Any:
        """Run one operation the socket serves; the ones naming an agent run one at a time per agent."""
        api = self.api
        agent = params.get("agent_id")
        if agent is None or op == "status":
            return api.serve(op, params)
        if not isinstance(agent, str):
            raise UsageError("agent_id must be a string")
        with self.agent_lock(agent):
            return api.serve(op, params)

    # -- socket requests -------------------------------------------------------------
    def handle(self, op: str, params: dict[str, Any]) -> Any:
        from memoryd.daemon.params import check_params

        check_params(params)  # a number where text belongs is the client's mistake (exit 2), not ours
        self.gate.enter()
        try:
            return self._serve(op, params)
        finally:
            self.gate.leave()

    def _serve(self, op: str, params: dict[str, Any]) -> Any:
        if op == "ping":
            return {"pong": True, "pid": os.getpid()}
        if op == "daemon":
            return self.info()
        if op == "status":
            result = self.call("status", params)
            if isinstance(result, dict):
                result = {**result, "daemon": self.info()}
            return result
        if op == "sync":
            result = self.call("sync", {**params, "force": bool(params.get("force", True))})
            self.scheduler.kick_sync()  # anything still queued gets its own retry schedule
            return result
        log.debug("request %s", op)  # op name only: params may hold memories
        return self.call(op, params)

    def info(self) -> dict[str, Any]:
        return {"pid": os.getpid(), "started_at": self.started_wall,
                "uptime": round(time.monotonic() - self.started_mono, 3),
                "socket": str(self.config.socket_path), "now": self.clock(),
                "jobs": self.scheduler.info(), "heartbeats": self.scheduler.heartbeats, "watcher": self.watcher.info(),
                "harness_watcher": self.harness_watcher.info(),
                "agents": self.agents(), "mcp": self.mcp.info(), "backfill": self.backfill.info(),
                "last_error": self.last_error}

    # -- scheduled work ----------------------------------------------------------------
    def run_mode(self, mode: str, reason: str, agents: list[str] | None) -> bool:
        ok = True
        for agent in agents if agents is not None else self.agents():
            if self.scheduler.stopping:
                return ok
            try:
                self.call("consolidate", {"agent_id": agent, "mode": mode})
                self._record_ok(agent, mode)
                self._knowledge(agent, mode)
                self.backfill.kick(agent)  # hybrid mode: what left warm gets its vector in the background
            except Exception as exc:
                ok = False
                self._failed(f"consolidate {mode} for {agent}", exc)
        return ok

    def _knowledge(self, agent: str, mode: str) -> None:
        """Entities read after every consolidation; after the daily one, yesterday's digest and reflect."""
        if self.scheduler.stopping:
            return
        try:  # derived data under the agent's file lock only: a stop never waits for it (each step is atomic)
            self.api.call("knowledge_job", {"agent_id": agent, "mode": mode})
        except Exception as exc:  # the consolidation itself succeeded: reported, not counted as its failure
            self._failed(f"knowledge job ({mode}) for {agent}", exc)

    def last_ok(self, mode: str) -> dict[str, float | None]:
        """Per agent: the newer of tiers' metrics.json `runs.<mode>.last_ok_end` and our own record."""
        out: dict[str, float | None] = {}
        for agent in self.agents():
            metrics = _read_plain(self.config.agent_dir(agent) / "metrics.json")
            theirs = ((metrics.get("runs") or {}).get(mode) or {}).get("last_ok_end")
            ours = self.state.get("last_ok", {}).get(agent, {}).get(mode)
            values = [float(v) for v in (theirs, ours) if isinstance(v, (int, float))]
            out[agent] = max(values) if values else None
        return out

    def run_sync(self) -> int:
        pending, first_error = 0, None
        for agent in self.agents():
            try:
                result = self.call("sync", {"agent_id": agent, "drain": True})
                pending += _pending_count(result)
            except Exception as exc:
                first_error = first_error or exc
                self._failed(f"outbox drain for {agent}", exc, quiet=True)
        if first_error is not None:
            raise first_error
        return pending

    def _record_ok(self, agent: str, mode: str) -> None:
        with self._state_guard:
            self.state.setdefault("last_ok", {}).setdefault(agent, {})[mode] = self.clock()
            atomic_write_json(self._state_path, self.state)

    def _remember(self, key: str, value: Any) -> None:
        with self._state_guard:
            self.state[key] = value
            atomic_write_json(self._state_path, self.state)

    def _failed(self, what: str, exc: BaseException, quiet: bool = False) -> None:
        msg = exc.message if isinstance(exc, MemorydError) else f"{type(exc).__name__}: {exc}"
        self.last_error = f"{what}: {msg}"
        if not quiet:
            log.error("%s failed: %s", what, msg, exc_info=None if isinstance(exc, MemorydError) else exc)

    # -- watched files -------------------------------------------------------------------
    def openclaw_pass(self, openclaw_agent: str, kind: str) -> None:
        """One pass over an OpenClaw agent: quick (segments closed by a reset), notes, or quiet (all)."""
        from memoryd.daemon.watcher import NOTES, QUIET

        layout = self.watcher.layout or self.watcher.current_layout()
        agent = layout.memoryd.get(openclaw_agent, openclaw_agent)  # the lock taken; the op reads the route
        parts = ["notes"] if kind == NOTES else ["store", "jsonl", "notes"] if kind == QUIET else ["store", "notes"]
        result = self.call("openclaw_sync", {"agent_id": agent, "openclaw_agent": openclaw_agent,
                                             "close_open": kind == QUIET, "parts": parts})
        reports = result.get("agents", []) if isinstance(result, dict) else []
        for report in reports:
            if report.get("segments") or report.get("notes"):
                log.info("OpenClaw %s pass for agent %s: %d conversation(s), %d note(s)", kind,
                         report.get("agent_id", agent),
                         report.get("segments", 0), report.get("notes", 0))
            if report.get("errors"):
                self.last_error = f"openclaw {openclaw_agent}: {report['errors'][0]}"
        if any(_pending_count(r) for r in reports):
            self.scheduler.kick_sync()

    def harness_pass(self, harness: str, path: Path) -> None:
        """A Claude Code or Codex file changed: take what is new in it (daemon/hooks_ops.py)."""
        report = self.call("harness_take", {"harness": harness, "path": str(path)})
        if report.get("turns") or report.get("notes"):
            log.info("%s: %d turn(s), %d note(s) from %s into agent %s", harness, report["turns"], report["notes"],
                     path.name, report["agent_id"])
            self.scheduler.kick_sync()

    def harness_catch_up(self, harness: str) -> None:
        report = self.call("harness_sync", {"harness": harness})
        if report.get("turns") or report.get("notes"):
            log.info("%s catch-up: %d turn(s), %d note(s)", harness, report["turns"], report["notes"])
            self.scheduler.kick_sync()

    def catch_up_files(self) -> None:
        """Stores, transcripts and notes changed since the previous start (ingestion is idempotent)."""
        mark = float(self.state.get("watch_mark") or 0.0)
        started = time.time()
        try:
            passes, queued = self.watcher.scan_since(mark)
        except Exception as exc:
            self._failed("OpenClaw catch-up scan", exc)
            return
        failed = False
        for agent, kind in passes:
            self.watcher.call(agent, kind)
            failed = failed or self.watcher.last_error is not None
        if passes or queued:
            log.info("caught up %d OpenClaw pass(es), %d agent(s) waiting to go quiet", len(passes), queued)
        # Move the mark only past finished work: conversations still waiting to go quiet (or a failed
        # pass) are found again after another restart; ingestion is idempotent, so that costs nothing.
        if not queued and not failed:
            with self._state_guard:
                self.state["watch_mark"] = started
                atomic_write_json(self._state_path, self.state)

    # -- lifecycle -----------------------------------------------------------------------
    def start(self) -> None:
        try:  # a home older than the routing table: recorded, a split one repaired, before anything is read
            self.api.route_show()
        except Exception as exc:
            self._failed("routing table upgrade", exc)
        self.backfill.start()  # first: every put from now on leaves its embedding to it
        self.watcher.start()
        self.harness_watcher.start()
        threading.Thread(target=self.catch_up_files, name="memoryd-catchup", daemon=True).start()
        self.scheduler.start()
        if self.config.web.enabled:
            from memoryd.daemon.web.server import serve_for_daemon

            self.web = serve_for_daemon(self.config, self.api)
        self.server.start()  # last: once the socket answers, everything behind it is running
        if self.mcp.should_preload(self.state.get(STATE_KEY), time.time()):
            self.mcp.preload_in_background()  # MCP clients were served lately: have the SDK ready

    def reload(self) -> None:
        try:
            config = load_config()
            schedule = ScheduleSettings.from_config(config)
            watch = WatchSettings.from_config(config)
            RenderSettings.from_config(config)  # checked here: install_render below must not refuse it
            level = _log_level(config.daemon.log_level)
        except MemorydError as exc:
            log.error("reload refused, keeping the old config: %s", exc.message)
            return
        from memoryd.daemon.api import in_process

        self.config = config
        install_render(config)
        self._retired.append(self.api)  # requests in progress may still use its connection
        self.api = in_process(config, shared=True)
        self.scheduler.reload(schedule)
        self.watcher.reload(watch)
        self.harness_watcher.config = config
        logging.getLogger().setLevel(level)
        log.info("configuration reloaded")

    def stop(self) -> None:
        deadline = time.monotonic() + STOP_BUDGET
        self.backfill.stop(timeout=0.3)  # ends between two model calls
        self.server.stop(timeout=0.2)  # operations in progress get a moment to finish (twice: accept, busy)
        if self.web is not None:
            from memoryd.daemon.web.server import stop_for_daemon

            stop_for_daemon(self.config, self.web)
        self.mcp.stop()  # their bridges go on serving in-process
        self.watcher.stop(timeout=0.1)
        self.harness_watcher.stop(timeout=0.1)
        self.scheduler.stop(timeout=max(0.1, deadline - time.monotonic() - 0.5))
        for lock in list(self._locks.values()):  # let a write in progress land (atomic anyway)
            if lock.acquire(timeout=max(0.0, deadline - time.monotonic())):
                lock.release()
        for api in (*self._retired, self.api):
            api.close()


def release_idle_model(idle_seconds: float) -> None:
    """Hybrid mode: the embedding model leaves memory when unused this long (never imported otherwise),
    and the heap it used goes back to the OS."""
    import sys

    embed = sys.modules.get("memoryd.tiers.retrieval.embed")
    if embed is not None and embed.release_if_idle(idle_seconds):
        from memoryd.daemon.heap import trim_heap

        trim_heap()
        log.info("embedding model released after %.0f idle seconds", idle_seconds)


def _read_plain(path: Path) -> dict[str, Any]:
    """Read someone else's JSON without quarantining it (that is the owner's call)."""
    import json

    try:
        obj = json.loads(path.read_bytes())
    except (OSError, ValueError):
        return {}
    return obj if isinstance(obj, dict) else {}


def _pending_count(result: Any) -> int:
    """Pushes still owed after a sync call: an explicit count, or a push queued in the outbox."""
    if isinstance(result, dict):
        if result.get("status") == "queued" or result.get("queued") is True:
            return 1
        if isinstance(result.get("sync"), dict):  # openclaw_sync and flush nest their push report
            return _pending_count(result["sync"])
        for key in ("pending", "outbox", "outbox_pending"):
            value = result.get(key)
            if isinstance(value, int) and not isinstance(value, bool):
                return value
    return 0


def _log_level(level: Any) -> str:
    if not isinstance(level, str) or level.upper() not in ("DEBUG", "INFO", "WARNING", "ERROR"):
        raise ConfigError("config.toml [daemon] log_level must be DEBUG, INFO, WARNING or ERROR")
    return level.upper()


def run_daemon(config: Config, clock: Clock | None = None, log_level: str | None = None) -> int:
    """Run in the foreground until SIGTERM/SIGINT; returns the exit code (0 on a clean stop)."""
    from memoryd.daemon.heap import tune

    tuned = tune()  # before any thread starts and before numpy loads
    level = _log_level(log_level or config.daemon.log_level)
    setup_logging(level)
    log.debug("heap settings: %s", ", ".join(tuned) or "none (set by the environment)")
    instance = InstanceLock(config.home)
    instance.acquire()  # raises AlreadyRunning("already running (pid N)")
    signals = Signals()
    signals.install()
    try:
        daemon = Daemon(config, clock or clock_of(config))
        daemon.start()
        log.info("memoryd daemon started (pid %d, socket %s)", os.getpid(), config.socket_path)
        sd_notify(f"READY=1\nMAINPID={os.getpid()}\nSTATUS=serving {len(daemon.agents())} agent(s)")
        _main_loop(daemon, signals)
        sd_notify("STOPPING=1")
        log.info("stopping")
        daemon.stop()
        log.info("stopped")
        return 0
    finally:
        signals.restore()
        instance.release()


def _main_loop(daemon: Daemon, signals: Signals) -> None:
    interval = watchdog_interval()
    while not signals.stopping:
        signals.sleep(interval)
        if interval is not None:
            sd_notify("WATCHDOG=1")
        if signals.reload and not signals.stopping:
            signals.reload = False
            daemon.reload()
