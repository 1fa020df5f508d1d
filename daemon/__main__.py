"""`python -m memoryd.daemon`: run the daemon in the foreground (same as `memoryd daemon`)."""
from __future__ import annotations

import sys

from memoryd.tiers.base.config import load_config
from memoryd.tiers.base.errors import MemorydError


def main() -> int:
    try:
        from memoryd.daemon.runner import run_daemon

        return run_daemon(load_config())
    except MemorydError as exc:
        print(f"memoryd: {exc.message}", file=sys.stderr)
        return exc.exit_code


if __name__ == "__main__":
    sys.exit(main())
