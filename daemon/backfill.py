"""The daemon's back-fill: vectors for the local index's memories that have none, in a thread of its own.

Hybrid mode only. Every put the daemon makes (a first OpenClaw sync, an import, a year of notes, one turn)
leaves its rows here instead of embedding them on the request's path (tiers/cold/vectors.run_in_background).
The thread embeds SLICE memories at a time, newest first (what just arrived is what will be asked for; a
new arrival starts the pass again from the top), one model call each, through a connection of its own, never
under an agent's lock: before each model call it waits while a request is being served (and IDLE_GAP after
the last one), so a retrieve waits for at most one memory's embedding (~30-50 ms). `stop()` is seen
between two model calls. Progress (memories with a vector / memories, per agent) is in `info()`, shown
by `status` under the daemon.
"""
from __future__ import annotations

import logging
import threading
import time
from typing import Any, Callable

from memoryd.tiers.base.config import Config
from memoryd.tiers.base.errors import MemorydError

log = logging.getLogger("memoryd.daemon")

SLICE = 8            # memories per slice: one short write transaction
IDLE_GAP = 0.05      # seconds without a request before the next model call (a client's next request)
MAX_WAIT = 2.0       # ... unless it waited this long: a client polling without pause must not starve it
RECHECK = 600.0      # seconds between looks for work nobody announced (another process's puts)


class RequestGate:
    """Counts the requests being served; the back-fill waits for none (and a short gap after the last)."""

    def __init__(self, gap: float = IDLE_GAP, max_wait: float = MAX_WAIT) -> None:
        self.gap, self.max_wait = gap, max_wait
        self._cond = threading.Condition()
        self._busy = 0
        self._last = 0.0

    def enter(self) -> None:
        with self._cond:
            self._busy += 1

    def leave(self) -> None:
        with self._cond:
            self._busy -= 1
            self._last = time.monotonic()
            self._cond.notify_all()

    def wait_idle(self, stopped: threading.Event) -> bool:
        """Block while requests run (or ran within `gap`, for up to `max_wait` between two requests);
        False as soon as `stopped` is set."""
        since = time.monotonic()
        with self._cond:
            while not stopped.is_set():
                if self._busy:
                    self._cond.wait(0.05)
                    continue
                now = time.monotonic()
                left = self._last + self.gap - now
                if left <= 0 or now - since >= self.max_wait:
                    return True
                self._cond.wait(min(left, 0.05))
        return False

    def wake(self) -> None:
        with self._cond:
            self._cond.notify_all()


class Backfill:
    """One thread embedding what lacks a vector, agent by agent, a slice at a time."""

    def __init__(self, config: Callable[[], Config], agents: Callable[[], list[str]], gate: RequestGate,
                 slice_rows: int = SLICE) -> None:
        self._config, self._agents, self.gate, self.slice_rows = config, agents, gate, slice_rows
        self._stop = threading.Event()
        self._kick = threading.Event()
        self._thread: threading.Thread | None = None
        self._index: Any = None
        self.running = False  # a pass is embedding now
        self.progress: dict[str, dict[str, int]] = {}
        self.last_error: str | None = None

    def enabled(self) -> bool:
        from memoryd.tiers.retrieval import embed

        return embed.hybrid_ready(self._config())[0]

    def start(self) -> None:
        from memoryd.tiers.cold import vectors

        if not self.enabled():
            return
        vectors.run_in_background(self.kick)
        self._kick.set()  # a first look at start: rows left by CLI puts while the daemon was down
        self._thread = threading.Thread(target=self._loop, name="memoryd-backfill", daemon=True)
        self._thread.start()

    def kick(self, agent_id: str | None = None) -> None:
        """Something arrived (or a consolidation ran): look for work now."""
        self._kick.set()

    def stop(self, timeout: float = 0.5) -> None:
        from memoryd.tiers.cold import vectors

        self._stop.set()
        self._kick.set()
        self.gate.wake()
        vectors.run_in_background(None)
        if self._thread is not None:
            self._thread.join(timeout)
        if self._thread is None or not self._thread.is_alive():
            self._close()

    def info(self) -> dict[str, Any]:
        alive = bool(self._thread and self._thread.is_alive())
        agents = {a: dict(p) for a, p in sorted(dict(self.progress).items())}
        # between two passes (a kick ended one, the next begins) work left is still work being done
        left = any(p["with_vector"] < p["memories"] for p in agents.values())
        busy = self.running or (alive and left and self.last_error is None and not self._stop.is_set())
        state = "off" if self._thread is None else "running" if busy else "idle" if alive else "stopped"
        return {"state": state, "agents": agents, "with_vector": sum(p["with_vector"] for p in agents.values()),
                "memories": sum(p["memories"] for p in agents.values()), "last_error": self.last_error}

    # -- the thread ------------------------------------------------------------------------------
    def _loop(self) -> None:
        while not self._stop.is_set():
            self._kick.wait(RECHECK)
            if self._stop.is_set():
                break
            self._kick.clear()
            try:
                self._pass()
                self.last_error = None
            except MemorydError as exc:
                self.last_error = exc.message
                log.warning("back-fill paused: %s", exc.message)
                self._stop.wait(5.0)
            except Exception as exc:  # a bug must not end the thread for the daemon's lifetime
                self.last_error = f"{type(exc).__name__}: {exc}"
                log.error("back-fill failed", exc_info=exc)
                self._stop.wait(5.0)
            finally:
                self.running = False
        self._close()

    def _pass(self) -> None:
        from memoryd.tiers.cold.index_file import index_path

        agents = self._agents()
        if not agents or not self.enabled() or not index_path(self._config()).exists():
            return  # nothing to embed (and no database file created for it)
        store = self._open().vectors
        for agent in agents:
            if self._stop.is_set():
                return
            self._agent(store, agent)

    def _agent(self, store: Any, agent: str) -> None:
        have, total = store.counts(agent)
        self.progress[agent] = {"with_vector": have, "memories": total}
        if have >= total:
            return
        self.running, before, added, started = True, 2 ** 63 - 1, 0, time.monotonic()
        while not self._stop.is_set() and not self._kick.is_set():  # a kick: new rows go first (a new pass)
            got, before, seen = store.fill_slice(agent, before, self.slice_rows, self._pause)
            added += got
            self.progress[agent]["with_vector"] = min(total, self.progress[agent]["with_vector"] + got)
            if seen < self.slice_rows:
                break
        have, total = store.counts(agent)
        self.progress[agent] = {"with_vector": have, "memories": total}
        if added:
            log.info("agent %s: %d memories embedded in %.0f s (%d of %d have a vector)", agent, added,
                     time.monotonic() - started, have, total)

    def _pause(self) -> bool:
        """Before each model call: wait for a moment without requests; False on stop or on new arrivals."""
        return self.gate.wait_idle(self._stop) and not self._kick.is_set()

    def _open(self) -> Any:
        """A connection of the thread's own: its short writes never hold the requests' connection."""
        from memoryd.tiers.cold.index import LocalIndex
        from memoryd.tiers.cold.index_file import index_path

        config = self._config()
        if self._index is None or self._index.path != index_path(config):
            self._close()
            self._index = LocalIndex(index_path(config), remote=not config.db_url.startswith("file:"))
        return self._index

    def _close(self) -> None:
        index, self._index = self._index, None
        if index is not None:
            index.close()
