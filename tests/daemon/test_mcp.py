"""`memoryd mcp` as a real subprocess, driven by the MCP SDK's own stdio client and by the MCP Inspector (npm).

With and without the real daemon running; bad arguments get an error naming the field and change nothing.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Awaitable, Callable

import anyio
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.shared.exceptions import MCPError

from mcp_inspector import NoInspector, inspector_bin
from clihelp import snapshot
from test_daemon_process import DaemonProc
from waiting import eventually

MEMORYD = str(Path(sys.executable).parent / "memoryd")
TOOLS = {"memory_search", "memory_store", "memory_forget", "memory_forget_recent", "memory_hot", "memory_lesson",
         "memory_task", "memory_event", "memory_status", "memory_sync", "memory_flush", "memory_review"}
TOKEN = "ghp_" + "a1B2c3D4e5" * 4  # a GitHub token: must never be stored


@pytest.fixture
def env(home: Path) -> dict[str, str]:
    sock_dir = Path(tempfile.mkdtemp(prefix="mcp-", dir="/tmp"))  # sun_path is short; tmp_path is not
    e = dict(os.environ, MEMORYD_SOCKET=str(sock_dir / "d.sock"), MEMORYD_LOG_LEVEL="DEBUG", PYTHONUNBUFFERED="1")
    e.pop("NOTIFY_SOCKET", None)
    subprocess.run([MEMORYD, "init"], env=e, check=True, capture_output=True, timeout=60)
    yield e
    shutil.rmtree(sock_dir, ignore_errors=True)


def session(env: dict[str, str], body: Callable[[ClientSession], Awaitable[Any]], *args: str) -> Any:
    """Start `memoryd mcp` as a subprocess, initialize with the SDK's client, run `body`, close."""
    async def main() -> Any:
        params = StdioServerParameters(command=MEMORYD, args=["mcp", *args], env=env)
        async with stdio_client(params) as (read, write), ClientSession(read, write) as client:
            await client.initialize()
            return await body(client)

    return anyio.run(main)


async def call(client: ClientSession, tool: str, **arguments: Any) -> dict[str, Any]:
    result = await client.call_tool(tool, arguments)
    assert not result.is_error, result.content[0].text
    return json.loads(result.content[0].text)


async def error(client: ClientSession, tool: str, **arguments: Any) -> str:
    result = await client.call_tool(tool, arguments)
    assert result.is_error, result.content[0].text
    return result.content[0].text


async def walkthrough(client: ClientSession) -> dict[str, Any]:
    """Every tool and resource once, as an agent would use them; returns what the test checks."""
    seen: dict[str, Any] = {"tools": (await client.list_tools()).tools}
    stored = await call(client, "memory_store", text=f"Alice prefers green tea; her token is {TOKEN}",
                        category="people/alice", importance=0.7)
    seen["stored"] = stored["entry"]
    seen["search"] = await call(client, "memory_search", query="green tea", limit=5)
    seen["lesson"] = await call(client, "memory_lesson", text="Run the tests before pushing")
    await call(client, "memory_task", text="Send the invoice to ACME")
    seen["done"] = await call(client, "memory_task", text="Send the invoice to ACME", status="done")
    await call(client, "memory_event", text="Released v2.1 on 2026-03-02")
    seen["hot"] = await call(client, "memory_hot")
    seen["memory_md"] = (await client.read_resource("memory://default/MEMORY.md")).contents[0].text
    seen["tree"] = (await client.read_resource("memory://default/tree")).contents[0].text
    seen["forget"] = await call(client, "memory_forget", id=stored["entry"]["id"])
    seen["search_after"] = await call(client, "memory_search", query="green tea")
    seen["status"] = await call(client, "memory_status")
    seen["sync"] = await call(client, "memory_sync", force=True)
    seen["forget_recent"] = await call(client, "memory_forget_recent", days=1)
    seen["hot_after"] = await call(client, "memory_hot")
    return seen


def check_walkthrough(seen: dict[str, Any]) -> None:
    tools = {t.name: t for t in seen["tools"]}
    assert set(tools) == TOOLS
    for t in tools.values():
        assert t.description and "\n" not in t.description
        assert t.input_schema["type"] == "object" and t.input_schema["additionalProperties"] is False
    assert TOKEN not in json.dumps(seen, default=str) and "[REDACTED" in seen["stored"]["text"]
    top = seen["search"]["results"][0]
    assert top["id"] == seen["stored"]["id"] and top["tier"] == "warm" and top["rank"] == 1
    assert top["date"] == time.strftime("%Y-%m-%d", time.gmtime(seen["stored"]["created_at"])) and top["reason"]
    assert seen["done"]["item"]["status"] == "done"
    hot = seen["hot"]["hot"]
    assert [x["text"] for x in hot["critical_lessons"]] == ["Run the tests before pushing"]
    assert [t["status"] for t in hot["active_context"]["tasks"]] == ["done"]
    assert "Run the tests before pushing" in seen["memory_md"] and "people/alice" in seen["tree"]
    assert seen["forget"]["removed"]["warm"] == 1 and "1 from warm" in seen["forget"]["summary"]
    assert seen["stored"]["id"] not in json.dumps(seen["search_after"])
    assert seen["status"]["agents"][0]["agent_id"] == "default"
    assert seen["sync"]["status"] in ("pushed", "unchanged", "merged")
    assert seen["forget_recent"]["removed"]["hot"] == 3 and "from hot" in seen["forget_recent"]["summary"]
    assert seen["hot_after"]["hot"]["critical_lessons"] == []


