"""Test time: a hand-driven clock (memories age when the test says so); waiting for events is in waiting.py."""
from __future__ import annotations

from typing import Any, Callable

from waiting import eventually

T0 = 1_700_000_000.0


class Clock:
    def __init__(self, t: float = T0) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t

    def days(self, n: float) -> None:
        self.t += n * 86400.0


def wait_for(pred: Callable[[], Any], timeout: float = 10.0, step: float = 0.02) -> Any:
    """Older name of waiting.eventually (tests/web still calls it)."""
    return eventually(pred, timeout=timeout, step=step)
