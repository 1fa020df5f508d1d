"""LLM mode against a real local HTTP server playing the LLM: valid JSON, garbage, errors, timeouts."""
from __future__ import annotations

import json
import time
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any, Iterator

import pytest
from click.testing import CliRunner

from llm_server import serving
from memoryd.sync.llm import HttpLLM, llm_from_config
from memoryd.tiers.base.errors import ConfigError, RemoteError
from memoryd.tiers.distillation.llm_prompts import (distill_llm, distill_prompt, parse_distill_answer, parse_json_answer,
                                       parse_tree_answer, tree_search_llm, tree_search_prompt)

GOOD_DISTILL = {"fact": "User chose raw JSON-RPC for BSC", "emotion": "Determined", "people": ["User"],
                "topics": ["Blockchain"], "actions": ["chose raw JSON-RPC"], "outcome": "positive",
                "urls": ["https://invented.example.com"], "commands": [], "paths": []}


class FakeLLM:
    """The answers the local server gives, per path; `requests` records what memoryd sent."""

    def __init__(self) -> None:
        self.answer: str = json.dumps(GOOD_DISTILL)
        self.requests: list[dict[str, Any]] = []


def _handler(state: FakeLLM) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def _send(self, code: int, body: bytes, ctype: str = "application/json") -> None:
            try:
                self.send_response(code)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (timeout test)

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            state.requests.append({"path": self.path, "body": body, "auth": self.headers.get("Authorization")})
            path = self.path.split("?")[0]
            if path == "/slow/complete":
                time.sleep(1.5)
                return self._send(200, b'{"text": "late"}')
            if path == "/err/complete":
                return self._send(500, b'{"error": "boom"}')
            if path == "/html/complete":
                return self._send(200, b"<html>not json</html>", "text/html")
            if path.endswith("/chat/completions"):
                msg = {"choices": [{"index": 0, "message": {"role": "assistant", "content": state.answer}}]}
                return self._send(200, json.dumps(msg).encode())
            if path == "/ollama/api/generate":
                return self._send(200, json.dumps({"response": state.answer, "done": True}).encode())
            return self._send(200, json.dumps({"text": state.answer}).encode())

    return Handler


@pytest.fixture
def fake() -> Iterator[tuple[FakeLLM, str]]:
    state = FakeLLM()
    with serving(_handler(state)) as base:
        yield state, base


def test_endpoint_kinds() -> None:
    assert HttpLLM("http://h:8080/v1").url == "http://h:8080/v1/chat/completions"
    assert HttpLLM("http://h:8080/v1/").kind == "chat"
    assert HttpLLM("https://h/api/v1/chat/completions").url == "https://h/api/v1/chat/completions"
    assert HttpLLM("http://localhost:8080/complete").kind == "plain"
    for bad in ("ftp://h/x", "localhost:8080", "", "http:///nohost", "http://[::1/v1", "http://127.0.0.1:99999/v1"):
        with pytest.raises(ConfigError):
            HttpLLM(bad)


def test_chat_completions(fake) -> None:
    state, base = fake
    state.answer = "hello"
    llm = HttpLLM(base + "/v1", model="qwen2.5", api_key="k-123")
    assert llm.complete("say hello") == "hello"
    req = state.requests[-1]
    assert req["path"] == "/v1/chat/completions"
    assert req["body"]["model"] == "qwen2.5"
    assert req["body"]["messages"] == [{"role": "user", "content": "say hello"}]
    assert req["auth"] == "Bearer k-123"
    assert "k-123" not in repr(llm)


@pytest.mark.parametrize("path", ["/complete", "/ollama/api/generate"])
def test_plain_completion_shapes(fake, path: str) -> None:
    state, base = fake
    state.answer = "plain answer"
    assert HttpLLM(base + path).complete("p") == "plain answer"
    assert state.requests[-1]["body"]["prompt"] == "p"


def test_timeout_is_a_remote_error_and_fast(fake) -> None:
    _, base = fake
    start = time.monotonic()
    with pytest.raises(RemoteError, match="timed out after 0.3s"):
        HttpLLM(base + "/slow/complete").complete("p", timeout=0.3)
    assert time.monotonic() - start < 1.2


