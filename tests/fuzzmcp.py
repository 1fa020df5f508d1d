"""The MCP side of the fuzz suite: one real `memoryd mcp` session on a sandbox, fed generated tool calls."""
from __future__ import annotations

import json
import os
import select
import subprocess
import sys
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from fuzzlib import Sandbox, Tally, changed
from memoryd.daemon.mcp_tools import TOOLS

ANSWER_WITHIN = 60.0
INIT = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "fuzz", "version": "0"}}
JSON_LEAF = st.one_of(st.none(), st.booleans(), st.integers(-10**20, 10**20), st.floats(allow_nan=False),
                      st.text(max_size=300), st.sampled_from(["", " ", "../../etc/passwd", "2026-02-30", "9999-01-01",
                                                              "ghp_" + "a1B2c3D4e5" * 4, "x" * 5000,
                                                              "nul\x00here", "esc\x1b[2J", "..", "../x", "a/./b"]))
JSON_VALUE = st.recursive(JSON_LEAF, lambda inner: st.lists(inner, max_size=3)
                          | st.dictionaries(st.text(max_size=8), inner, max_size=3), max_leaves=6)


@st.composite
def tool_call(draw: st.DrawFn) -> tuple[str, Any]:
    """A tool (now and then one that does not exist) and arguments: its own names with any JSON values,
    sometimes an unknown name, sometimes not an object at all."""
    name = draw(st.sampled_from([t.name for t in TOOLS] + ["memory_nope"]))
    props = next((list(t.properties) for t in TOOLS if t.name == name), ["x"])
    if draw(st.integers(0, 9)) == 0:
        return name, draw(JSON_VALUE)
    names = (st.sampled_from(props) | st.text(max_size=10)) if props else st.text(max_size=10)
    keys = draw(st.lists(names, max_size=4, unique=True))
    return name, {k: draw(JSON_VALUE) for k in keys}


class McpSession:
    """`memoryd mcp` on the sandbox's home, spoken to in JSON-RPC (in-process: no daemon runs there)."""

    def __init__(self, box: Sandbox) -> None:
        env = {k: v for k, v in os.environ.items() if not k.startswith("MEMORYD_")}
        env.update({k: v for k, v in box.env.items() if v is not None})
        env["PATH"] = os.environ.get("PATH", "")
        self.box = box
        self.log = box.root / "mcp.log"  # a file, not a pipe: warnings must never fill a pipe and block the server
        with open(self.log, "wb") as log:
            self.proc = subprocess.Popen([str(Path(sys.executable).with_name("memoryd")), "mcp"], env=env,
                                         cwd=box.cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log)
        self.next_id = 0
        self.request("initialize", INIT)
        self._send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def _send(self, msg: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(msg).encode() + b"\n")
        self.proc.stdin.flush()

    def request(self, method: str, params: Any) -> dict[str, Any] | None:
        self.next_id += 1
        self._send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        assert self.proc.stdout is not None
        while select.select([self.proc.stdout], [], [], ANSWER_WITHIN)[0]:
            line = self.proc.stdout.readline()
            if not line:
                return None  # the server died
            msg = json.loads(line)
            if msg.get("id") == self.next_id:
                return msg
        raise AssertionError(f"no answer to {method} {json.dumps(params)[:300]} within {ANSWER_WITHIN} s")

    def probe(self, tally: Tally, name: str, arguments: Any) -> list[str]:
        """One call: a crash or an internal error is a traceback; an error result must change nothing."""
        before = self.box.snapshot()
        reply = self.request("tools/call", {"name": name, "arguments": arguments})
        where = f"mcp {name} {json.dumps(arguments)[:300]}"
        if reply is None:
            return tally.record(where, 1, "the server died: " + self.close(), [])
        if "error" in reply:  # JSON-RPC level: only an unknown tool or malformed params may get here
            tb = None if reply["error"].get("code") == -32602 else f"JSON-RPC error {reply['error']}"
            return tally.record(where, 2, tb, [])
        text = reply["result"]["content"][0]["text"]
        if not reply["result"].get("isError"):
            return tally.record(where, 0, None, [])
        tb = text if text.startswith("internal error") else None
        return tally.record(where, 2, tb, changed(before, self.box.snapshot()))

    def close(self) -> str:
        if self.proc.stdin is not None and not self.proc.stdin.closed:
            try:
                self.proc.stdin.close()
            except BrokenPipeError:
                pass
        self.proc.wait(30)
        return self.log.read_text(encoding="utf-8", errors="replace")
