"""The fuzz suite's harness (tests/system/test_fuzz.py, bench/fuzz.py): a sandboxed home with memories in
every tier, probes that run one generated input (tests/fuzzgen.py) each, and a tally that classifies
each call: a traceback, an exit code outside 0/1/2, or state changed by a refused input (exit 2)."""
from __future__ import annotations

import json
import logging
import os
import time
import traceback
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fuzzgen import AGENT
from waiting import eventually



@dataclass
class Tally:
    """Counts over many calls; `problems` describes the first few of each kind."""
    calls: int = 0
    tracebacks: int = 0
    odd_exit: int = 0
    changed_on_refusal: int = 0
    codes: Counter = field(default_factory=Counter)
    problems: list[str] = field(default_factory=list)

    def record(self, where: str, code: int, tb: str | None, changed: list[str]) -> list[str]:
        self.calls += 1
        self.codes[f"{where.split()[0]}:{code}"] += 1
        found = []
        if tb:
            self.tracebacks += 1
            found.append(f"traceback in {where}: {tb[-1200:]}")
        if code not in (0, 1, 2):
            self.odd_exit += 1
            found.append(f"exit {code} from {where}")
        if changed:
            self.changed_on_refusal += 1
            found.append(f"refused {where} changed {changed[:5]}")
        if len(self.problems) < 200:
            self.problems += found
        return found

    def figures(self) -> dict[str, Any]:
        return {"calls": self.calls, "tracebacks": self.tracebacks, "exit_codes_outside_0_1_2": self.odd_exit,
                "state_changed_by_refused_input": self.changed_on_refusal}


class Sandbox:
    """A home (memories in hot, warm, tree and the local index), a workspace and a working directory."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.home, self.workspace, self.cwd = root / "home", root / "ws", root / "cwd"
        self.user = root / "user"  # HOME, XDG dirs, an empty PATH: `service` finds no manager
        for d in (self.workspace / "memory", self.cwd / "sub", self.user):
            d.mkdir(parents=True, exist_ok=True)
        self.env: dict[str, str | None] = {
            "MEMORYD_HOME": str(self.home), "MEMORYD_WORKSPACE": str(self.workspace),
            "MEMORYD_SESSIONS_DIR": str(root / "sessions"), "HOME": str(self.user), "PATH": str(self.user),
            "XDG_CONFIG_HOME": str(self.user / "config"), "XDG_DATA_HOME": str(self.user / "data"),
            "XDG_RUNTIME_DIR": str(self.user / "run"), "MEMORYD_LOG_LEVEL": "WARNING",
            # input handling is under test; hybrid's embedding backfill after the daemon's catch-up
            # consolidation wrote to cold.db after settle() had seen the home quiet
            "MEMORYD_RETRIEVAL_MODE": "keyword",
            **{k: None for k in ("MEMORYD_DB_URL", "MEMORYD_DB_TOKEN", "MEMORYD_KEY", "MEMORYD_SOCKET",
                                 "MEMORYD_LLM_ENDPOINT", "MEMORYD_CLOCK_FILE")}}
        self.ids = self._seed()

    def _seed(self) -> list[str]:
        from memoryd.daemon.api import in_process
        from memoryd.daemon.engine import Engine
        from memoryd.tiers.memory import hot
        from memoryd.tiers.base.config import load_config
        from memoryd.tiers.memory.consolidate import consolidate

        config = load_config({k: v for k, v in self.env.items() if v is not None})
        in_process(config).call("init", {"agent_id": AGENT})
        past = time.time() - 40 * 86400
        with Engine(config).memory(AGENT, clock=lambda: past) as mem:
            old = [mem.store(f"an old archived fact number {i} about tea", "notes", 0.2)["id"] for i in range(3)]
        with Engine(config).memory(AGENT) as mem:
            consolidate(mem, "quick")
            ids = [mem.store(f"fresh fact {i}: https://example.com/{i} deploy server", "projects/evoclaw", 0.5)["id"]
                   for i in range(4)]
            mem.change(lambda s, now: [hot.set_identity(s["hot"], "name", "Claw"),
                                       hot.upsert_task(s["hot"], "write the fuzz suite", None, now)], "seed")
        (self.workspace / "memory" / "2026-01-05.md").write_text("# 2026-01-05\n\n- deployed the fuzz suite\n")
        with Engine(config).memory("nokey") as mem:  # an agent with memories but no key on this device
            mem.store("a fact of an agent without a key", "notes", 0.5)
        return old + ids + ["identity:name", "nope", "nokey"]

    def snapshot(self) -> dict[str, bytes]:
        """Every file (and directory) under the home and the working directory: SQLite files by their
        rows (a checkpoint changes bytes, not content); lock files and the daemon's own files aside."""
        out: dict[str, bytes] = {}
        for base in (self.home, self.cwd):
            for path in base.rglob("*"):
                if path.name.endswith((".lock", "-wal", "-shm", "-journal")) or \
                        path.name in ("daemon-state.json", "daemon.pid", "memoryd.sock"):
                    continue
                out[str(path)] = b"<dir>" if path.is_dir() else _rows(path) if path.suffix == ".db" else _read(path)
        return out


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError:
        return b"<unreadable>"


