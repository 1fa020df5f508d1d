"""Watch OpenClaw (session stores, JSONL transcripts, workspace notes): inotify or watchfiles; passes per agent.

A change of an agent's session store (its `-wal` file) runs a quick pass at once — segments a
`reset` closed are distilled right away — and restarts the agent's quiet timer; a changed JSONL
transcript only restarts the timer; a changed note is ingested at once. When an agent has been
quiet for `quiet_seconds`, a full pass closes what is still open (conversation end).
"""
from __future__ import annotations

import heapq
import logging
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

from memoryd.tiers.base.config import AGENT_ID_RE, Config

from memoryd.daemon import inotify
from memoryd.daemon.inotify import DELETED, Waker

log = logging.getLogger("memoryd.daemon")

STORE_FILES = ("openclaw-agent.sqlite", "openclaw-agent.sqlite-wal")
QUICK, QUIET, NOTES = "quick", "quiet", "notes"  # pass kinds: resets only / close everything / notes only


@dataclass(frozen=True)
class WatchSettings:
    """The `[watch]` section of config.toml plus where OpenClaw keeps things (tiers.openclaw_install)."""

    notes_dir: Path
    notes_agent: str | None
    sessions_dir: Path
    quiet_seconds: float = 120.0
    recheck_seconds: float = 60.0  # how often to look for a watched dir that does not exist yet
    enabled: bool = True
    backend: str = "auto"  # auto | inotify | watchfiles
    config: Config | None = field(default=None, compare=False, repr=False)

    @classmethod
    def from_config(cls, config: Config) -> "WatchSettings":
        from memoryd.tiers.ingest.openclaw.install import Install

        watch = config.watch  # checked at load
        install = Install(config)
        return cls(notes_dir=install.workspace(install.default_agent()) / "memory", notes_agent=watch.notes_agent,
                   sessions_dir=install.sessions_root, quiet_seconds=watch.quiet_seconds,
                   recheck_seconds=watch.recheck_seconds, enabled=watch.enabled, backend=watch.backend, config=config)

    def install(self) -> Any:
        from memoryd.tiers.ingest.openclaw.install import Install

        assert self.config is not None
        return Install(self.config)


@dataclass(frozen=True)
class Layout:
    """What to watch now and which OpenClaw agent a path belongs to (agents can appear at any time)."""

    state_agents: Path
    sessions_root: Path
    notes: dict[Path, str]       # <workspace>/memory → OpenClaw agent id
    memoryd: dict[str, str]      # OpenClaw agent id → memoryd agent id

    @classmethod
    def of(cls, settings: WatchSettings) -> "Layout":
        install = settings.install()
        agents = install.agents()
        return cls(install.state_dir / "agents", install.sessions_root,
                   {a.workspace / "memory": a.openclaw_id for a in agents}, {a.openclaw_id: a.memoryd_id for a in agents})

    def roots(self) -> list[Path]:
        roots = [self.state_agents] + ([self.sessions_root] if self.sessions_root != self.state_agents else [])
        return roots + sorted(set(self.notes) - set(roots))


def classify(path: Path, layout: Layout) -> tuple[str, str] | None:
    """("store" | "transcript" | "note", OpenClaw agent id), or None for anything else."""
    from memoryd.tiers.ingest.dailynotes import DATE_RE
    from memoryd.tiers.ingest.openclaw.jsonl import classify_name
    from memoryd.tiers.ingest.session_notes import session_note_date

    if path.parent in layout.notes:
        if DATE_RE.match(path.stem) or session_note_date(path.name):
            return ("note", layout.notes[path.parent])
        return None
    for root, kind in ((layout.state_agents, "store"), (layout.sessions_root, "transcript")):
        try:
            parts = path.relative_to(root).parts
        except ValueError:
            continue
        if len(parts) < 3 or not AGENT_ID_RE.fullmatch(parts[0]) or ".." in parts:
            continue
        if kind == "store" and parts[1:] in (("agent", STORE_FILES[0]), ("agent", STORE_FILES[1])):
            return ("store", parts[0])
        if parts[1] == "sessions" and len(parts) <= 4 and classify_name(path) is not None:
            return ("transcript", parts[0])
    return None


