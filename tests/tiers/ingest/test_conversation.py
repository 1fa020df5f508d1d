"""Conversation-end distillation on a generated 200-turn conversation (English and Chinese), rule and LLM mode."""
from __future__ import annotations

from memoryd.tiers.retrieval import analyzer

import json
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer

import pytest

from conversation_gen import generate
from memoryd.tiers.memory.agent import AgentMemory
from memoryd.tiers.ingest.conversation import distill_segment, turn_id
from memoryd.tiers.ingest.openclaw.events import EventParser, Parsed


def _turns(conv) -> list:
    p, out = EventParser("gen-session"), Parsed()
    for i, e in enumerate(conv.events):
        p.feed(e, i, 0.0, out)
    return out.turns


@pytest.fixture
def mem(config, archive):
    return AgentMemory(config, "main", archive=archive)


def test_200_turns_few_warm_facts_all_seeds_found_every_turn_in_cold(mem, archive) -> None:
    conv = generate(200)
    turns = _turns(conv)
    assert len(turns) == conv.turns == 200
    report = distill_segment(mem, turns)
    state = mem.read_state()
    warm = state["warm"]["entries"]
    assert 0 < len(warm) <= len(turns) / 5, len(warm)
    texts = [e["text"] for e in warm]
    for kind, said, _ in conv.seeds:  # every seeded decision/preference/... is a warm fact of its own
        if kind in ("decision", "preference", "lesson", "task", "event", "personal"):
            assert any(said[:25] in t for t in texts), (kind, said)
    assert not any(t.startswith(("HEARTBEAT", "NO_REPLY", "[[")) for t in texts)
    # every turn is in cold, findable by its own words — but filler (issue 21: "Thanks!" is kept nowhere)
    from memoryd.tiers.knowledge.lowvalue import is_low_value

    kept = [t for t in turns if not is_low_value(t.text, t.role)]
    assert 0 < len(kept) < len(turns)
    ids = {turn_id(t.session_id, t.role, t.text) for t in kept}
    assert len(archive.get("main", sorted(ids))) == len(ids) == report["cold"]
    filler = {turn_id(t.session_id, t.role, t.text) for t in turns if is_low_value(t.text, t.role)}
    assert filler and not archive.get("main", sorted(filler))
    for t in kept[::7]:
        hits = archive.search("main", analyzer.query_terms(t.text), limit=50)
        assert turn_id(t.session_id, t.role, t.text) in {h["id"] for h in hits}, t.text
    for hit in archive.get("main", sorted(ids))[:5]:
        assert {"session_id", "role", "time", "seq"} <= set(hit["metadata"])


def test_hot_is_updated_only_where_the_turn_is_explicit(mem) -> None:
    distill_segment(mem, _turns(generate(200)))
    hot = mem.read_state()["hot"]
    tasks = [t["text"] for t in hot["active_context"]["tasks"]]
    events = [e["text"] for e in hot["active_context"]["events"]]
    lessons = [x["text"] for x in hot["critical_lessons"]]
    assert any("invoice to Contoso" in t and "2026-12-05" in t for t in tasks)
    assert any("续订域名" in t for t in tasks)
    assert any("board meeting" in e for e in events)
    assert len(lessons) == 2 and any("Terraform" in x for x in lessons)
    assert hot["owner_profile"]["urgent contact"].startswith("For anything urgent")
    assert "早上开会" in hot["owner_profile"]["meeting hours"]
    # consolidation never turns the rest into "critical lessons"
    from memoryd.tiers.memory.consolidate import consolidate

    consolidate(mem, "quick")
    assert len(mem.read_state()["hot"]["critical_lessons"]) == 2


def test_same_segment_twice_adds_nothing(mem, archive) -> None:
    turns = _turns(generate(60, seed=3))
    distill_segment(mem, turns)
    before = (mem.read_state()["warm"]["entries"], archive.count("main"))
    distill_segment(mem, turns)
    after = mem.read_state()["warm"]["entries"]
    assert len(after) == len(before[0]) and archive.count("main") == before[1]


class _FakeLLM(BaseHTTPRequestHandler):
    answer = "[]"
    prompts: list[str] = []

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        _FakeLLM.prompts.append(body["messages"][0]["content"])
        data = json.dumps({"choices": [{"message": {"content": _FakeLLM.answer}}]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *a) -> None:
        pass


@pytest.fixture
def llm_server():
    server = HTTPServer(("127.0.0.1", 0), _FakeLLM)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    server.server_close()


def test_llm_mode_uses_the_answer_and_falls_back_to_rules(mem, llm_server) -> None:
    from memoryd.sync.llm import HttpLLM

    turns = _turns(generate(40, seed=5))
    first_user = next(i for i, t in enumerate(turns) if t.role == "user")
    _FakeLLM.answer = "```json\n" + json.dumps([
        {"turn": first_user, "kind": "preference", "text": "The owner likes window seats on flights.", "importance": 0.9},
        {"turn": 999, "kind": "decision", "text": "out of range"}, {"kind": "nonsense", "turn": 0, "text": "x"},
    ]) + "\n```"
    report = distill_segment(mem, turns, llm=HttpLLM(llm_server))
    warm = mem.read_state()["warm"]["entries"]
    assert [e["text"] for e in warm] == ["The owner likes window seats on flights."]
    assert "HEARTBEAT_OK" not in _FakeLLM.prompts[-1] and "[[reply_to_current]]" not in _FakeLLM.prompts[-1]
    assert report["warnings"] == []
    _FakeLLM.answer = "I cannot help with that."
    report = distill_segment(mem, _turns(generate(200)), llm=HttpLLM(llm_server))
    assert report["warnings"] and "used rule mode" in report["warnings"][0]
    assert len(mem.read_state()["warm"]["entries"]) > 5