def test_tools_in_process_without_daemon(env: dict[str, str]) -> None:
    seen = session(env, walkthrough)
    check_walkthrough(seen)
    assert seen["status"]["daemon"] is None


def test_tools_through_the_running_daemon(env: dict[str, str], home: Path, tmp_path: Path) -> None:
    rendered = tmp_path / "CLAUDE.md"
    rendered.write_text("# my rules\n")
    (home / "config.toml").write_text(f'[render]\ntargets = ["file:{rendered}"]\n')
    daemon = DaemonProc(env, tmp_path / "daemon.log").start()
    try:
        # the start-up catch-up consolidates the never-consolidated agent: let it end before the walkthrough,
        # or it may promote the stored fact to hot mid-way (the first heartbeat ends after it)
        eventually(lambda: daemon.info()["heartbeats"] >= 1, what="the daemon's start-up catch-up done")
        seen = session(env, walkthrough)
        check_walkthrough(seen)
        assert seen["status"]["daemon"]["pid"] == daemon.proc.pid
        log = (tmp_path / "daemon.log").read_text()
        for op in ("store", "retrieve", "hot_change", "hot_show", "tree_show", "forget"):  # the daemon did them
            assert f"request {op}" in log, op
        # the daemon re-rendered the configured harness file after each hot change, the forget included
        text = rendered.read_text()
        assert text.startswith("# my rules\n") and "memoryd:begin agent=default" in text
        assert "Run the tests before pushing" not in text and "Released v2.1" not in text
        session(env, lambda c: call(c, "memory_lesson", text="Check the daemon's render"))
        assert "Check the daemon's render" in rendered.read_text()
        from memoryd.daemon.api import OPERATIONS as OPS

        if "flush" not in OPS:  # the daemon answers "unknown operation"; the server falls back, then says so
            message = session(env, lambda c: error(c, "memory_flush", session="/nonexistent/session.jsonl"))
            assert message == "flush is not available in this version" and "request flush" in (
                tmp_path / "daemon.log").read_text()
    finally:
        assert daemon.stop() == 0


BAD_CALLS = [  # (tool, arguments, words the error must contain)
    ("memory_search", {"query": "tea", "limit": "ten"}, ["'limit'", "integer"]),
    ("memory_search", {"query": "tea", "limit": 2.5}, ["'limit'", "whole number"]),
    ("memory_search", {"query": "tea", "limit": 0}, ["'limit'", "1 to 50"]),
    ("memory_search", {"query": 42}, ["'query'", "string"]),
    ("memory_search", {"query": "tea", "since": "yesterday"}, ["'since'", "YYYY-MM-DD"]),
    ("memory_search", {"since": "2026-03-05", "until": "2026-03-01"}, ["'since'", "after"]),
    ("memory_search", {}, ["'query'"]),
    ("memory_search", {"query": "tea", "agent_id": "other"}, ["'agent_id'", "unknown argument"]),
    ("memory_store", {"category": "notes"}, ["'text'", "missing"]),
    ("memory_store", {"text": "x" * 5000}, ["'text'", "5000 characters", "4096"]),
    ("memory_store", {"text": "x" * 2_000_000}, ["'text'", "2000000 characters"]),
    ("memory_store", {"text": "ä" * 3000}, ["text", "6000 bytes"]),
    ("memory_store", {"text": "fact", "importance": "high"}, ["'importance'", "number"]),
    ("memory_store", {"text": "fact", "importance": 2}, ["'importance'", "0 to 1"]),
    ("memory_store", {"text": "fact", "category": "a b//c"}, ["'category'", "path"]),
    ("memory_store", {"text": "   "}, ["'text'", "empty"]),
    ("memory_forget", {"id": "no-such-id"}, ["no memory with id 'no-such-id'"]),
    ("memory_forget_recent", {"days": -1}, ["'days'", "above 0"]),
    ("memory_forget_recent", {"days": "all"}, ["'days'", "number"]),
    ("memory_lesson", {"text": "y" * 301}, ["'text'", "300"]),
    ("memory_task", {"text": "t", "status": ["done"]}, ["'status'", "string"]),
    ("memory_sync", {"force": "yes"}, ["'force'", "true or false"]),
]


