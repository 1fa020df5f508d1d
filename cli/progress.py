"""A progress bar for long commands (click's own progressbar), only on a terminal and never with --json."""
from __future__ import annotations

import sys
import time
from contextlib import contextmanager
from typing import Any, Iterator, TextIO

import click

from memoryd.tiers.base.progress import Advance, NoProgress, Progress, current_progress, reporting


class TerminalProgress:
    """Draws `label [####----] 120/400 30% 85/s eta 00:03` on stderr, one bar per piece of work."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self._bar: Any = None

    def start(self, label: str, total: int | None) -> Advance:
        self.close()
        if total == 0:  # nothing to do: no bar
            return NoProgress().start(label, total)
        started = time.monotonic()
        done = [0]

        def rate(_item: Any) -> str:
            elapsed = time.monotonic() - started
            return f"{done[0] / elapsed:,.0f}/s" if elapsed > 0.05 and done[0] else ""

        bar = click.progressbar(length=total, label=label, show_pos=True, show_eta=total is not None,
                                item_show_func=rate, file=self.stream, width=30)
        bar.__enter__()  # draws the empty bar at once: the user sees the work has begun
        self._bar = bar

        def advance(n: int = 1) -> None:
            done[0] += n
            bar.update(n)

        return advance

    def close(self) -> None:
        if self._bar is not None:
            self._bar.__exit__(None, None, None)  # the final state, then a newline
            self._bar = None


def wants_bar(as_json: bool, stdout: TextIO | None = None, stderr: TextIO | None = None) -> bool:
    """A bar only for a person: both streams on a terminal, and not --json (scripts read stdout)."""
    out, err = stdout or sys.stdout, stderr or sys.stderr
    return not as_json and _isatty(out) and _isatty(err)


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def end_bar() -> None:
    """Finish the bar being drawn, if any, so that what is printed next starts on a line of its own."""
    close = getattr(current_progress(), "close", None)
    if close is not None:
        close()


@contextmanager
def progress_for(as_json: bool) -> Iterator[Progress]:
    """The work inside reports to a terminal bar when a person watches, else to nothing."""
    if not wants_bar(as_json):
        with reporting(NoProgress()) as quiet:
            yield quiet
        return
    bar = TerminalProgress(sys.stderr)
    try:
        with reporting(bar):
            yield bar
    finally:
        bar.close()
