"""Issue 23's last hostile inputs through the real console script, MCP server and daemon socket."""
from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest

from waiting import eventually

MEMORYD = str(Path(sys.executable).parent / "memoryd")
DEEP = "[" * 2000 + "]" * 2000
INIT = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}


def run(*args: str, home: Path, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run([MEMORYD, *args], env=dict(os.environ, MEMORYD_HOME=str(home), **env),
                          capture_output=True, text=True, timeout=120)


def one_line_error(r: subprocess.CompletedProcess, code: int = 2) -> str:
    assert r.returncode == code, (r.stdout, r.stderr)
    assert "Traceback" not in r.stderr + r.stdout
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    return lines[0]


def export_with(home: Path, tmp_path: Path, line: str) -> Path:
    assert run("export", str(tmp_path / "e.jsonl"), home=home).returncode == 0
    header = (tmp_path / "e.jsonl").read_text().splitlines()[0]
    path = tmp_path / "bad.jsonl"
    path.write_text(header + "\n" + line + "\n")
    return path


def test_import_of_over_deep_json_is_one_line_and_exit_2(home: Path, tmp_path: Path) -> None:
    assert run("init", home=home).returncode == 0
    bad = export_with(home, tmp_path, DEEP)
    assert "nested deeper than" in one_line_error(run("import", str(bad), home=home))
    r = run("import", "--json", str(bad), home=home)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    doc = json.loads(r.stdout)  # only the JSON error object on stdout
    assert doc["error"]["exit"] == 2 and "nested deeper" in doc["error"]["message"]
    nul = json.dumps({"type": "warm", "entry": {"id": "a" * 16, "text": "x\x00y", "category": "c", "created_at": 1}})
    assert "U+0000" in one_line_error(run("import", str(export_with(home, tmp_path, nul)), home=home))


@pytest.mark.parametrize("args", [
    ("store", "bell\x07inside", "--category", "notes"),
    ("store", "fine text", "--category", "../x"),
    ("store", "fine text", "--category", "a/./b"),
    ("hot", "lesson", "escape \x1b[2J here"),
    ("hot", "task", "a\x0bvertical tab"),
    ("hot", "identity", "name", "x\x1fy"),
    ("tree", "add", "notes", "desc \x1b[31m red"),
    ("tree", "add", "..", "up"),
    ("mcp", "--agent-id", ""),
    ("--agent-id", "", "status"),
])
def test_hostile_cli_input_is_refused_and_changes_nothing(home: Path, args: tuple[str, ...]) -> None:
    assert run("init", home=home).returncode == 0
    before = {p: p.read_bytes() for p in (home / "agents" / "default").glob("*.json")}
    one_line_error(run(*args, home=home))
    assert {p: p.read_bytes() for p in (home / "agents" / "default").glob("*.json")} == before
    assert sorted(p.name for p in (home / "agents").iterdir()) == ["default"]


def test_over_deep_config_toml_is_a_config_error(home: Path) -> None:
    home.mkdir(parents=True)
    for text in ("x = " + DEEP.replace("][", "],["), "x = " + "{a=" * 2000 + "1" + "}" * 2000):
        (home / "config.toml").write_text(text + "\n")
        assert "config.toml" in one_line_error(run("status", home=home))


def test_flush_refuses_an_over_deep_event_and_keeps_the_rest(home: Path, tmp_path: Path) -> None:
    assert run("init", home=home).returncode == 0
    said = {"type": "message", "message": {"role": "user", "content": "I always prefer green tea over coffee."}}
    transcript = tmp_path / "sess.jsonl"
    transcript.write_text(json.dumps(said) + '\n{"type":"message","message":' + DEEP + "}\n")
    assert "nested too deep" in one_line_error(run("flush", "--session", str(transcript), home=home))
    found = run("retrieve", "green tea", "--json", home=home)
    assert found.returncode == 0 and "green tea" in found.stdout


def test_a_configured_openclaw_dir_that_is_missing_is_said(home: Path, tmp_path: Path) -> None:
    assert run("init", home=home).returncode == 0
    missing = str(tmp_path / "no-such-openclaw")
    r = run("openclaw", "sync", home=home, OPENCLAW_STATE_DIR=missing)
    assert r.returncode == 1 and "Traceback" not in r.stderr
    assert f"memoryd: warning: the OpenClaw state dir {missing} (OPENCLAW_STATE_DIR) does not exist" in r.stderr
    status = run("status", home=home, OPENCLAW_STATE_DIR=missing)
    assert status.returncode == 0 and "does not exist" in status.stdout
    os.mkdir(missing)
    assert run("openclaw", "sync", home=home, OPENCLAW_STATE_DIR=missing).returncode == 0


def mcp_call(proc: subprocess.Popen, msg_id: int, line: str) -> dict[str, Any]:
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(line + "\n")
    proc.stdin.flush()
    while True:
        reply = json.loads(proc.stdout.readline())
        if reply.get("id") == msg_id:
            return reply


def test_mcp_answers_hostile_calls_and_keeps_serving(home: Path) -> None:
    assert run("init", home=home).returncode == 0
    proc = subprocess.Popen([MEMORYD, "mcp"], env=dict(os.environ, MEMORYD_HOME=str(home)), text=True,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        mcp_call(proc, 1, json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": INIT}))
        proc.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")  # type: ignore
        proc.stdin.write('{"jsonrpc":"2.0","method":"notifications/x","params":%s}\n' % DEEP)  # type: ignore
        call = '{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"%s","arguments":%s}}'
        deep = mcp_call(proc, 2, call % (2, "memory_store", '{"text":"hi","category":"x","metadata":%s}' % DEEP))
        assert deep["result"]["isError"] and "nested deeper" in deep["result"]["content"][0]["text"]
        other = mcp_call(proc, 3, '{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":%s}}' % DEEP)
        assert "error" in other
        for n, args in enumerate([{"text": "nul\u0000here", "category": "x"}, {"text": "ok", "category": "../x"}], 4):
            reply = mcp_call(proc, n, call % (n, "memory_store", json.dumps(args)))
            assert reply["result"]["isError"], reply
        lesson = mcp_call(proc, 6, call % (6, "memory_lesson", json.dumps({"text": "esc\u001b[0m"})))
        assert "control character" in lesson["result"]["content"][0]["text"]
        ok = mcp_call(proc, 7, call % (7, "memory_store", json.dumps({"text": "tea is green", "category": "x"})))
        assert not ok["result"].get("isError"), ok
    finally:
        proc.stdin.close()  # type: ignore[union-attr]
        proc.wait(30)
    tree = run("tree", "show", "--json", home=home)
    assert run("export", str(home.parent / "all.jsonl"), home=home).returncode == 0
    assert ".." not in tree.stdout and "\\u0000" not in (home.parent / "all.jsonl").read_text()


def test_the_daemon_answers_hostile_requests_and_keeps_serving(home: Path, tmp_path: Path) -> None:
    from memoryd.daemon.client import try_daemon
    from memoryd.tiers.base.config import Config

    assert run("init", home=home).returncode == 0
    sock_dir = Path(tempfile.mkdtemp(prefix="mdh-", dir="/tmp"))
    env = dict(os.environ, MEMORYD_HOME=str(home), MEMORYD_SOCKET=str(sock_dir / "d.sock"))
    config = Config(home=home, db_url="file:unused", socket=sock_dir / "d.sock")
    done = subprocess.Popen([sys.executable, "-c", "pass"])
    done.wait()
    leftover = home / f".daemon-state.json.tmp-{done.pid}"  # a daemon killed mid-write: the next one sweeps the home
    leftover.write_bytes(b'{"half')
    with open(tmp_path / "daemon.log", "wb") as log:
        proc = subprocess.Popen([MEMORYD, "daemon"], env=env, stdout=subprocess.DEVNULL, stderr=log)
    try:
        eventually(lambda: proc.poll() is not None or (sock_dir / "d.sock").exists(), timeout=30)
        eventually(lambda: _quiet_ping(try_daemon, config), timeout=30)
        requests = [b'{"op":"status","params":' + DEEP.encode() + b"}",
                    json.dumps({"op": "store", "params": {"text": "a\x00b", "category": "x"}}).encode(),
                    json.dumps({"op": "store", "params": {"text": "ok", "category": "x/.."}}).encode(),
                    json.dumps({"op": "status", "params": {"agent_id": ""}}).encode()]
        for request in requests:
            reply = _raw(sock_dir / "d.sock", request)
            assert reply.get("ok") is not True and "internal error" not in json.dumps(reply), reply
            assert proc.poll() is None
        assert try_daemon(config, "status", {}, timeout=30)["agents"]
        assert not leftover.exists()
    finally:
        proc.terminate()
        proc.wait(30)
        shutil.rmtree(sock_dir, ignore_errors=True)


def _quiet_ping(try_daemon: Any, config: Any) -> bool:
    try:
        return try_daemon(config, "ping", {}, timeout=2) is not None
    except Exception:
        return False


def _raw(path: Path, line: bytes) -> dict[str, Any]:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(30)
        s.connect(str(path))
        s.sendall(line + b"\n")
        data = b""
        while not data.endswith(b"\n"):
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
    return json.loads(data)
