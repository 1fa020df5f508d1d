"""Sealing on the real local index: who is sealed and who is not, idempotence, logs, rank behind the summary,
unseal and forget of a summary, L2 from L1s, and the LLM's summary (a local HTTP fake) with its fallback."""
from __future__ import annotations

import json
from http.server import BaseHTTPRequestHandler
from typing import Any

import pytest

from clock import Clock
from llm_server import serving
from memhelp import AgentMemory
from memoryd.sync.llm import HttpLLM
from memoryd.tiers.base.errors import UsageError
from memoryd.tiers.knowledge import kinds
from memoryd.tiers.knowledge.seal import UNSEALED_KEY, seal, unseal
from memoryd.tiers.memory.consolidate import consolidate
from memoryd.tiers.memory.model import DAY, content_id

AGENT = "sealer"


def _rows(clock: Clock, prefix: str, n: int, *, age_days: float, session: str | None = None,
          category: str = "projects/billing") -> list[dict[str, Any]]:
    meta = {"session_id": session} if session else {}
    return [{"id": f"{prefix}{i:02d}", "category": category, "importance": 0.3,
             "created_at": clock() - age_days * DAY + i * 60, "metadata": dict(meta),
             "text": f"On 2024-03-{i + 1:02d} Alice deployed {prefix} build {i} of billing; it took {i + 3} minutes."}
            for i in range(n)]


@pytest.fixture
def mem(config, archive):
    clock = Clock()
    m = AgentMemory(config, AGENT, archive=archive, clock=clock)
    m.init()
    m.clock_ = clock  # the test's hand on time
    return m


def test_old_groups_of_ten_are_sealed_once_and_the_rest_is_left(mem, archive):
    clock = mem.clock_
    archive.put(AGENT, _rows(clock, "s", 12, age_days=40, session="chat-1")      # a session: sealed
                + _rows(clock, "t", 10, age_days=45, category="notes/tea")         # a topic: sealed
                + _rows(clock, "few", 9, age_days=45, category="notes/few")        # too few
                + _rows(clock, "new", 15, age_days=5, category="notes/new")        # too young
                + [dict(r, importance=0.9) for r in _rows(clock, "hi", 12, age_days=45, category="notes/hi")])
    # ^ important: its score (0.9 × e^(-45/30) ≈ 0.2) is not cold yet
    counts = seal(mem, clock())
    assert counts == {"summaries": 2, "sealed": 22, "released": 0}
    sid = content_id("summary", *sorted(f"s{i:02d}" for i in range(12)))
    summary = archive.get(AGENT, [sid])[0]
    meta = summary["metadata"]
    assert kinds.kind_of(meta) == kinds.SUMMARY and meta[kinds.LEVEL_KEY] == 1
    assert meta[kinds.SUMMARISES_KEY] == [f"s{i:02d}" for i in range(12)]
    assert len(summary["text"].encode()) <= mem.config.knowledge.summary_max_bytes
    assert "2024-03-12" in summary["text"] and "Alice" in summary["text"]  # dates and names kept
    for m in archive.get(AGENT, meta[kinds.SUMMARISES_KEY]):
        assert m["metadata"][kinds.SEALED_IN_KEY] == sid and m["text"].startswith("On 2024-03")
    untouched = archive.get(AGENT, ["few00", "new00", "hi00"])
    assert all(kinds.SEALED_IN_KEY not in m["metadata"] for m in untouched)
    # idempotent: nothing new to seal, no new rows in either log
    evictions, knowledge = len(mem.eviction_rows()), len(mem.knowledge_rows())
    assert seal(mem, clock()) == {"summaries": 0, "sealed": 0, "released": 0}
    assert (len(mem.eviction_rows()), len(mem.knowledge_rows())) == (evictions, knowledge)
    seals = [r for r in mem.eviction_rows() if r["kind"] == "seal"]
    assert len(seals) == 22 and all(r["tier"] == "cold" for r in seals)
    assert {r["id"] for r in mem.knowledge_rows() if r["kind"] == "seal"} == {sid, content_id(
        "summary", *sorted(f"t{i:02d}" for i in range(10)))}