class QuietTimer:
    """Fires `callback(key)` once `key` has seen no touch for `quiet` seconds (heap + condition)."""

    def __init__(self, quiet: float, callback: Callable[[str], None],
                 monotonic: Callable[[], float] = time.monotonic) -> None:
        self.quiet = quiet
        self._callback, self._mono = callback, monotonic
        self._heap: list[tuple[float, str]] = []
        self._deadline: dict[str, float] = {}  # the live deadline per key; older heap items are stale
        self._cond = threading.Condition()
        self._stopped = False
        self._thread = threading.Thread(target=self._loop, name="memoryd-quiet", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def touch(self, key: str, delay: float | None = None) -> None:
        due = self._mono() + (self.quiet if delay is None else max(0.0, delay))
        with self._cond:
            self._deadline[key] = due
            heapq.heappush(self._heap, (due, key))
            self._cond.notify()

    def pending(self) -> int:
        with self._cond:
            return len(self._deadline)

    def stop(self, timeout: float = 2.0) -> None:
        with self._cond:
            self._stopped = True
            self._cond.notify()
        if self._thread.is_alive():
            self._thread.join(timeout)

    def _loop(self) -> None:
        while True:
            with self._cond:
                key = None
                while key is None:
                    if self._stopped:
                        return
                    if not self._heap:
                        self._cond.wait()
                        continue
                    due, cand = self._heap[0]
                    wait = due - self._mono()
                    if wait > 0:
                        self._cond.wait(wait)
                        continue
                    heapq.heappop(self._heap)
                    if self._deadline.get(cand) == due:  # not touched again since
                        del self._deadline[cand]
                        key = cand
            try:
                self._callback(key)
            except Exception as exc:  # one bad transcript must not stop the others
                log.error("quiet-transcript handler failed for %s", key, exc_info=exc)


class Watcher:
    """A thread watching OpenClaw's dirs (daemon/inotify.py, or watchfiles); calls `on_pass(openclaw_agent, kind)`."""

    def __init__(self, settings: WatchSettings, on_pass: Callable[[str, str], None]) -> None:
        self.settings = settings
        self._on_pass = on_pass
        self.quiet = QuietTimer(settings.quiet_seconds, self._fire_quiet)
        self._stop = threading.Event()
        self._restart = threading.Event()
        self._waker = Waker()  # ends an inotify wait at once on stop and reload
        self.backend = ""  # the event source in use: inotify or watchfiles
        self._thread: threading.Thread | None = None
        self.layout: Layout | None = None
        self.watching: list[str] = []
        self.missing: list[str] = []
        self.events = 0
        self.last_error: str | None = None
        self._store_seen: dict[str, tuple] = {}  # per agent: the store's signature after our last read

    def current_layout(self) -> Layout:
        try:
            self.layout = Layout.of(self.settings)
        except Exception as exc:  # an unreadable openclaw.json must not stop the watcher
            self.last_error = f"{type(exc).__name__}: {exc}"
            if self.layout is None:
                raise
        return self.layout

    def roots(self) -> list[Path]:
        return self.current_layout().roots()

    def start(self) -> None:
        self.quiet.start()
        self._thread = threading.Thread(target=self._loop, name="memoryd-watch", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 2.0) -> None:
        self._stop.set()
        self._waker.wake()
        if self._thread is not None:
            self._thread.join(timeout)
        self.quiet.stop(timeout)

    def reload(self, settings: WatchSettings) -> None:
        self.settings = settings
        self.quiet.quiet = settings.quiet_seconds
        self._restart.set()
        self._waker.wake()

    def info(self) -> dict[str, Any]:
        alive = bool(self._thread and self._thread.is_alive())
        return {"state": "running" if alive else "stopped", "backend": self.backend, "watching": list(self.watching),
                "missing": list(self.missing), "events": self.events,
                "transcripts_waiting": self.quiet.pending(), "agents_waiting": self.quiet.pending(),
                "quiet_seconds": self.settings.quiet_seconds, "last_error": self.last_error}

    def _loop(self) -> None:
        while not self._stop.is_set():
            try:
                roots = self.roots()
            except Exception:
                self._stop.wait(self.settings.recheck_seconds)
                continue
            self.watching = [str(p) for p in roots if p.is_dir()]
            self.missing = [str(p) for p in roots if not p.is_dir()]
            self._restart.clear()
            if not self.watching:  # nothing to watch yet: look again later
                self._stop.wait(self.settings.recheck_seconds)
                continue
            # the timeout re-checks missing roots and new agents; with all present it is long
            timeout_ms = int((self.settings.recheck_seconds if self.missing else 3600) * 1000)
            try:
                for changes in self._changes(timeout_ms):
                    self._handle({(c, p) for c, p in changes if c != DELETED})
                    if self._restart.is_set() or (self.missing and any(Path(m).is_dir() for m in self.missing)):
                        break
            except Exception as exc:  # e.g. a watched dir removed: rebuild the watch
                self.last_error = f"{type(exc).__name__}: {exc}"
                log.warning("file watcher restarting: %s", self.last_error)
                self._stop.wait(1.0)

    def _changes(self, timeout_ms: int) -> Iterator[set[tuple[int, str]]]:
        """Change sets from inotify (no polling) where it works, else from watchfiles (wakes every 200 ms)."""
        if self.settings.backend != "watchfiles" and (self.backend == "inotify" or inotify.available()):
            try:
                self.backend = "inotify"
                return inotify.watch(self.watching, self._stop, timeout_ms, 1000, self._waker)
            except OSError as exc:  # e.g. out of inotify watches (fs.inotify.max_user_watches)
                if self.settings.backend == "inotify":
                    raise
                log.warning("inotify unavailable (%s): watching with watchfiles", exc)
        elif self.settings.backend == "inotify":
            raise OSError("inotify is not available here; set [watch] backend to auto or watchfiles")
        from watchfiles import watch  # heavy: daemon only

        self.backend = "watchfiles"
        return watch(*self.watching, stop_event=self._stop, yield_on_timeout=True, rust_timeout=timeout_ms,
                     debounce=1000, step=200, raise_interrupt=False, watch_filter=None)

    def _handle(self, changes: Iterable[tuple[Any, str]]) -> None:
        layout = self.layout or self.current_layout()
        quick: set[str] = set()
        notes: set[str] = set()
        for _, raw in sorted(changes, key=lambda c: c[1]):
            kind = classify(Path(raw), layout)
            if kind is None:
                continue
            self.events += 1
            if kind[1] not in layout.memoryd:  # an agent that appeared: watch its workspace too
                self._restart.set()
            if kind[0] == "note":
                notes.add(kind[1])
                continue
            if kind[0] == "store":
                if self._store_seen.get(kind[1]) == self._store_signature(kind[1]):
                    continue  # our own read touched the -wal (opened, closed), nothing was written
                quick.add(kind[1])
            self.quiet.touch(kind[1])
        for agent in sorted(quick):
            self.call(agent, QUICK)
        for agent in sorted(notes - quick):
            self.call(agent, NOTES)

    def _fire_quiet(self, agent: str) -> None:
        self.call(agent, QUIET)

    def _store_signature(self, agent: str) -> tuple:
        """Size and mtime of the store and its -wal: what OpenClaw's writes change and our reads do not."""
        folder = (self.layout or self.current_layout()).state_agents / agent / "agent"
        sig: list[int] = []
        for name in STORE_FILES:
            try:
                st = (folder / name).stat()
                sig += [st.st_size, st.st_mtime_ns]
            except OSError:
                sig += [-1, -1]
        return tuple(sig)

    def call(self, agent: str, kind: str) -> None:
        try:
            before = self._store_signature(agent)
            self._on_pass(agent, kind)
            if kind != NOTES and self._store_signature(agent) == before:
                self._store_seen[agent] = before  # events up to this state are handled
            self.last_error = None
        except Exception as exc:
            self.last_error = getattr(exc, "message", None) or f"{type(exc).__name__}: {exc}"
            log.error("OpenClaw %s pass failed for agent %s: %s", kind, agent, self.last_error)

    def scan_since(self, since: float) -> tuple[list[tuple[str, str]], int]:
        """Changes while the daemon was down: (agent, pass) to run now, and how many agents wait for quiet."""
        from memoryd.tiers.ingest.openclaw.jsonl import transcript_files

        now_passes: list[tuple[str, str]] = []
        queued = 0
        install = self.settings.install()
        for agent in install.agents():
            notes_dir = agent.workspace / "memory"
            if notes_dir.is_dir() and any(_mtime(p) > since for p in notes_dir.glob("*.md")):
                now_passes.append((agent.openclaw_id, NOTES))
            files = [agent.store, agent.store.with_name(STORE_FILES[1])]
            files += [t.path for t in transcript_files(agent.sessions_dir)]
            newest = max((_mtime(p) for p in files), default=0.0)
            if newest > since:
                now_passes.append((agent.openclaw_id, QUICK))
                self.quiet.touch(agent.openclaw_id, delay=newest + self.settings.quiet_seconds - time.time())
                queued += 1
        return now_passes, queued


def _mtime(p: Path) -> float:
    try:
        return p.stat().st_mtime
    except OSError:
        return 0.0
