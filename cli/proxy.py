"""Run an operation in the daemon when one is listening, else in this process (never both)."""
from __future__ import annotations

from memoryd.daemon.route import run_op

__all__ = ["run_op"]