def test_sealed_members_keep_their_place_their_summary_follows_and_unseal_gives_them_back(mem, archive):
    clock = mem.clock_
    archive.put(AGENT, _rows(clock, "s", 10, age_days=40, session="chat-1"))
    seal(mem, clock())
    sid = archive.get(AGENT, ["s03"])[0]["metadata"][kinds.SEALED_IN_KEY]
    found = mem.retrieve("s build 3 billing", limit=3)
    ids = [r["id"] for r in found]
    top = mem.retrieve("s build 3 billing", limit=1)[0]  # what the words found keeps its place ...
    assert top["id"] == "s03" and (sid in ids or top["summary"]["id"] == sid)  # ... and tells its summary
    out = unseal(mem, sid)
    assert sorted(out["unsealed"]) == [f"s{i:02d}" for i in range(10)]
    assert archive.get(AGENT, [sid]) == []
    member = archive.get(AGENT, ["s03"])[0]
    assert kinds.SEALED_IN_KEY not in member["metadata"] and member["metadata"][UNSEALED_KEY] == sid
    assert mem.retrieve("s build 3 billing", limit=1)[0]["id"] == "s03"
    assert seal(mem, clock())["summaries"] == 0  # given back: not sealed again
    assert [r["kind"] for r in mem.knowledge_rows()] == ["seal", "unseal"]
    with pytest.raises(UsageError):
        unseal(mem, "s03")  # not a summary
    with pytest.raises(UsageError):
        unseal(mem, sid)    # gone


def test_forgetting_a_summary_releases_its_members(config, archive, mem):
    from memoryd.daemon.api import in_process

    clock = mem.clock_
    archive.put(AGENT, _rows(clock, "s", 10, age_days=40, session="chat-1"))
    seal(mem, clock())
    sid = archive.get(AGENT, ["s00"])[0]["metadata"][kinds.SEALED_IN_KEY]
    api = in_process(config)
    api.forget(agent_id=AGENT, memory_id=sid)
    members = archive.get(AGENT, [f"s{i:02d}" for i in range(10)])
    assert len(members) == 10 and all(m["metadata"].get(UNSEALED_KEY) == sid and
                                      kinds.SEALED_IN_KEY not in m["metadata"] for m in members)


def test_members_of_a_summary_gone_elsewhere_are_released_by_the_next_seal(mem, archive):
    clock = mem.clock_
    archive.put(AGENT, _rows(clock, "s", 10, age_days=40, session="chat-1"))
    seal(mem, clock())
    sid = archive.get(AGENT, ["s00"])[0]["metadata"][kinds.SEALED_IN_KEY]
    archive.forget(AGENT, [sid], clock())  # as a forget pulled from another device does
    assert seal(mem, clock())["released"] == 10
    assert archive.get(AGENT, ["s05"])[0]["metadata"][UNSEALED_KEY] == sid


def test_ten_old_level_one_summaries_make_a_level_two(mem, archive):
    clock = mem.clock_
    for g in range(10):
        archive.put(AGENT, _rows(clock, f"g{g}x", 10, age_days=400, session=f"chat-{g}", category="notes/ops"))
    assert seal(mem, clock(), budget=100)["summaries"] == 10
    clock.days(60)  # the summaries age (and their score falls) too
    counts = seal(mem, clock(), budget=100)
    assert counts["summaries"] == 1 and counts["sealed"] == 10
    level2 = [e for e in archive.iter_entries(AGENT) if e["metadata"].get(kinds.LEVEL_KEY) == 2]
    assert len(level2) == 1 and level2[0]["category"] == "notes/ops"
    l1 = archive.get(AGENT, level2[0]["metadata"][kinds.SUMMARISES_KEY])
    assert len(l1) == 10 and all(s["metadata"][kinds.SEALED_IN_KEY] == level2[0]["id"] for s in l1)


def test_the_budget_bounds_each_run(mem, archive):
    clock = mem.clock_
    for g in range(5):
        archive.put(AGENT, _rows(clock, f"b{g}x", 10, age_days=40, session=f"chat-{g}"))
    assert seal(mem, clock(), budget=2)["summaries"] == 2
    assert seal(mem, clock(), budget=2)["summaries"] == 2
    assert seal(mem, clock(), budget=2)["summaries"] == 1


