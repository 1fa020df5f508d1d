"""LLM mode's re-ranking against a real local HTTP server playing the LLM: valid orders, garbage, errors, timeouts."""
from __future__ import annotations

import json
import time
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any, Iterator

import pytest
from click.testing import CliRunner

from llm_server import serving
from memoryd.cli.main import cli
from memoryd.sync.llm import HttpLLM
from memoryd.tiers.retrieval.llm_rerank import parse_rerank_answer, rerank_llm, rerank_prompt

TREE_MARK, RERANK_MARK = "Memory Tree Index", "Order the memories"


class Script:
    """What the server answers to each kind of prompt, how long it waits first, and what it was sent."""

    def __init__(self) -> None:
        self.tree = "[]"
        self.rerank: Any = "[1]"   # a string, or a function of the prompt
        self.delay = {TREE_MARK: 0.0, RERANK_MARK: 0.0}
        self.status = 200
        self.prompts: list[str] = []


def _handler(script: Script) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            prompt = body["messages"][0]["content"]
            script.prompts.append(prompt)
            kind = TREE_MARK if TREE_MARK in prompt else RERANK_MARK
            time.sleep(script.delay[kind])
            answer = script.tree if kind == TREE_MARK else script.rerank
            answer = answer(prompt) if callable(answer) else answer
            data = json.dumps({"choices": [{"message": {"role": "assistant", "content": answer}}]}).encode()
            try:
                self.send_response(script.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (timeout)

    return Handler


@pytest.fixture
def llm_server() -> Iterator[tuple[Script, str]]:
    script = Script()
    with serving(_handler(script)) as base:
        yield script, base + "/v1"


RESULTS = [{"id": f"m{i}", "text": t, "tier": "cold", "date": "2025-03-0%d" % (i + 1), "reason": "matched"}
           for i, t in enumerate(["the cat sleeps", "the dog barks", "the bird sings", "the fish swims"])]


@pytest.mark.parametrize("answer,order", [
    ("[3, 1, 2, 4]", [2, 0, 1, 3]),
    ("Sure! Here is the order:\n```json\n[2, 4]\n```", [1, 3]),
    ('{"order": ["[4]", "memory 2"]}', [3, 1]),
    ('[{"id": 3, "why": "best"}, {"number": 3}, {"index": 9}, {"memory": "1"}]', [2, 0]),
    ("[0, 7, 2, 2, true, 1.0]", [1, 0]),
])
def test_answers_are_read_defensively(answer: str, order: list[int]) -> None:
    assert parse_rerank_answer(answer, 4) == order


@pytest.mark.parametrize("garbage", ["", "I cannot help with that.", "[]", '{"order": []}', "[9, 12]", "[true]"])
def test_garbage_is_refused(garbage: str) -> None:
    with pytest.raises(ValueError):
        parse_rerank_answer(garbage, 4)


def test_the_prompt_lists_the_candidates_numbered() -> None:
    long = dict(RESULTS[0], text="word " * 200)
    prompt = rerank_prompt("which   animal barks?", [long, *RESULTS[1:]])
    assert "Query: which animal barks?" in prompt
    assert "[2] (2025-03-02, cold) the dog barks" in prompt and "[4] (2025-03-04, cold) the fish swims" in prompt
    assert len(prompt) < 1500  # a long memory is cut


def test_rerank_against_the_server(llm_server) -> None:
    script, url = llm_server
    llm = HttpLLM(url)
    script.rerank = "[2, 3]"
    ranked, warning = rerank_llm("which animal barks?", RESULTS, llm, top=3)
    assert warning is None
    assert [r["id"] for r in ranked] == ["m1", "m2", "m0", "m3"]  # named first, the rest in order, tail kept
    assert (ranked[0]["llm_rank"], ranked[0]["keyword_rank"]) == (1, 2) and "LLM put it #1" in ranked[0]["reason"]
    assert "the fish swims" not in script.prompts[-1]  # only the top 3 were sent
    script.rerank = "no idea, sorry"
    same, warning = rerank_llm("q", RESULTS, llm, top=4)
    assert same == RESULTS and "unusable answer" in warning and "kept the keyword order" in warning
    script.status = 500
    same, warning = rerank_llm("q", RESULTS, llm, top=4)
    assert same == RESULTS and "HTTP 500" in warning
    script.status, script.delay[RERANK_MARK] = 200, 1.5
    start = time.monotonic()
    same, warning = rerank_llm("q", RESULTS, llm, top=4, timeout=0.3)
    assert same == RESULTS and "timed out" in warning and time.monotonic() - start < 1.2
    calls = len(script.prompts)
    assert rerank_llm("q", RESULTS[:1], llm, top=4) == (RESULTS[:1], None) and len(script.prompts) == calls


def _cli(*args: str) -> tuple[dict, str]:
    res = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout), res.stderr


def _reverse(prompt: str) -> str:
    count = prompt.count("\n[")
    return json.dumps(list(range(count, 0, -1)))


def test_retrieve_mode_llm_reorders_and_falls_back(home: Path, llm_server, monkeypatch: pytest.MonkeyPatch) -> None:
    script, url = llm_server
    for i in range(6):
        CliRunner().invoke(cli, ["store", f"deployment note {i}: service {i} runs on port 90{i}0",
                                 "--category", "ops/deploy"], catch_exceptions=False)
    keyword, _ = _cli("retrieve", "deployment port", "--limit", "4", "--json")
    kw_ids = [r["id"] for r in keyword["results"]]
    assert len(kw_ids) == 4
    monkeypatch.setenv("MEMORYD_LLM_ENDPOINT", url)
    script.tree = '[{"path": "ops/deploy", "relevance": 0.9, "reason": "deploys"}]'
    script.rerank = _reverse
    out, _ = _cli("retrieve", "deployment port", "--limit", "4", "--mode", "llm", "--json")
    asked = [p for p in script.prompts if RERANK_MARK in p][-1]
    assert asked.count("\n[") == 6  # all six candidates (up to [retrieval] llm_rerank = 20) were offered
    ids = [r["id"] for r in out["results"]]
    assert len(ids) == 4 and ids != kw_ids and out["warnings"] == []
    assert [r["llm_rank"] for r in out["results"]] == [1, 2, 3, 4]
    assert out["results"][0]["keyword_rank"] == 6 and "tree path ops/deploy" in out["results"][0]["reason"]

    script.rerank = "The second one, I think."
    out, err = _cli("retrieve", "deployment port", "--limit", "4", "--mode", "llm", "--json")
    assert any("unusable answer" in w for w in out["warnings"]) and "llm_rank" not in out["results"][0]
    assert len(out["results"]) == 4


def test_a_slow_endpoint_costs_one_timeout_and_keyword_order(home: Path, llm_server,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    script, url = llm_server
    for i in range(3):
        CliRunner().invoke(cli, ["store", f"backup job {i} runs nightly", "--category", "ops"], catch_exceptions=False)
    (home / "config.toml").write_text("[retrieval]\nllm_timeout = 0.4\n")
    monkeypatch.setenv("MEMORYD_LLM_ENDPOINT", url)
    script.delay = {TREE_MARK: 2.0, RERANK_MARK: 2.0}
    start = time.monotonic()
    out, err = _cli("retrieve", "backup job", "--mode", "llm", "--json")
    assert time.monotonic() - start < 1.6  # the re-ranking did not wait a second time
    assert len(out["results"]) == 3 and "timed out after 0.4s" in err
    assert any("LLM re-ranking failed" in w and "timed out" in w for w in out["warnings"])
    assert len(script.prompts) == 1
