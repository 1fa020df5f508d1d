"""`memoryd-hook claude|codex [--agent-id ID]`: the hook command the harnesses run, without click (it starts often).

The same work as `memoryd hooks run` (daemon/hooks_run.py), minus click's import (≈ 45 ms of each hook's start
measured here): SessionStart's context on stdout, turns taken at Stop and friends, never a failure — a
bad argument or config is one line on stderr and in the hook log, exit 0 all the same.
"""
from __future__ import annotations

import sys

HARNESSES = ("claude", "codex")


def _args(argv: list[str]) -> tuple[str, str | None]:
    if not argv or argv[0] not in HARNESSES or len(argv) not in (1, 3) or (len(argv) == 3 and argv[1] != "--agent-id"):
        raise ValueError("usage: memoryd-hook claude|codex [--agent-id ID]")
    return argv[0], argv[2] if len(argv) == 3 else None


def main() -> None:
    from memoryd.tiers.base.config import load_config, validate_agent_id

    from memoryd.daemon.hooks_run import caller, log_line, run_hook

    try:
        harness, agent = _args(sys.argv[1:])
        config = load_config()
        agent = validate_agent_id(agent) if agent else None
    except Exception as exc:  # never fail the session: the CLI goes on without memory
        sys.stderr.write(f"memoryd-hook: {getattr(exc, 'message', exc)}\n")
        return
    try:
        out = run_hook(config, caller(config), harness, sys.stdin.buffer.read(), agent)
    except Exception as exc:
        log_line(config, f"{harness} hook failed: {exc}")
        out = ""
    if out:
        sys.stdout.write(out + "\n")


if __name__ == "__main__":
    main()
