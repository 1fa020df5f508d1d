"""Hybrid logical clock stamps: 'wall-ms.counter.device', ordered as plain strings."""
from __future__ import annotations

import time
from typing import Callable

_WALL_DIGITS = 13
_COUNTER_HEX = 4


def make_stamp(wall_ms: int, counter: int, device: str) -> str:
    return f"{wall_ms:0{_WALL_DIGITS}d}.{counter:0{_COUNTER_HEX}x}.{device}"


def parse_stamp(stamp: str) -> tuple[int, int, str]:
    wall, counter, device = stamp.split(".", 2)
    return int(wall), int(counter, 16), device


def stamp_seconds(stamp: str) -> float:
    """The wall-clock part of a stamp, in unix seconds."""
    return int(stamp[:_WALL_DIGITS]) / 1000.0


class HLC:
    """A hybrid logical clock for one device: never goes backwards, moves past every stamp it observes."""

    def __init__(self, device: str, last: str | None = None, clock: Callable[[], float] = time.time) -> None:
        if not device or "." in device:
            raise ValueError("device id must be non-empty and contain no '.'")
        self.device = device
        self.clock = clock
        self.wall, self.counter = (0, 0)
        if last:
            self.wall, self.counter, _ = parse_stamp(last)

    def observe(self, stamp: str | None) -> None:
        """Remember a stamp seen elsewhere so that our next stamp sorts after it."""
        if not stamp:
            return
        wall, counter, _ = parse_stamp(stamp)
        if (wall, counter) > (self.wall, self.counter):
            self.wall, self.counter = wall, counter

    def now(self) -> str:
        wall = int(self.clock() * 1000)
        if wall > self.wall:
            self.wall, self.counter = wall, 0
        else:
            self.counter += 1
            if self.counter >= 16 ** _COUNTER_HEX:  # counter exhausted: borrow the next millisecond
                self.wall, self.counter = self.wall + 1, 0
        return make_stamp(self.wall, self.counter, self.device)

    @property
    def last(self) -> str:
        return make_stamp(self.wall, self.counter, self.device)