def test_http_error_message_has_no_secrets(fake) -> None:
    _, base = fake
    host = base.split("://")[1]
    with pytest.raises(RemoteError) as info:
        HttpLLM(f"http://user:hunter2@{host}/err/complete?token=abc123").complete("p")
    msg = str(info.value)
    assert "HTTP 500" in msg and "hunter2" not in msg and "abc123" not in msg
    assert info.value.transient is True


def test_unreachable_and_garbage_response(fake) -> None:
    _, base = fake
    with pytest.raises(RemoteError, match="unreachable"):
        HttpLLM("http://127.0.0.1:9/complete").complete("p", timeout=2)
    with pytest.raises(RemoteError, match="cannot read"):
        HttpLLM(base + "/html/complete").complete("p")


def test_distill_llm_valid_answer_reattaches_verbatim_items(fake) -> None:
    state, base = fake
    state.answer = "Sure! Here is the JSON:\n```json\n" + json.dumps(GOOD_DISTILL) + "\n```\nHope it helps."
    text = "User chose raw JSON-RPC for BSC, see https://docs.bnbchain.org/rpc and run `pip install web3` in ./venv/bin"
    d = distill_llm(text, HttpLLM(base + "/v1"))
    assert d["mode"] == "llm" and "warning" not in d
    assert d["fact"] == "User chose raw JSON-RPC for BSC"
    assert d["emotion"] == "determined" and d["topics"] == ["blockchain"]
    assert d["urls"] == ["https://docs.bnbchain.org/rpc"]  # dropped one re-attached, invented one removed
    assert d["commands"] == ["pip install web3"]
    assert d["paths"] == ["./venv/bin"]
    assert "https://docs.bnbchain.org/rpc" in state.requests[-1]["body"]["messages"][0]["content"]


@pytest.mark.parametrize("answer", ["I cannot help with that.", "{not json", '{"emotion": "happy"}', "[1, 2]", ""])
def test_distill_llm_garbage_falls_back_to_rules(fake, answer: str) -> None:
    state, base = fake
    state.answer = answer
    d = distill_llm("Deployed v2 to https://prod.example.com", HttpLLM(base + "/complete"))
    assert d["mode"] == "rule" and "used rule mode" in d["warning"]
    assert d["urls"] == ["https://prod.example.com"]


def test_distill_llm_timeout_falls_back(fake) -> None:
    _, base = fake
    d = distill_llm("Fixed the crash", HttpLLM(base + "/slow/complete"), timeout=0.3)
    assert d["mode"] == "rule" and "timed out" in d["warning"]


def test_parse_json_answer_variants() -> None:
    assert parse_json_answer('noise {"a": 1} trailing') == {"a": 1}
    assert parse_json_answer("```\n[1, 2]\n```") == [1, 2]
    assert parse_json_answer('{"a": {bad} then {"b": 2}', dict) == {"b": 2}
    with pytest.raises(ValueError):
        parse_json_answer("no json at all")
    with pytest.raises(ValueError):
        parse_distill_answer('{"fact": ""}', "text")


NODES = {"projects": ["Projects", 20000], "projects/evoclaw": ["EvoClaw framework", 20000],
         "projects/evoclaw/bsc": ["BSC integration", 20000], "technical/deployment": ["Deploys", 20000]}


def test_tree_search_prompt_matches_seed_template() -> None:
    p = tree_search_prompt(NODES, "What did we decide about the   hackathon deadline?",
                           counts={"projects/evoclaw": {"warm": 6, "cold": 45}}, extra=["active_context/events"])
    assert p.startswith("You are a memory retrieval system.")
    assert "projects/evoclaw — EvoClaw framework (warm:6, cold:45)" in p
    assert "projects/evoclaw/bsc — BSC integration" in p
    assert "active_context/events — hot memory" in p
    assert "User Query: What did we decide about the hackathon deadline?" in p


