"""Watch Claude Code's and Codex's session files (`~/.claude/projects`, `~/.codex/sessions`) for the daemon.

Each change of a transcript, rollout or Claude Code memory file is taken at once through
`on_file(harness, path)` (the `harness_take` operation: a byte cursor per file, so a pass reads only
what was appended). At start, and when a missing dir appears, everything is taken once (idempotent).
inotify where it works (no wake-ups while idle, changes handed over 50 ms after the last), else
watchfiles. Apart from the OpenClaw watcher (daemon/watcher.py) on purpose: different roots, no
quiet timer (both CLIs write whole messages, so there is no open segment to wait for).
"""
from __future__ import annotations

import logging
import threading
from pathlib import Path
from typing import Any, Callable, Iterator

from memoryd.tiers.base.config import Config

from memoryd.daemon import hooks_route as route
from memoryd.daemon import inotify
from memoryd.daemon.inotify import DELETED, Waker

log = logging.getLogger("memoryd.daemon")
DEBOUNCE_MS = 300


class HarnessWatcher:
    """A thread: changed session files → on_file(harness, path); all files → on_all(harness) at start."""

    def __init__(self, config: Config, on_file: Callable[[str, Path], None], on_all: Callable[[str], None]) -> None:
        self.config = config
        self._on_file, self._on_all = on_file, on_all
        self._stop = threading.Event()
        self._waker = Waker()
        self._thread: threading.Thread | None = None
        self.watching: list[str] = []
        self.events = 0
        self.last_error: str | None = None

    @property
    def recheck(self) -> float:
        """How soon to look again for a missing dir: `[watch] recheck_seconds`, as the OpenClaw watcher."""
        return float(self.config.watch.recheck_seconds)

    @property
    def enabled(self) -> bool:
        return bool(self.config.section("harness")["watch"])

    def start(self) -> None:
        if not self.enabled:
            return
        self._thread = threading.Thread(target=self._loop, name="memoryd-harness-watch", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 2.0) -> None:
        self._stop.set()
        self._waker.wake()
        if self._thread is not None:
            self._thread.join(timeout)

    def info(self) -> dict[str, Any]:
        alive = bool(self._thread and self._thread.is_alive())
        return {"state": "running" if alive else "stopped", "watching": list(self.watching), "events": self.events,
                "last_error": self.last_error}

    def _roots(self) -> list[Path]:
        found = route.dirs(self.config)
        return [found.claude_projects, found.codex_sessions]

    def _loop(self) -> None:
        seen: set[str] = set()
        while not self._stop.is_set():
            present = [p for p in self._roots() if p.is_dir()]
            for root in present:
                if str(root) not in seen:  # first sight: everything written before (or while we were down)
                    self._safely(lambda: self._on_all(self._harness_of(root)), f"catch-up of {root}")
                    seen.add(str(root))
            self.watching = [str(p) for p in present]
            if not present:
                self._stop.wait(self.recheck)
                continue
            missing = len(present) < 2
            try:
                for changes in self._changes(present, int((self.recheck if missing else 3600) * 1000)):
                    self._handle(changes)
                    if missing and len([p for p in self._roots() if p.is_dir()]) > len(present):
                        break  # the other harness appeared: watch it too
            except Exception as exc:  # a watched dir removed: rebuild the watch
                self.last_error = f"{type(exc).__name__}: {exc}"
                log.warning("harness watcher restarting: %s", self.last_error)
                self._stop.wait(1.0)

    def _harness_of(self, root: Path) -> str:
        return "codex" if root == route.dirs(self.config).codex_sessions else "claude"

    def _changes(self, roots: list[Path], timeout_ms: int) -> Iterator[set[tuple[int, str]]]:
        if inotify.available():
            return inotify.watch([str(r) for r in roots], self._stop, timeout_ms, DEBOUNCE_MS, self._waker)
        from watchfiles import watch  # heavy: only where inotify is not there

        return watch(*roots, stop_event=self._stop, yield_on_timeout=True, rust_timeout=timeout_ms,
                     debounce=DEBOUNCE_MS, step=100, raise_interrupt=False, watch_filter=None)

    def _handle(self, changes: set[tuple[int, str]]) -> None:
        found = route.dirs(self.config)
        for path in sorted({Path(p) for c, p in changes if c != DELETED}):
            kind = route.classify(path, found)
            if kind is None or not path.is_file():
                continue
            self.events += 1
            self._safely(lambda: self._on_file(kind[0], path), f"{kind[0]} {path.name}")

    def _safely(self, run: Callable[[], None], what: str) -> None:
        try:
            run()
            self.last_error = None
        except Exception as exc:  # one unreadable file must not stop the watch
            self.last_error = getattr(exc, "message", None) or f"{type(exc).__name__}: {exc}"
            log.error("harness pass failed for %s: %s", what, self.last_error)
