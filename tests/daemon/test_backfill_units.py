"""The back-fill thread's parts without a model: the request gate and the slices' loop (a fake store)."""
from __future__ import annotations

import threading
import time

from memoryd.daemon.backfill import Backfill, RequestGate
from waiting import eventually


class CountedEvent(threading.Event):
    """A stop event that counts how often the waiter looked at it: each look is one more round of waiting."""

    def __init__(self) -> None:
        super().__init__()
        self.looks = 0

    def is_set(self) -> bool:
        self.looks += 1
        return super().is_set()


def test_the_gate_waits_for_requests_and_a_gap_but_not_forever() -> None:
    gate, stopped = RequestGate(gap=0.1, max_wait=5.0), CountedEvent()
    gate.enter()
    done: list[float] = []
    th = threading.Thread(target=lambda: done.append(gate.wait_idle(stopped) and time.monotonic()))
    th.start()
    eventually(lambda: stopped.looks >= 4)  # it went round its wait three times more …
    assert not done  # … and still waits: a request is being served
    left_at = time.monotonic()
    gate.leave()
    th.join(2)
    assert done and done[0] - left_at >= 0.1  # the request's end plus the gap
    polling = RequestGate(gap=10.0, max_wait=0.2)
    polling.enter(), polling.leave()
    t0 = time.monotonic()
    assert polling.wait_idle(stopped) and time.monotonic() - t0 < 1.0  # a client polling cannot starve it
    stopped.set()
    gate.enter()
    assert gate.wait_idle(stopped) is False


class FakeStore:
    def __init__(self, n: int) -> None:
        self.missing = list(range(1, n + 1))
        self.have = 0

    def counts(self, agent: str) -> tuple[int, int]:
        return self.have, self.have + len(self.missing)

    def fill_slice(self, agent: str, before: int, limit: int, pause) -> tuple[int, int, int]:
        todo = sorted((r for r in self.missing if r < before), reverse=True)[:limit]
        got = 0
        for r in todo:
            if not pause():
                break
            self.missing.remove(r)
            self.have, got, before = self.have + 1, got + 1, r
        return got, before, len(todo)


def test_slices_run_to_the_end_show_progress_and_yield_to_new_arrivals(config) -> None:
    fill = Backfill(lambda: config, lambda: ["a"], RequestGate(gap=0.0), slice_rows=3)
    store = FakeStore(10)
    fill._agent(store, "a")
    assert store.missing == [] and fill.progress["a"] == {"with_vector": 10, "memories": 10}
    store = FakeStore(10)
    fill.kick("a")  # something arrived: the pass ends at once, the next one starts from the newest
    fill._agent(store, "a")
    assert store.have == 0 and fill.info()["agents"]["a"] == {"with_vector": 0, "memories": 10}
    assert fill.info()["state"] == "off"  # never started (no thread)


def test_between_two_passes_with_work_left_the_state_is_running(config) -> None:
    """A kick ends a pass for a new one to begin: the moment between them is not idle (status polled then)."""
    fill = Backfill(lambda: config, lambda: ["a"], RequestGate(gap=0.0), slice_rows=3)
    hold = threading.Event()
    fill._thread = threading.Thread(target=hold.wait, daemon=True)
    fill._thread.start()
    try:
        store = FakeStore(10)
        fill.kick("a")
        fill._agent(store, "a")  # broken off at once: nothing embedded, work left
        assert fill.running is True
        fill.running = False  # as the loop's `finally` leaves it, before the next pass
        assert fill.info()["state"] == "running"
        fill._agent(FakeStore(0), "a")  # nothing left: idle
        fill.running = False
        assert fill.info()["state"] == "idle"
        fill.last_error = "the model is missing"  # paused by an error: not running
        fill.progress["a"] = {"with_vector": 0, "memories": 10}
        assert fill.info()["state"] == "idle"
    finally:
        hold.set()
        fill._thread.join(2)
