"""Test time: a hand-driven clock (memories age when the test says so) and polling for real processes."""
from __future__ import annotations

import time
from typing import Any, Callable

T0 = 1_700_000_000.0


class Clock:
    def __init__(self, t: float = T0) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t

    def days(self, n: float) -> None:
        self.t += n * 86400.0


def wait_for(pred: Callable[[], Any], timeout: float = 10.0, step: float = 0.02) -> Any:
    """Poll `pred` on the real clock (for real processes and threads) until truthy, or fail."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = pred()
        if value:
            return value
        time.sleep(step)
    raise AssertionError("condition not reached in time")
