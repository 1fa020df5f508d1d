"""A hand-driven clock for tests: memories age when the test says so, not by sleeping."""
from __future__ import annotations

T0 = 1_700_000_000.0


class Clock:
    def __init__(self, t: float = T0) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t

    def days(self, n: float) -> None:
        self.t += n * 86400.0