def test_parse_tree_answer_filters_and_clamps() -> None:
    answer = ('Reasoning... [{"path": "projects/evoclaw/bsc", "relevance": 0.95, "reason": "BSC work"},'
              '{"path": "/technical/deployment/", "relevance": "high"},'
              '{"path": "made/up", "relevance": 0.9}, {"path": "projects", "relevance": 7},'
              '"projects/evoclaw", {"no": "path"}]')
    got = parse_tree_answer(answer, NODES)
    assert got == [{"path": "projects", "relevance": 1.0, "reason": ""},
                   {"path": "projects/evoclaw/bsc", "relevance": 0.95, "reason": "BSC work"},
                   {"path": "projects/evoclaw", "relevance": 0.5, "reason": ""},
                   {"path": "technical/deployment", "relevance": 0.5, "reason": ""}]
    assert parse_tree_answer('{"paths": [{"path": "projects", "relevance": 0.4}]}', NODES)[0]["relevance"] == 0.4
    with pytest.raises(ValueError):
        parse_tree_answer("none of them", NODES)


def test_tree_search_llm_success_and_fallbacks(fake) -> None:
    state, base = fake
    llm = HttpLLM(base + "/v1")
    state.answer = json.dumps([{"path": "projects/evoclaw/bsc", "relevance": 0.9, "reason": "r"}])
    paths, warning = tree_search_llm(NODES, "bsc", llm)
    assert warning is None and paths == [{"path": "projects/evoclaw/bsc", "relevance": 0.9, "reason": "r"}]
    assert "projects/evoclaw/bsc — BSC integration" in state.requests[-1]["body"]["messages"][0]["content"]
    state.answer = "garbage"
    assert tree_search_llm(NODES, "bsc", llm)[0] is None
    state.answer = '[{"path": "nope"}]'
    paths, warning = tree_search_llm(NODES, "bsc", llm)
    assert paths is None and "no known category" in warning  # type: ignore[operator]
    paths, warning = tree_search_llm(NODES, "bsc", HttpLLM(base + "/slow/complete"), timeout=0.3)
    assert paths is None and "timed out" in warning  # type: ignore[operator]


def test_llm_from_config(config) -> None:
    assert llm_from_config(config) is None
    llm = llm_from_config(config.with_(llm_endpoint="http://127.0.0.1:1/v1", llm_api_key="secret-value",
                                       sections={"llm": {"model": "m1", "api_key_env": "MY_KEY"}}))
    assert llm is not None and llm.model == "m1" and llm.kind == "chat"
    assert "secret-value" not in repr(llm)


# --- the distill command in llm mode ----------------------------------------------------------

def test_cli_distill_llm_sends_only_redacted_text(fake, home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from memoryd.cli.main import cli

    state, base = fake
    monkeypatch.setenv("MEMORYD_LLM_ENDPOINT", base + "/v1")
    res = CliRunner().invoke(cli, ["distill", "--mode", "llm", "--json", "--text",
                                   "User chose raw JSON-RPC for BSC; token=abc123secret"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert out["mode"] == "llm" and out["fact"] == "User chose raw JSON-RPC for BSC"
    sent = state.requests[-1]["body"]["messages"][0]["content"]
    assert "abc123secret" not in sent and "[REDACTED:secret]" in sent


def test_cli_distill_llm_garbage_warns_and_uses_rules(fake, home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from memoryd.cli.main import cli

    state, base = fake
    state.answer = "no idea"
    monkeypatch.setenv("MEMORYD_LLM_ENDPOINT", base + "/complete")
    res = CliRunner().invoke(cli, ["distill", "--mode", "llm", "--json", "--text", "Deployed to https://a.example"])
    assert res.exit_code == 0
    assert json.loads(res.stdout)["mode"] == "rule"
    assert "warning: LLM distillation failed" in res.stderr


def test_cli_distill_llm_without_endpoint_and_prompt_file(home: Path, tmp_path: Path) -> None:
    from memoryd.cli.main import cli

    res = CliRunner().invoke(cli, ["distill", "--mode", "llm", "--text", "x"])
    assert res.exit_code == 2 and "MEMORYD_LLM_ENDPOINT" in res.stderr
    prompt = tmp_path / "prompt.txt"
    res = CliRunner().invoke(cli, ["distill", "--mode", "llm", "--text", "see password=hunter2x",
                                   "--llm-prompt-file", str(prompt)])
    assert res.exit_code == 0 and res.stdout == ""
    text = prompt.read_text()
    assert text == distill_prompt("see password=[REDACTED:password]") and "hunter2x" not in text