class _LLM(BaseHTTPRequestHandler):
    answers: list[tuple[int, bytes]] = []
    prompts: list[str] = []

    def log_message(self, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).prompts.append(body.get("prompt", ""))
        code, answer = type(self).answers.pop(0)
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)


def test_abstractive_with_an_llm_and_extractive_when_it_fails(mem, archive):
    clock = mem.clock_
    archive.put(AGENT, _rows(clock, "a", 10, age_days=40, session="chat-a")
                + _rows(clock, "b", 10, age_days=40, session="chat-b"))
    _LLM.answers = [(200, json.dumps({"text": "Alice shipped ten billing builds in March 2024."}).encode()),
                    (500, b'{"error": "boom"}')]
    _LLM.prompts = []
    with serving(_LLM) as base:
        counts = seal(mem, clock(), llm=HttpLLM(base + "/complete"))
    assert counts["summaries"] == 2
    assert "a build 9" in _LLM.prompts[0] and "2024-03-10" in _LLM.prompts[0]
    a = archive.get(AGENT, [archive.get(AGENT, ["a00"])[0]["metadata"][kinds.SEALED_IN_KEY]])[0]
    b = archive.get(AGENT, [archive.get(AGENT, ["b00"])[0]["metadata"][kinds.SEALED_IN_KEY]])[0]
    assert a["metadata"]["how"] == "llm" and "Alice shipped ten billing builds" in a["text"]
    assert b["metadata"]["how"] == "extractive" and "Alice deployed b build" in b["text"]
    assert any("without the LLM" in w for w in mem.warnings)


def test_daily_consolidation_seals_and_reports_it(mem, archive):
    clock = mem.clock_
    archive.put(AGENT, _rows(clock, "s", 10, age_days=40, session="chat-1"))
    quick = consolidate(mem, "quick")
    assert "summaries" not in quick["counts"]  # quick stays quick
    report = consolidate(mem, "daily")
    assert report["counts"]["summaries"] == 1 and report["counts"]["sealed"] == 10
    assert "summarise" in report["phases"] and report["resumed"] is False


def test_small_topics_are_sealed_by_the_cold_entity_they_share(mem, archive):
    from memoryd.tiers.knowledge import entities

    clock = mem.clock_
    rows = [dict(r, text=f"Met with Alice Chen on 2024-03-{i + 1:02d} about {cat} item {i}.")
            for cat in ("notes/tea", "notes/garden") for i, r in enumerate(_rows(clock, cat[6:9], 6, age_days=45,
                                                                                   category=cat))]
    lone = [dict(r, text=f"On 2024-03-{i + 1:02d} build {i} of billing took {i + 3} minutes.")  # naming no one
            for i, r in enumerate(_rows(clock, "lone", 4, age_days=45, category="notes/lone"))]
    archive.put(AGENT, rows + lone)
    assert seal(mem, clock())["summaries"] == 0  # two topics of 6: neither seals alone
    entities.refresh(archive, AGENT, [])
    cold = {e["name"] for e in entities.cold_entities(archive, AGENT, clock())}
    assert "Alice Chen" in cold
    counts = seal(mem, clock())
    assert counts["summaries"] == 1 and counts["sealed"] == 12  # the 4 lone rows name no one: left alone
    sealed = {r["id"] for r in archive.iter_entries(AGENT) if r["metadata"].get(kinds.SEALED_IN_KEY)}
    assert sealed == {r["id"] for r in rows}


def test_an_extractive_summary_leaves_out_filler() -> None:
    from memoryd.tiers.knowledge.seal_summary import extractive

    members = [{"text": "Thanks, that helps.", "metadata": {"role": "user"}},
               {"text": "You're welcome! Happy to help with the migration whenever you're ready.",
                "metadata": {"role": "assistant"}},
               {"text": "We moved Orion's servers to Hetzner.", "metadata": {"role": "user"}},
               {"text": "Tom Haverill can only do the contract call on March 12.", "metadata": {"role": "user"}}]
    text = extractive(members, 600, "[L1 summary]")
    assert "Hetzner" in text and "March 12" in text
    assert "Thanks" not in text and "welcome" not in text and "Happy to help" not in text
