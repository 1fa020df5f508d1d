"""Every memory has a kind: inferred at store, read back from every tier, filtered on, and fading by its kind;
filler is not kept; the maintain pass re-derives one current truth (with the LLM only for close subjects)."""
from __future__ import annotations

import json
import re
from http.server import BaseHTTPRequestHandler

import pytest

from llm_server import serving

from memoryd.tiers.ingest.conversation import distill_segment
from memoryd.tiers.ingest.openclaw.events import Turn
from memoryd.tiers.knowledge.lowvalue import is_low_value
from memoryd.tiers.knowledge import review
from memoryd.tiers.knowledge.maintain import derive, maintain
from memoryd.tiers.memory.agent import AgentMemory
from memoryd.tiers.retrieval.filters import Filters

DAY = 86400.0
T0 = 1_780_000_000.0


@pytest.fixture
def mem(config, archive) -> AgentMemory:
    return AgentMemory(config, "main", archive=archive, clock=lambda: T0)


def row(mid: str, text: str, at: float, **meta) -> dict:
    return {"id": mid, "text": text, "category": "notes", "importance": 0.5, "created_at": int(at), "metadata": meta}


@pytest.mark.parametrize("text,kind,confidence", [
    ("The standup is at 9:30", "fact", None), ("I think the standup is at 9:30", "belief", 0.6),
    ("The standup is probably at 9:30", "belief", 0.7), ("Maybe we should drop the standup", "belief", 0.4),
    ("我觉得周会在周三", "belief", 0.6), ("Is the standup at 9:30?", "fact", None)])
def test_store_writes_the_kind_and_a_hedge_makes_a_belief(mem, text: str, kind: str, confidence) -> None:
    meta = mem.store(text, "work")["metadata"]
    assert meta["memory_kind"] == kind and meta.get("confidence") == confidence


def test_retain_labels_map_onto_kinds_and_older_memories_read_as_facts(mem, archive) -> None:
    for label, kind in (("world", "fact"), ("experience", "experience"), ("observation", "summary")):
        assert mem.store(f"a {label} line about ferries", "bank/x", 0.5, {"kind": label})["metadata"]["memory_kind"] == kind
    op = mem.store("ferries beat buses", "bank/opinion", 0.5, {"kind": "opinion", "confidence": 0.95})
    assert (op["metadata"]["memory_kind"], op["metadata"]["confidence"]) == ("opinion", 0.95)
    archive.put("main", [row("01d0000000000001", "an old ferry timetable", T0 - 90 * DAY)])  # no kind at all
    kinds = {r["id"]: r["kind"] for r in mem.retrieve("ferry", limit=10)}
    assert kinds["01d0000000000001"] == "fact" and sorted(kinds.values()) == [
        "experience", "fact", "fact", "opinion", "summary"]


def test_retrieve_kind_filters_warm_cold_and_hot_alike(mem, archive) -> None:
    mem.store("I think the ferry leaves at 8", "travel")
    archive.put("main", [row("be11ef0000000001", "the ferry is maybe late on Sundays", T0 - 40 * DAY,
                             memory_kind="belief", confidence=0.4),
                         row("fac7000000000001", "the ferry costs 12 euros", T0 - 40 * DAY)])
    beliefs = mem.retrieve("ferry", filters=Filters(kind="belief"))
    assert {r["tier"] for r in beliefs} == {"warm", "cold"} and {r["kind"] for r in beliefs} == {"belief"}
    assert beliefs[0]["confidence"] in (0.4, 0.6)
    listed = mem.retrieve("", filters=Filters(kind="belief"))  # no words: the kind alone lists them
    assert {r["id"] for r in listed} == {r["id"] for r in beliefs}
    facts = mem.retrieve("ferry", filters=Filters(kind="fact"))
    assert [r["id"] for r in facts] == ["fac7000000000001"]


def test_a_belief_fades_faster_than_a_fact_and_a_fact_keeps_the_warm_formula(mem) -> None:
    from memoryd.tiers.memory import warm
    from memoryd.tiers.memory.model import score

    fact = warm.new_entry("the pier is north", "x", 0.5, T0, {"memory_kind": "fact"})
    belief = warm.new_entry("the pier is maybe north", "x", 0.5, T0, {"memory_kind": "belief", "confidence": 0.6})
    summary = warm.new_entry("a week of piers", "x", 0.5, T0, {"memory_kind": "summary"})
    now = T0 + 10 * DAY
    assert warm.rescore(fact, now) == round(score(0.5, 10, 0), 4)  # importance × exp(-age/30) × (1 + 0.1 × access)
    assert warm.rescore(belief, now) < warm.rescore(summary, now) < warm.rescore(fact, now)
    assert warm.rescore(belief, now) == pytest.approx(fact["score"] * 0.62, abs=0.01)


@pytest.mark.parametrize("text", ["Good lesson. I'll avoid repeating that.", "Thanks!", "Sure, will do.",
                                  "Sounds good", "哈哈", "好的", "好的，谢谢！", "ok 👍"])
def test_filler_is_low_value(text: str) -> None:
    assert is_low_value(text)


@pytest.mark.parametrize("text", ["The code is 4417", "Yes, use Postgres", "No, the other branch", "明天开会",
                                  "Thanks, the deploy worked on staging", "Remember the garage code"])
def test_anything_with_content_is_kept(text: str) -> None:
    assert not is_low_value(text)


