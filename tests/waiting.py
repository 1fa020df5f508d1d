"""Waiting in tests for an event (a file, a socket answer, a log line, a counter), never for a fixed time."""
from __future__ import annotations

import inspect
import time
from typing import Any, Callable


def _describe(pred: Callable[[], Any]) -> str:
    """The predicate's own source line (a lambda) or its name: what the failure message says was awaited."""
    try:
        src = inspect.getsource(pred).strip()
    except (OSError, TypeError):
        return getattr(pred, "__qualname__", repr(pred))
    return src if len(src) <= 300 else src[:297] + "..."


def eventually(pred: Callable[[], Any], timeout: float = 10.0, what: str | None = None, step: float = 0.02,
               ignore: tuple[type[BaseException], ...] = ()) -> Any:
    """Poll `pred` until it returns something truthy and return that; past `timeout` seconds, fail saying
    what was awaited and the last value seen. Exceptions of the types in `ignore` count as "not yet" (a
    socket not yet listening, a file mid-rewrite); any other propagates at once."""
    deadline = time.monotonic() + timeout
    last: Any = None
    while True:
        try:
            last = pred()
        except ignore as exc:
            last = exc
        else:
            if last:
                return last
        if time.monotonic() >= deadline:
            raise AssertionError(f"not within {timeout:g} s: {what or _describe(pred)} (last: {last!r:.300})")
        time.sleep(step)
