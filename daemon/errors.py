"""The daemon layer's own errors, below memoryd's root (memoryd.tiers.base.errors draws the whole tree).

    MemorydError
     └── UsageError
          └── UnknownOperationError   no operation of that name here (exit 2): an older daemon, or a typo

daemon/client.py re-raises a daemon-side error by its `title`, so each class here has one of its own.
"""
from __future__ import annotations

from memoryd.tiers.base.errors import UsageError


class UnknownOperationError(UsageError):
    """An operation name the table of daemon/api.py does not hold (or the socket does not serve)."""

    title = "unknown operation"

    @classmethod
    def named(cls, name: str) -> "UnknownOperationError":
        return cls(f"unknown operation {name!r}")
