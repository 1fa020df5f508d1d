"""`memoryd mcp` while the daemon runs: the daemon serves the session with the SDK it loaded, the
process the client started only pumps lines (it never imports the SDK), and a session outlives a
daemon that stops under it. Real daemon, real `memoryd mcp` processes, the SDK's own client.
"""
from __future__ import annotations

import json
import os
import socket
import subprocess
from pathlib import Path
from typing import Any

from mcp.client.session import ClientSession

from waiting import eventually
from memoryd.daemon.mcp_bridge import LOST, _Session, _split
from memoryd.daemon.mcp_host import MAX_SESSIONS, STATE_KEY
from test_daemon_process import DaemonProc
from test_mcp import MEMORYD, call, env, session  # noqa: F401  (env is a fixture)

INIT = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}}


class Raw:
    """`memoryd mcp` spoken to in newline-delimited JSON-RPC, to look at the process while it serves."""

    def __init__(self, env: dict[str, str]) -> None:
        self.proc = subprocess.Popen([MEMORYD, "mcp"], env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, bufsize=1)
        self.next_id = 0

    def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        self.next_id += 1
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params}) + "\n")
        self.proc.stdin.flush()
        return json.loads(self.proc.stdout.readline())

    def start(self) -> dict[str, Any]:
        answer = self.request("initialize", INIT["params"])
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")
        return answer

    def tool(self, name: str, **arguments: Any) -> dict[str, Any]:
        answer = self.request("tools/call", {"name": name, "arguments": arguments})
        return json.loads(answer["result"]["content"][0]["text"])

    def close(self) -> int:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        return self.proc.wait(30)


def loaded_sdk(pid: int) -> bool:
    """Has this process mapped pydantic's compiled core, i.e. imported the MCP SDK?"""
    return "pydantic_core" in Path(f"/proc/{pid}/maps").read_text()


def test_the_daemon_serves_the_session_and_the_client_process_never_loads_the_sdk(env: dict[str, str],
                                                                                   home: Path, tmp_path: Path) -> None:
    (home / "config.toml").write_text('[mcp]\npreload = "always"\n')
    daemon = DaemonProc(env, tmp_path / "daemon.log").start()
    try:
        eventually(lambda: daemon.info()["mcp"]["sdk_loaded"], timeout=60)
        raw = Raw(env)
        assert raw.start()["result"]["serverInfo"]["name"] == "memoryd"
        stored = raw.tool("memory_store", text="The boat is moored at pier 9")
        found = raw.tool("memory_search", query="where is the boat moored")
        assert found["results"][0]["id"] == stored["entry"]["id"]
        assert raw.tool("memory_status")["daemon"]["mcp"]["sessions"] == 1  # served in the daemon
        assert not loaded_sdk(raw.proc.pid)  # the process the client started only pumps lines
        assert raw.close() == 0
        assert daemon.info()["mcp"] == {"sessions": 0, "served": 1, "sdk_loaded": True}
        assert "request store" in (tmp_path / "daemon.log").read_text()
    finally:
        assert daemon.stop() == 0
    assert json.loads((home / "daemon-state.json").read_text())[STATE_KEY] > 0


def test_the_sdk_is_loaded_at_start_only_where_mcp_was_used_lately(env: dict[str, str], home: Path,
                                                                   tmp_path: Path) -> None:
    daemon = DaemonProc(env, tmp_path / "daemon.log").start()
    try:
        assert daemon.info()["mcp"]["sdk_loaded"] is False and not loaded_sdk(daemon.proc.pid)
        assert session(env, lambda c: call(c, "memory_hot"))["hot"]  # the first session loads it
        assert daemon.info()["mcp"]["sdk_loaded"] is True
    finally:
        assert daemon.stop() == 0
    daemon = DaemonProc(env, tmp_path / "daemon.log").start()  # an MCP session was served lately: preloaded
    try:
        eventually(lambda: daemon.info()["mcp"]["sdk_loaded"], timeout=60)
    finally:
        assert daemon.stop() == 0
    (home / "config.toml").write_text('[mcp]\npreload = "never"\n')
    daemon = DaemonProc(env, tmp_path / "daemon.log").start()
    try:
        daemon.info()
        assert daemon.info()["mcp"]["sdk_loaded"] is False and not loaded_sdk(daemon.proc.pid)
    finally:
        assert daemon.stop() == 0


