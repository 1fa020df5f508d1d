"""What `memoryd-hook claude|codex` (and `memoryd hooks run`) does with one hook input (JSON on stdin), never failing the session.

SessionStart: the context for this project (the `harness_context` operation) printed as
`{"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": …}}`, nothing when
there is none. PreCompact, Stop, SubagentStop, SessionEnd: what is new in `transcript_path` (and a
subagent's `agent_transcript_path`) is taken (`harness_take`). Both go through the daemon when it
runs (daemon/client.py alone: the hook does not import the operations then), else run here. Any error: no output, exit 0, and one line in `<home>/logs/hooks.log`.
"""
from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any, Callable

from memoryd.tiers.base.atomic import ensure_private_dir
from memoryd.tiers.base.config import Config

Call = Callable[[str, dict[str, Any]], Any]  # (operation, params) → result: the daemon's, or this process's

LOG = Path("logs") / "hooks.log"
TAKE_EVENTS = ("PreCompact", "Stop", "SubagentStop", "SessionEnd", "PostCompact")
MAX_INPUT = 1024 * 1024


def log_line(config: Config, line: str) -> None:
    """One line in memoryd's hook log (0600, in a 0700 dir); a log that cannot be written is let go."""
    try:
        path = config.home / LOG
        ensure_private_dir(path.parent)
        stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        with open(path, "a", encoding="utf-8", opener=lambda p, f: __import__("os").open(p, f, 0o600)) as fh:
            fh.write(f"{stamp} {' '.join(line.split())[:500]}\n")
    except Exception:  # the hook must not fail because its log cannot be written
        pass


def _params(**params: Any) -> dict[str, Any]:
    return {k: v for k, v in params.items() if v is not None}


def _context(call: Call, harness: str, event: dict[str, Any], agent: str | None) -> str:
    got = call("harness_context", _params(harness=harness, cwd=str(event.get("cwd") or ""), hook_agent=agent,
                                          source=str(event.get("source") or "") or None))
    text = got.get("context") if isinstance(got, dict) else ""
    if not text:
        return ""
    return json.dumps({"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": text}},
                      ensure_ascii=False)


def _take(call: Call, harness: str, event: dict[str, Any], agent: str | None) -> None:
    cwd = str(event.get("cwd") or "") or None
    for key in ("agent_transcript_path", "transcript_path"):
        path = event.get(key)
        if isinstance(path, str) and path and Path(path).is_file():
            call("harness_take", _params(harness=harness, path=path, cwd=cwd, hook_agent=agent))


def run_hook(config: Config, call: Call, harness: str, raw: bytes, agent: str | None = None) -> str:
    """The hook's stdout for one input; every failure is logged and answered with nothing."""
    try:
        event = json.loads(raw[:MAX_INPUT] or b"{}")
        if not isinstance(event, dict):
            raise ValueError("hook input is not a JSON object")
        name = event.get("hook_event_name")
        if name == "SessionStart":
            return _context(call, harness, event, agent)
        if name in TAKE_EVENTS:
            _take(call, harness, event, agent)
        return ""
    except Exception as exc:  # never fail the session: the CLI goes on without memory
        message = getattr(exc, "message", None) or f"{type(exc).__name__}: {exc}"
        log_line(config, f"{harness} hook failed: {message}")
        return ""


def caller(config: Config) -> Call:
    """Calls through the daemon's socket when it answers, else in this process (loaded only then)."""
    from memoryd.daemon.client import try_daemon

    local: list[Any] = []

    def call(op: str, params: dict[str, Any]) -> Any:
        result = try_daemon(config, op, params, timeout=10.0) if config.socket_path.exists() else None
        if result is not None:
            return result
        if not local:
            from memoryd.daemon.api import in_process  # ~80 ms of imports: only without a daemon

            local.append(in_process(config))
        return local[0].call(op, params)
    return call