def _rows(path: Path) -> bytes:
    import sqlite3

    conn = sqlite3.connect(path, timeout=30)
    try:
        return "\n".join(conn.iterdump()).encode("utf-8", "surrogateescape")
    finally:
        conn.close()


def changed(before: dict[str, bytes], after: dict[str, bytes]) -> list[str]:
    return sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))


def run_cli(box: Sandbox, argv: list[str], stdin: str | bytes = "") -> tuple[int, str | None, list[str], str]:
    """Run one command line in-process (click's CliRunner) in the sandbox: (exit code, traceback, files a
    refusal changed, output)."""
    from click.testing import CliRunner

    from memoryd.cli.main import cli

    logging.root.handlers.clear()  # setup_logging binds to the stream of the call that configured it
    before = box.snapshot()
    cwd = os.getcwd()
    os.chdir(box.cwd)
    try:
        result = CliRunner().invoke(cli, argv, input=stdin, env=box.env, catch_exceptions=True)
    finally:
        os.chdir(cwd)
        logging.root.handlers.clear()
    tb = None
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        tb = "".join(traceback.format_exception(result.exception))
    elif "Traceback (most recent call last)" in result.output:
        tb = result.output
    code = result.exit_code
    return code, tb, changed(before, box.snapshot()) if code == 2 else [], result.output


# -- probes: one generated input each, classified into the tally -------------------------------------
def probe_cli(box: Sandbox, tally: Tally, argv: list[str]) -> list[str]:
    code, tb, moved, _ = run_cli(box, argv)
    return tally.record("cli " + " ".join(argv)[:300], code, tb, moved)


def probe_rule(box: Sandbox, tally: Tally, argv: list[str], expected: int) -> list[str]:
    """One command line whose exit code a rule fixes (the one-line message is the console script's: cli/main.py)."""
    code, tb, moved, output = run_cli(box, argv)
    found = tally.record("rule " + " ".join(argv)[:300], code, tb, moved)
    if code != expected:
        found.append(f"exit {code}, not {expected}: {argv!r}: {output[-400:]}")
    return found


def probe_import(box: Sandbox, tally: Tally, content: bytes, as_json: bool) -> list[str]:
    (box.cwd / "in.jsonl").write_bytes(content)
    code, tb, moved, _ = run_cli(box, ["import", "in.jsonl", *(["--json"] if as_json else [])])
    return tally.record(f"import {content[:300]!r}", code, tb, moved)


def probe_note(box: Sandbox, tally: Tally, content: bytes) -> list[str]:
    (box.workspace / "memory" / "2026-01-05.md").write_bytes(content)
    (box.cwd / "note.md").write_bytes(content)
    found = []
    for argv in (["ingest-daily", "--date", "2026-01-05", "--json"], ["validate", "note.md"]):
        code, tb, moved, _ = run_cli(box, argv)
        found += tally.record(f"{argv[0]} {content[:300]!r}", code, tb, moved)
    return found