def test_bad_arguments_name_the_field_and_change_nothing(env: dict[str, str], home: Path) -> None:
    before = snapshot(home)

    async def body(client: ClientSession) -> list[tuple[str, str]]:
        out = [(tool, await error(client, tool, **args)) for tool, args, _ in BAD_CALLS]
        with pytest.raises(MCPError) as unknown:
            await client.call_tool("memory_explode", {})
        out.append(("unknown", f"{unknown.value.error.code} {unknown.value.error.message}"))
        with pytest.raises(MCPError, match="unknown resource"):
            await client.read_resource("memory://other/MEMORY.md")
        out.append(("alive", json.dumps(await call(client, "memory_hot"))))  # the server lives on
        return out

    answers = session(env, body)
    for (tool, args, words), (_, message) in zip(BAD_CALLS, answers):
        assert all(w in message for w in words), (tool, args, message)
        assert "\n" not in message and len(message) < 300
    assert answers[-2][1].startswith("-32602 unknown tool 'memory_explode'")
    assert snapshot(home) == before  # nothing stored, nothing half-written


def test_flush_says_clearly_when_this_version_has_none(env: dict[str, str]) -> None:
    from memoryd.daemon.api import OPERATIONS as OPS

    message = session(env, lambda c: error(c, "memory_flush", session="/nonexistent/session.jsonl"))
    if "flush" in OPS:  # the conversation-flush operation is installed: a missing file is named
        assert "/nonexistent/session.jsonl" in message
    else:
        assert message == "flush is not available in this version"


@pytest.mark.parametrize("args, config, message", [
    (["--agent-id", "../x"], "", "invalid agent id '../x'"),
    ([], '[mcp]\nagent = "has space"\n', "invalid agent id 'has space'"),
])
def test_invalid_agent_id_exits_2(env: dict[str, str], home: Path, args: list[str], config: str, message: str) -> None:
    (home / "config.toml").write_text(config)
    r = subprocess.run([MEMORYD, "mcp", *args], env=env, input="", capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and r.stdout == "" and message in r.stderr


def test_configured_agent_scopes_the_server(env: dict[str, str], home: Path) -> None:
    (home / "config.toml").write_text('[mcp]\nagent = "work"\n')

    async def body(client: ClientSession) -> Any:
        await call(client, "memory_store", text="Quarterly report is due in May", category="reports")
        return [r.uri for r in (await client.list_resources()).resources]

    assert session(env, body) == ["memory://work/MEMORY.md", "memory://work/tree"]
    assert (home / "agents" / "work" / "warm-memory.json").exists()
    assert "Quarterly" not in (home / "agents" / "default" / "warm-memory.json").read_text()


def inspect(env: dict[str, str], *args: str) -> tuple[int, Any]:
    """One `mcp-inspector --cli` run against `memoryd mcp`: (exit code, its JSON output)."""
    try:
        (script, node_dir), missing = inspector_bin(), ""
    except NoInspector as exc:
        missing = str(exc)
    if missing:  # one line saying what to install, not a traceback
        pytest.fail(missing, pytrace=False)
    server_env = [f"-e{k}={env[k]}" for k in ("MEMORYD_HOME", "MEMORYD_WORKSPACE", "MEMORYD_SOCKET")]
    run_env = dict(env, PATH=f"{node_dir}{os.pathsep}{env['PATH']}", HOME=str(Path(env["MEMORYD_HOME"]).parent))
    r = subprocess.run([str(script), "--cli", *server_env, MEMORYD, "mcp", *args], env=run_env,
                       capture_output=True, text=True, timeout=120)
    return r.returncode, json.loads(r.stdout or r.stderr or "null")


def test_the_mcp_inspector_drives_the_server(env: dict[str, str]) -> None:
    code, listed = inspect(env, "--method", "tools/list")
    assert code == 0 and {t["name"] for t in listed["tools"]} == TOOLS
    code, stored = inspect(env, "--method", "tools/call", "--tool-name", "memory_store",
                           "--tool-arg", "text=Bob's birthday is on 12 May", "category=people/bob")
    assert code == 0 and stored["structuredContent"]["entry"]["category"] == "people/bob"
    code, found = inspect(env, "--method", "tools/call", "--tool-name", "memory_search", "--tool-arg",
                          "query=birthday", "limit=3")
    assert code == 0 and "12 May" in found["structuredContent"]["results"][0]["text"]
    code, bad = inspect(env, "--method", "tools/call", "--tool-name", "memory_search", "--tool-arg",
                        "query=birthday", "limit=99")
    assert code != 0 and bad["isError"] and "'limit'" in bad["content"][0]["text"]
    code, md = inspect(env, "--method", "resources/read", "--uri", "memory://default/MEMORY.md")
    assert code == 0 and md["contents"][0]["text"].startswith("# MEMORY — agent default")
