"""`python -m memoryd.daemon`: run the daemon in the foreground (same as `memoryd daemon`)."""
from __future__ import annotations

import sys

from memoryd.tiers.config import load_config
from memoryd.tiers.errors import MemorydError


def main() -> int:
    try:
        from .runner import run_daemon

        return run_daemon(load_config())
    except MemorydError as exc:
        print(f"memoryd: {exc.message}", file=sys.stderr)
        return exc.exit_code


if __name__ == "__main__":
    sys.exit(main())
