"""Watch daily notes and session transcripts (watchfiles); fire a callback when a transcript goes quiet."""
from __future__ import annotations

import heapq
import logging
import re
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping

from memoryd.tiers.config import AGENT_ID_RE, Config
from memoryd.tiers.config_schema import check_section

log = logging.getLogger("memoryd.daemon")

DAILY_RE = re.compile(r"^(\d{4}-\d{2}-\d{2})\.md$")


@dataclass(frozen=True)
class WatchSettings:
    """The `[watch]` section of config.toml (MEMORYD_SESSIONS_DIR overrides sessions_dir)."""

    notes_dir: Path
    notes_agent: str
    sessions_dir: Path
    quiet_seconds: float = 120.0
    recheck_seconds: float = 60.0  # how often to look for a watched dir that does not exist yet
    enabled: bool = True

    @classmethod
    def from_config(cls, config: Config, env: Mapping[str, str] | None = None) -> "WatchSettings":
        """From the checked [watch] section; `env` (tests) may override MEMORYD_SESSIONS_DIR once more."""
        sec = check_section("watch", config.section("watch"))  # a Config built in code is checked too
        sessions = (env or {}).get("MEMORYD_SESSIONS_DIR") or sec["sessions_dir"]
        return cls(notes_dir=config.workspace / "memory", notes_agent=sec["notes_agent"],
                   sessions_dir=Path(sessions).expanduser(), enabled=sec["enabled"],
                   quiet_seconds=sec["quiet_seconds"], recheck_seconds=sec["recheck_seconds"])


def classify(path: Path, settings: WatchSettings) -> tuple[str, str, str] | None:
    """("daily", agent, date) | ("transcript", agent, path) | None for anything else."""
    if path.parent == settings.notes_dir:
        m = DAILY_RE.match(path.name)
        return ("daily", settings.notes_agent, m.group(1)) if m else None
    try:
        rel = path.relative_to(settings.sessions_dir)
    except ValueError:
        return None
    parts = rel.parts  # <agent>/sessions/<file>.jsonl
    if len(parts) == 3 and parts[1] == "sessions" and parts[2].endswith(".jsonl") and AGENT_ID_RE.match(parts[0]):
        return ("transcript", parts[0], str(path))
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
    """A thread running watchfiles.watch over the notes dir and the sessions root."""

    def __init__(self, settings: WatchSettings, on_daily: Callable[[str, str], None],
                 on_transcript: Callable[[str, str], None]) -> None:
        self.settings = settings
        self._on_daily = on_daily
        self.quiet = QuietTimer(settings.quiet_seconds, self._fire_transcript)
        self._on_transcript = on_transcript
        self._stop = threading.Event()
        self._restart = threading.Event()
        self._thread: threading.Thread | None = None
        self.watching: list[str] = []
        self.missing: list[str] = []
        self.events = 0
        self.last_error: str | None = None

    def roots(self) -> list[Path]:
        return [self.settings.notes_dir, self.settings.sessions_dir]

    def start(self) -> None:
        self.quiet.start()
        self._thread = threading.Thread(target=self._loop, name="memoryd-watch", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 2.0) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)
        self.quiet.stop(timeout)

    def reload(self, settings: WatchSettings) -> None:
        self.settings = settings
        self.quiet.quiet = settings.quiet_seconds
        self._restart.set()

    def info(self) -> dict[str, Any]:
        alive = bool(self._thread and self._thread.is_alive())
        return {"state": "running" if alive else "stopped", "watching": list(self.watching),
                "missing": list(self.missing), "events": self.events,
                "transcripts_waiting": self.quiet.pending(),
                "quiet_seconds": self.settings.quiet_seconds, "last_error": self.last_error}

    def _loop(self) -> None:
        from watchfiles import Change, watch  # heavy: daemon only

        while not self._stop.is_set():
            roots = self.roots()
            self.watching = [str(p) for p in roots if p.is_dir()]
            self.missing = [str(p) for p in roots if not p.is_dir()]
            self._restart.clear()
            if not self.watching:  # nothing to watch yet: look again later
                self._stop.wait(self.settings.recheck_seconds)
                continue
            # the timeout only serves to re-check missing roots; with all present it is long
            timeout_ms = int((self.settings.recheck_seconds if self.missing else 3600) * 1000)
            try:
                for changes in watch(*self.watching, stop_event=self._stop, yield_on_timeout=True,
                                     rust_timeout=timeout_ms, debounce=1000, step=200,
                                     raise_interrupt=False, watch_filter=None):
                    self._handle({(c, p) for c, p in changes if c != Change.deleted})
                    if self._restart.is_set() or (self.missing and any(Path(m).is_dir() for m in self.missing)):
                        break
            except Exception as exc:  # e.g. a watched dir removed: rebuild the watch
                self.last_error = f"{type(exc).__name__}: {exc}"
                log.warning("file watcher restarting: %s", self.last_error)
                self._stop.wait(1.0)

    def _handle(self, changes: Iterable[tuple[Any, str]]) -> None:
        for _, raw in sorted(changes, key=lambda c: c[1]):
            kind = classify(Path(raw), self.settings)
            if kind is None:
                continue
            self.events += 1
            if kind[0] == "daily":
                self.call(self._on_daily, kind[1], kind[2])
            else:
                self.quiet.touch(kind[2])

    def _fire_transcript(self, path: str) -> None:
        kind = classify(Path(path), self.settings)
        if kind is not None and Path(path).exists():
            self.call(self._on_transcript, kind[1], path)

    def call(self, fn: Callable[[str, str], None], agent: str, arg: str) -> None:
        try:
            fn(agent, arg)
            self.last_error = None
        except Exception as exc:
            self.last_error = getattr(exc, "message", None) or f"{type(exc).__name__}: {exc}"
            log.error("ingest failed for agent %s: %s", agent, self.last_error)

    def scan_since(self, since: float) -> tuple[list[tuple[str, str]], int]:
        """Files changed while the daemon was down: daily notes to ingest now, transcripts to time."""
        notes: list[tuple[str, str]] = []
        queued = 0
        s = self.settings
        if s.notes_dir.is_dir():
            for p in sorted(s.notes_dir.iterdir()):
                m = DAILY_RE.match(p.name)
                if m and _mtime(p) > since:
                    notes.append((s.notes_agent, m.group(1)))
        if s.sessions_dir.is_dir():
            for p in sorted(s.sessions_dir.glob("*/sessions/*.jsonl")):
                mt = _mtime(p)
                if mt > since and classify(p, s):
                    self.quiet.touch(str(p), delay=mt + s.quiet_seconds - time.time())
                    queued += 1
        return notes, queued


def _mtime(p: Path) -> float:
    try:
        return p.stat().st_mtime
    except OSError:
        return 0.0