def test_filler_turns_are_kept_neither_raw_nor_as_facts(mem, archive) -> None:
    said = ["Thanks!", "The boat is moored at pier 39.", "Sounds good", "好的", "We decided to sail on Saturday."]
    turns = [Turn("s1", i, "user" if i % 2 == 0 else "assistant", t, T0 + i) for i, t in enumerate(said)]
    turns.append(Turn("s1", 9, "assistant", "Good lesson. I'll avoid repeating that.", T0 + 9))
    report = distill_segment(mem, turns)
    texts = {e["text"] for e in archive.iter_entries("main")} | {e["text"] for e in mem.read_state()["warm"]["entries"]}
    assert report["filler"] == 4 and report["cold"] == 2
    assert not any(is_low_value(t) for t in texts) and any("pier 39" in t for t in texts)


def test_maintain_converges_whatever_the_order_and_is_idempotent(mem, archive) -> None:
    old = row("0001000000000001", "The garage code is 4417", T0 - 2 * DAY)
    mid = row("0002000000000002", "We changed the garage code from 4417 to 5120", T0 - DAY)
    new = row("0003000000000003", "Changed the garage code from 5120 to 9931 today", T0)
    wrong = row("0004000000000004", "The bike lock code is 4417", T0 - 3 * DAY,
                superseded_by="0003000000000003")  # an earlier rule's mistake: no rule gives it, so it is cleared
    wanted = [derive(order)[0] for order in ([old, mid, new, wrong], [new, wrong, old, mid], [wrong, mid, new, old])]
    assert wanted[0] == wanted[1] == wanted[2]
    assert wanted[0]["0001000000000001"]["superseded_by"] == "0002000000000002"
    assert wanted[0]["0002000000000002"] == {"superseded_by": "0003000000000003", "supersedes": ["0001000000000001"],
                                             "change_rule": "en:from-to"}
    assert wanted[0]["0003000000000003"]["supersedes"] == ["0002000000000002"]
    assert wanted[0]["0004000000000004"] == {"superseded_by": None}
    archive.put("main", [old, mid, new, wrong])
    counts = maintain(mem, budget=2)
    assert counts["written"] == 2 and counts["left"] == 2
    counts = maintain(mem)
    assert counts["written"] == 2 and counts["left"] == 0
    assert maintain(mem)["written"] == 0  # nothing left to change
    stored = {e["id"]: e["metadata"] for e in archive.iter_entries("main")}
    assert stored["0002000000000002"]["superseded_by"] == "0003000000000003"
    assert "superseded_by" not in stored["0004000000000004"]
    assert [r["kind"] for r in mem.knowledge_rows()].count("supersede") == 2
    archive.forget("main", ["0003000000000003"])  # the current one forgotten: the one before is current again
    maintain(mem)
    stored = {e["id"]: e["metadata"] for e in archive.iter_entries("main")}
    assert "superseded_by" not in stored["0002000000000002"]
    assert stored["0001000000000001"]["superseded_by"] == "0002000000000002"


class _FakeLLM(BaseHTTPRequestHandler):
    prompts: list[str] = []

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        prompt = body["messages"][0]["content"]
        _FakeLLM.prompts.append(prompt)
        pairs = re.findall(r"^(\d+)\. A \([^)]*\): (.*)$", prompt, re.M)  # the fake model: only wifi pairs change
        answers = [n + (": UPDATE" if "wifi" in text else ": NONE") for n, text in pairs]
        data = json.dumps({"choices": [{"message": {"content": "\n".join(answers)}}]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *a) -> None:
        pass


@pytest.fixture
def llm():
    from memoryd.sync.llm import HttpLLM

    _FakeLLM.prompts = []
    with serving(_FakeLLM) as url:
        yield HttpLLM(f"{url}/v1")


def test_the_llm_answers_only_the_pairs_no_rule_decides(mem, archive, llm) -> None:
    archive.put("main", [row("0001000000000001", "The cabin wifi password is larch-21", T0 - 2 * DAY),
                         row("0002000000000002", "The cabin wifi password is spruce-77 now", T0 - DAY),
                         row("0003000000000003", "The cabin gate code is 2290", T0 - 2 * DAY),
                         row("0004000000000004", "The cabin gate code is 5183 now for the neighbours", T0 - DAY),
                         row("0005000000000005", "We switched the sauna heater from Harvia to Tylo", T0)])
    counts = maintain(mem)  # the rules alone: no value named for the wifi or the gate: two questions, no change
    assert counts["superseded"] == 0 and counts["llm_asked"] == 0 and len(review.open_questions(mem)) == 2
    counts = maintain(mem, llm=llm)
    assert (counts["llm_asked"], counts["llm_decided"]) == (2, 2) and len(_FakeLLM.prompts) == 1  # one batch
    stored = {e["id"]: e["metadata"] for e in archive.iter_entries("main")}
    assert stored["0001000000000001"]["superseded_by"] == "0002000000000002"
    assert stored["0001000000000001"]["superseded_how"] == "llm"
    assert "superseded_by" not in stored["0003000000000003"]  # NONE: both stay true
    assert review.open_questions(mem) == [] and maintain(mem, llm=llm)["llm_asked"] == 0  # answered for good
    rows = [r for r in mem.knowledge_rows() if r.get("how") == "llm"]
    assert [r["kind"] for r in rows] == ["supersede"] and "by the LLM" in rows[0]["why"]
    maintain(mem)  # a later pass without the LLM keeps its answer
    assert {e["id"]: e["metadata"] for e in archive.iter_entries("main")}["0001000000000001"]["superseded_by"] \
        == "0002000000000002"
