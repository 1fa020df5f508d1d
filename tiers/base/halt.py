"""The crash tests' hook: SIGKILL this process at a named point, so a test can stop a real run exactly between
two writes (a consolidation phase, a sync's merge) and check that the next run finishes it."""
from __future__ import annotations

import os
import signal

HALT_ENV = "MEMORYD_TEST_HALT"


def halt(point: str) -> None:
    """SIGKILL this process at `point` when MEMORYD_TEST_HALT names it (unset in real use: one lookup)."""
    if os.environ.get(HALT_ENV) == point:
        os.kill(os.getpid(), signal.SIGKILL)
