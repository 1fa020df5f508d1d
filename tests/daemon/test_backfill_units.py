"""The back-fill thread's parts without a model: the request gate and the slices' loop (a fake store)."""
from __future__ import annotations

import threading
import time

from memoryd.daemon.backfill import Backfill, RequestGate


def test_the_gate_waits_for_requests_and_a_gap_but_not_forever() -> None:
    gate, stopped = RequestGate(gap=0.1, max_wait=5.0), threading.Event()
    gate.enter()
    done: list[float] = []
    t0 = time.monotonic()
    th = threading.Thread(target=lambda: done.append(gate.wait_idle(stopped) and time.monotonic() - t0))
    th.start()
    time.sleep(0.3)
    assert not done  # a request is being served
    gate.leave()
    th.join(2)
    assert done and done[0] >= 0.4 - 0.05  # the request's end plus the gap
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