def probe_transcript(box: Sandbox, tally: Tally, first: bytes, more: bytes) -> list[str]:
    """A transcript ingested, appended to, and ingested again (what the daemon's watcher does)."""
    from memoryd.daemon.api import in_process
    from memoryd.tiers.base.config import load_config
    from memoryd.tiers.base.errors import MemorydError

    config = load_config({k: v for k, v in box.env.items() if v is not None})
    path = box.root / "sessions" / "fuzz.jsonl"
    path.parent.mkdir(exist_ok=True)
    path.write_bytes(first)
    found = []
    for step in (first, more):
        if step is more:
            with open(path, "ab") as fh:
                fh.write(more)
        before = box.snapshot()
        code, tb = 0, None
        try:
            in_process(config).call("ingest_transcript", {"agent_id": AGENT, "path": str(path)})
        except MemorydError as exc:
            code = exc.exit_code
        except Exception:  # noqa: BLE001 - what the suite counts
            code, tb = 1, traceback.format_exc()
        moved = changed(before, box.snapshot()) if code == 2 else []
        found += tally.record(f"transcript {step[:300]!r}", code, tb, moved)
    return found


class DaemonClient:
    """A real `memoryd daemon` on a sandbox; sends raw request lines over its socket."""

    def __init__(self, box: Sandbox) -> None:
        import subprocess
        import sys

        self.box = box
        env = {k: v for k, v in os.environ.items() if not k.startswith("MEMORYD_")}
        env.update({k: v for k, v in box.env.items() if v is not None})
        env["PATH"] = os.environ.get("PATH", "")
        (box.home / "config.toml").write_text("[schedule]\nsync_idle_seconds = 86400\nheartbeat_seconds = 3600\n")
        self.log = box.root / "daemon.log"
        with open(self.log, "wb") as log:
            self.proc = subprocess.Popen([str(Path(sys.executable).with_name("memoryd")), "daemon"], env=env,
                                         cwd=box.cwd, stdout=log, stderr=subprocess.STDOUT)
        self.socket = box.home / "memoryd.sock"
        eventually(lambda: self.proc.poll() is not None or self._answers(), timeout=30, step=0.05,
                   what="the daemon answering a ping")
        assert self.proc.poll() is None, self.log.read_text()
        self.settle()

    def _answers(self) -> bool:
        try:
            return bool(self.exchange(b'{"op": "ping"}')[0].get("ok"))
        except OSError:
            return False

    def settle(self) -> None:
        """Wait until the daemon's start-up work (catch-up consolidation) stopped changing files: the event is
        "the same snapshot for 0.3 s", with a deadline (a daemon that never stops writing fails here)."""
        seen: dict[str, Any] = {"snap": None, "since": time.monotonic()}

        def quiet() -> bool:
            snap = self.box.snapshot()
            if snap != seen["snap"]:
                seen.update(snap=snap, since=time.monotonic())
            return time.monotonic() - seen["since"] >= 0.3

        eventually(quiet, timeout=60, step=0.1, what="the sandbox's files unchanged for 0.3 s")

    def exchange(self, line: bytes) -> list[dict[str, Any]]:
        """Send `line` then a ping on one connection; the replies (the ping's last)."""
        import socket

        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(60)
            sock.connect(str(self.socket))
            sock.sendall(line + b"\n" + b'{"op": "ping"}\n')
            data = b""
            while data.count(b"\n") < (2 if line.strip() else 1):
                chunk = sock.recv(65536)
                if not chunk:
                    break
                data += chunk
        return [json.loads(x) for x in data.splitlines()]

    def close(self) -> str:
        self.proc.terminate()
        self.proc.wait(30)
        return self.log.read_text(errors="replace")


def probe_socket(client: DaemonClient, tally: Tally, line: bytes) -> list[str]:
    """One request line; a sync (refused or not) kicks the daemon's own drain of every agent, so the
    home is let settle before the next request is measured."""
    before = client.box.snapshot()
    tb, code = None, 0
    try:
        replies = client.exchange(line)
    except (OSError, ValueError) as exc:
        return tally.record(f"socket {line[:300]!r}", 1, f"no answer: {exc}", [])
    if not replies or replies[-1].get("result", {}).get("pong") is not True:
        tb = f"the daemon stopped answering: {replies}"
    elif len(replies) == 2:
        reply = replies[0]
        if not isinstance(reply, dict) or "ok" not in reply:
            tb = f"malformed reply {reply!r}"
        elif not reply["ok"]:
            err = reply.get("error") or {}
            code = int(err.get("exit_code", 1))
            if str(err.get("message", "")).startswith("internal error"):
                tb = str(err.get("message"))
    moved = changed(before, client.box.snapshot()) if code == 2 else []
    if b'"sync"' in line:
        client.settle()
    return tally.record(f"socket {line[:300]!r}", code, tb, moved)
