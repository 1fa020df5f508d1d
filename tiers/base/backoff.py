"""The one retry policy: exponential backoff, capped, with optional jitter, for work retried across restarts.

Retry libraries (tenacity, backoff) wrap a call and sleep in a loop; here the attempt count is kept on
disk (the outbox) or by the scheduler, and the question is only "how long until the next try":

    Backoff(base=30, cap=1800).delay(attempts)              # 30, 60, 120, … 1800 (scheduler)
    Backoff(base=5, cap=900, jitter=0.5).delay(attempts)    # the same × a random 0.5–1.5 (outbox)
"""
from __future__ import annotations

import random
from dataclasses import dataclass


@dataclass(frozen=True)
class Backoff:
    base: float  # seconds before the first retry
    cap: float  # never longer than this between tries (before jitter)
    jitter: float = 0.0  # 0.5 spreads each delay over ±50 %, so devices that failed together retry apart

    def __post_init__(self) -> None:
        if not (0 < self.base <= self.cap) or not (0 <= self.jitter < 1):
            raise ValueError("Backoff needs 0 < base <= cap and 0 <= jitter < 1")

    def delay(self, attempts: int, rng: random.Random | None = None) -> float:
        """Seconds to wait after `attempts` failures in a row (attempts ≤ 1: the base delay)."""
        exponent = min(max(attempts - 1, 0), 64)  # 2**64 × base is past any cap; no float overflow
        delay = min(self.cap, self.base * 2.0 ** exponent)
        if self.jitter:
            delay *= 1 - self.jitter + 2 * self.jitter * (rng or random).random()
        return delay