def test_a_session_outlives_the_daemon_stopping_under_it(env: dict[str, str], tmp_path: Path) -> None:
    daemon = DaemonProc(env, tmp_path / "daemon.log").start()

    async def body(client: ClientSession) -> tuple[Any, ...]:
        stored = await call(client, "memory_store", text="The spare key is under the blue flowerpot")
        first = (await call(client, "memory_status"))["daemon"]
        assert daemon.stop() == 0  # the session's socket closes under the bridge
        found = await call(client, "memory_search", query="spare key flowerpot")
        after = (await call(client, "memory_status"))["daemon"]
        tools = await client.list_tools()
        return stored, first, found, after, len(tools.tools)

    stored, first, found, after, n_tools = session(env, body)
    assert first["mcp"]["sessions"] == 1 and after is None  # served here once the daemon was gone
    assert found["results"][0]["id"] == stored["entry"]["id"] and n_tools == 12  # memory_review among them


def test_attach_refusals_leave_the_client_served_in_process(env: dict[str, str], tmp_path: Path) -> None:
    daemon = DaemonProc(env, tmp_path / "daemon.log").start()
    held: list[socket.socket] = []
    try:
        refused = attach(env, "../etc")
        assert refused["ok"] is False and "agent" in refused["error"]["message"]
        for _ in range(MAX_SESSIONS):  # the daemon's sessions are full
            sock = socket.socket(socket.AF_UNIX)
            sock.connect(env["MEMORYD_SOCKET"])
            sock.sendall(b'{"op": "mcp_attach", "params": {"agent_id": "default"}}\n')
            assert json.loads(sock.makefile("rb").readline())["ok"] is True
            held.append(sock)
        eventually(lambda: daemon.info()["mcp"]["sessions"] == MAX_SESSIONS)
        assert "16 MCP sessions" in attach(env, "default")["error"]["message"]
        raw = Raw(env)
        raw.start()
        status = raw.tool("memory_status")  # the operation still runs in the daemon, the session does not
        log_tail = (tmp_path / "daemon.log").read_text()[-3000:]
        assert status["daemon"]["mcp"]["sessions"] == MAX_SESSIONS, log_tail
        assert loaded_sdk(raw.proc.pid)
        assert raw.close() == 0
    finally:
        for sock in held:
            sock.close()
        assert daemon.stop() == 0


def attach(env: dict[str, str], agent: str) -> dict[str, Any]:
    with socket.socket(socket.AF_UNIX) as sock:
        sock.connect(env["MEMORYD_SOCKET"])
        sock.sendall(json.dumps({"op": "mcp_attach", "params": {"agent_id": agent}}).encode() + b"\n")
        return json.loads(sock.makefile("rb").readline())


def test_requests_the_daemon_took_with_it_get_an_error_and_initialize_is_replayed() -> None:
    lines, rest = _split(b'{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}\n'
                         b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n'
                         b'{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{}}\n'
                         b'{"jsonrpc":"2.0","id":7,"method":"tools/list"}\n{"jsonrpc":"2.0","id":8,')
    assert len(lines) == 4 and rest == b'{"jsonrpc":"2.0","id":8,'
    s = _Session()
    s.client_line(lines[0])
    assert s.lost_answers() == []  # an unanswered initialize is replayed, not failed
    assert s.handover(b"").drop_reply_to is None
    s.server_line(b'{"jsonrpc":"2.0","id":0,"result":{}}\n')
    for line in lines[1:]:
        s.client_line(line)
    s.server_line(b'{"jsonrpc":"2.0","id":7,"result":{"tools":[]}}\n')
    s.server_line(b'{"jsonrpc":"2.0","id":"a","method":"ping"}\n')  # a request from the server answers nothing
    answers = [json.loads(x) for x in s.lost_answers()]
    assert [a["id"] for a in answers] == ["a"] and answers[0]["error"]["message"] == LOST
    handover = s.handover(rest)
    assert handover.replay == lines[:2] and handover.drop_reply_to == 0 and handover.unread == rest


def test_the_client_process_exits_when_its_client_goes(env: dict[str, str], tmp_path: Path) -> None:
    daemon = DaemonProc(env, tmp_path / "daemon.log").start()
    try:
        raw = Raw(env)
        raw.start()
        assert raw.close() == 0
        eventually(lambda: daemon.info()["mcp"]["sessions"] == 0)
        assert os.path.exists(env["MEMORYD_SOCKET"])
    finally:
        assert daemon.stop() == 0


def test_lone_surrogate_escapes_become_the_replacement_character() -> None:
    from memoryd.daemon.mcp_lines import fix_lone_surrogates as fix

    assert fix(r'{"q": "tea \ud800 x"}') == r'{"q": "tea \ufffd x"}'
    assert fix(r'{"q": "\ud83d\ude00 and \ude00 and \ud83d"}') == r'{"q": "\ud83d\ude00 and \ufffd and \ufffd"}'
    assert fix(r'{"q": "\\ud800 is a backslash and text"}') == r'{"q": "\\ud800 is a backslash and text"}'
    assert fix(r'{"q": "\\\ud800"}') == r'{"q": "\\\ufffd"}'
    assert fix('{"q": "plain"}') == '{"q": "plain"}'
