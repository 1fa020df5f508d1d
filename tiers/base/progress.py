"""Progress of long work, told without knowing about terminals: a Progress protocol, a silent default,
and the reporter of the current context (the CLI sets one that draws a bar; the daemon sets none).

Core code:   advance = current_progress().start("daily notes", total=len(files)); …; advance()
A reporter:  with reporting(MyProgress()): run_the_work()
"""
from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from typing import Callable, Iterator, Protocol

Advance = Callable[..., None]  # advance(n: int = 1): n more steps are done


class Progress(Protocol):
    def start(self, label: str, total: int | None) -> Advance:
        """Begin a piece of work of `total` steps (None: not known); returns the call that counts steps.

        Starting the next piece ends the previous one; so does leaving `reporting()`.
        """


def _ignore(n: int = 1) -> None:
    return None


class NoProgress:
    """Reports nothing (the default: the daemon, tests, pipes, --json)."""

    def start(self, label: str, total: int | None) -> Advance:
        return _ignore


_current: ContextVar[Progress] = ContextVar("memoryd_progress", default=NoProgress())


def current_progress() -> Progress:
    return _current.get()


@contextmanager
def reporting(progress: Progress) -> Iterator[Progress]:
    """Make `progress` the reporter for the work done inside this block (this thread/context only)."""
    token = _current.set(progress)
    try:
        yield progress
    finally:
        _current.reset(token)
