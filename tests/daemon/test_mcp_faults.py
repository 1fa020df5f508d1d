"""kill -9 of the MCP server at random moments of a `memory_store` (issue 12), served in-process and
through the daemon (whose own SIGKILL mid-session is part of the run): no acknowledged store lost, no
torn file, no traceback. Real `memoryd mcp` processes speaking JSON-RPC, a real daemon.
"""
from __future__ import annotations

import json
import random
import signal
import subprocess
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from faultcheck import torn_files
from memoryd.daemon.mcp_bridge import LOST
from memoryd.tiers.cold.source import open_index
from memoryd.tiers.memory.agent import AgentMemory
from memoryd.tiers.base.config import load_config
from test_daemon_process import DaemonProc
from test_mcp import MEMORYD, env  # noqa: F401  (env is a fixture)

INIT = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "faults", "version": "0"}}


@dataclass
class Outcome:
    text: str
    stored_id: str | None  # the id the answer gave: acknowledged
    killed: bool
    stderr: str


def send(proc: subprocess.Popen, msg: dict[str, Any]) -> None:
    assert proc.stdin is not None
    proc.stdin.write(json.dumps(msg) + "\n")
    proc.stdin.flush()


def answer(proc: subprocess.Popen, rid: int) -> dict[str, Any] | None:
    """The answer to request `rid`, or None when the server died first."""
    assert proc.stdout is not None
    for line in proc.stdout:
        msg = json.loads(line)
        if msg.get("id") == rid:
            return msg
    return None


def store_and_kill(env: dict[str, str], text: str, rng: random.Random) -> Outcome:
    """Start a session, ask for a store, SIGKILL the server within ~0.1 s of the request (or not at all)."""
    proc = subprocess.Popen([MEMORYD, "mcp"], env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, bufsize=1)
    killer = None
    try:
        send(proc, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": INIT})
        assert answer(proc, 1) is not None, proc.stderr.read() if proc.stderr else ""
        send(proc, {"jsonrpc": "2.0", "method": "notifications/initialized"})
        if rng.random() < 0.85:
            killer = threading.Timer(rng.uniform(0.0, 0.12), proc.send_signal, [signal.SIGKILL])
            killer.start()
        send(proc, {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                    "params": {"name": "memory_store", "arguments": {"text": text}}})
        reply = answer(proc, 2)
    except (BrokenPipeError, ValueError):
        reply = None
    finally:
        if killer is not None:
            killer.join()
        if proc.stdin is not None:
            try:
                proc.stdin.close()
            except BrokenPipeError:
                pass
        proc.wait(30)
    stored = None
    if reply is not None and "error" in reply:  # the daemon died with the store: said so, not acknowledged
        assert reply["error"]["message"] == LOST, reply
    elif reply is not None and not reply["result"].get("isError"):
        stored = json.loads(reply["result"]["content"][0]["text"])["entry"]["id"]
    return Outcome(text, stored, proc.returncode == -signal.SIGKILL, proc.stderr.read() if proc.stderr else "")


@dataclass
class Home:
    home: Path


def test_kill_9_of_the_mcp_server_loses_no_acknowledged_store(env: dict[str, str], home: Path,
                                                               tmp_path: Path) -> None:
    rng = random.Random(20261123)
    outcomes = [store_and_kill(env, f"mcp fault fact {i} about the {rng.choice(['lake', 'cello', 'budget'])}", rng)
                for i in range(8)]  # in-process: each start imports the SDK (~1 s)
    daemon = DaemonProc(env, tmp_path / "daemon.log").start()
    try:
        for i in range(8, 48):
            if i % 12 == 11:  # the daemon itself dies mid-session now and then
                timer = threading.Timer(rng.uniform(0.0, 0.3), daemon.proc.send_signal, [signal.SIGKILL])
                timer.start()
                outcomes.append(store_and_kill(env, f"mcp fault fact {i} while the daemon dies", rng))
                timer.join()
                daemon.proc.wait(10)
                daemon = DaemonProc(env, tmp_path / "daemon.log").start()
                continue
            outcomes.append(store_and_kill(env, f"mcp fault fact {i} through the daemon", rng))
    finally:
        daemon.stop()
    kills = sum(o.killed for o in outcomes)
    acked = [o for o in outcomes if o.stored_id]
    config = load_config(env)
    warm = {e["id"] for e in AgentMemory(config, "default").read_state()["warm"]["entries"]}
    with open_index(config) as index:
        archived = {e["id"] for e in index.get("default", [o.stored_id for o in acked])}
    lost = [o.text for o in acked if o.stored_id not in warm | archived]
    torn, torn_lines = torn_files([Home(home)])  # type: ignore[list-item]
    print(f"\nMCP server kills: {kills} of {len(outcomes)} sessions; acknowledged stores {len(acked)}; lost {len(lost)}; "
          f"torn files {len(torn)}")
    assert kills >= 25 and len(acked) >= 5
    assert lost == [] and torn == [] and torn_lines == 0
    assert not [o.stderr for o in outcomes if "Traceback" in o.stderr]
    assert "Traceback" not in (tmp_path / "daemon.log").read_text()
