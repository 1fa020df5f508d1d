"""Entities kept current from every way a memory comes in, hotness exact under decay, forget and rebuild."""
from __future__ import annotations

import json
import sqlite3
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import pytest

from clock import Clock
from llm_server import serving
from memhelp import AgentMemory
from memoryd.tiers.cold.index_schema import LOCAL_VERSION
from memoryd.tiers.knowledge import entities, hotness
from memoryd.tiers.memory.forget import forget_id
from memoryd.tiers.memory.transfer import export_to, import_from


def names(index, agent: str, now: float) -> dict[str, tuple[float, int]]:
    return {e.name: (round(e.hotness, 4), e.mentions) for e in entities.entity_list(index, agent, now)}


def warm_of(mem) -> list:
    return mem.read_state()["warm"]["entries"]


def test_hotness_is_exact_whatever_the_order() -> None:
    value, day = 0.0, 0
    for d in (10, 3, 10, 7):  # mentions arriving out of order (a pull of older memories)
        value, day = hotness.add(value, day, d)
    expected = sum(0.05 * 0.95 ** (10 - d) for d in (10, 3, 10, 7))
    assert value == pytest.approx(expected) and day == 10
    value, day = hotness.remove(value, day, 3)
    assert value == pytest.approx(expected - 0.05 * 0.95 ** 7)
    assert hotness.at(value, day, 20) == pytest.approx(value * 0.95 ** 10)
    assert hotness.state(0.5) == "active" and hotness.state(0.1) == "cold" and hotness.state(0.3) == "warm"


def test_mentions_decay_and_cold_entities(config, archive) -> None:
    clock = Clock()
    mem = AgentMemory(config, "a", archive=archive, clock=clock)
    for i in range(12):
        mem.store(f"Call {i} with Alice about the warelay project", "work")
    mem.store("Lunch with Bob", "people")
    entities.refresh(archive, "a", warm_of(mem))
    got = names(archive, "a", clock())
    assert got["Alice"] == (0.6, 12) and got["warelay"] == (0.6, 12) and got["Bob"] == (0.05, 1)
    assert [e.name for e in entities.active_entities(archive, "a", clock())] == ["Alice", "warelay"]
    clock.days(10)
    assert names(archive, "a", clock())["Alice"] == (round(0.6 * 0.95 ** 10, 4), 12)
    assert entities.active_entities(archive, "a", clock()) == []
    clock.days(30)  # 0.6 × 0.95^40 ≈ 0.077: a candidate for sealing, with the memories to seal
    cold = {c["name"]: c for c in entities.cold_entities(archive, "a", clock())}
    assert set(cold) == {"Alice", "warelay", "Bob"} and len(cold["Alice"]["memory_ids"]) == 12


def test_every_way_in_is_read_and_forget_removes_the_mention(config, archive, tmp_path: Path) -> None:
    clock = Clock()
    mem = AgentMemory(config, "a", archive=archive, clock=clock)
    stored = mem.store("Met 老王 and decided: budget 300元 for project Phoenix", "work")  # warm
    archive.put("a", [{"id": "turn1", "text": "张伟说 Phoenix 项目延期", "category": "chat",  # cold, as a
                       "created_at": int(clock()), "metadata": {"role": "user", "session_id": "s"}}])  # turn or a pull
    entities.refresh(archive, "a", warm_of(mem))
    got = names(archive, "a", clock())
    assert got["Phoenix"][1] == 2 and "张伟" in got and "300元" not in got  # an amount is a value, not an entity
    forget_id(mem, "turn1")
    entities.refresh(archive, "a", warm_of(mem))
    got = names(archive, "a", clock())
    assert got["Phoenix"] == (0.05, 1) and "张伟" not in got
    forget_id(mem, stored["id"])  # a warm-only memory
    entities.refresh(archive, "a", warm_of(mem))
    assert names(archive, "a", clock()) == {}
    # import into another agent: every memory of the file is read
    src = AgentMemory(config, "b", archive=archive, clock=clock)
    src.store("Review with Carol of the OpenClaw repo", "work")
    archive.put("b", [{"id": "c1", "text": "Carol said v2.0.1 is out", "category": "x", "created_at": int(clock()),
                       "importance": 0.5}])
    export_to(src, tmp_path / "b.jsonl")
    dst = AgentMemory(config, "c", archive=archive, clock=clock)
    with open(tmp_path / "b.jsonl", encoding="utf-8") as fh:
        import_from(dst, fh)
    entities.refresh(archive, "c", warm_of(dst))
    assert {"Carol": (0.1, 2)}.items() <= names(archive, "c", clock()).items()
    assert "v2.0.1" not in names(archive, "c", clock())  # a version is a value, not an entity


def test_warm_to_cold_keeps_one_mention_and_rebuild_matches(config, archive) -> None:
    clock = Clock()
    mem = AgentMemory(config, "a", archive=archive, clock=clock)
    e = mem.store("Dinner with Dana", "people")
    entities.refresh(archive, "a", warm_of(mem))

    def evict(state, now):
        archive.put("a", [state["warm"]["entries"][0]])
        state["warm"]["entries"] = []
    mem.change(evict, "test")
    counts = entities.refresh(archive, "a", warm_of(mem))
    assert counts["gone"] == 0 and names(archive, "a", clock()) == {"Dana": (0.05, 1)}
    before = names(archive, "a", clock())
    entities.rebuild(archive, "a", warm_of(mem))
    assert names(archive, "a", clock()) == before and archive.get("a", [e["id"]])


def test_a_v2_index_is_migrated_and_every_memory_queued(config, archive) -> None:
    archive.put("a", [{"id": "m1", "text": "Call with Erin", "category": "x", "created_at": 1_700_000_000}])
    path = archive.path
    archive.close()
    conn = sqlite3.connect(path)  # back to what a v2 index held: no entity tables, no triggers
    for table in ("entity_queue", "entities", "entity_mentions", "entity_seen"):
        conn.execute(f"DROP TABLE {table}")
    conn.execute("PRAGMA user_version=2")
    conn.commit()
    conn.close()
    from memoryd.tiers.cold.source import open_index

    with open_index(config) as index:
        assert index.read("PRAGMA user_version")[0][0] == LOCAL_VERSION
        entities.refresh(index, "a", [])
        assert "Erin" in names(index, "a", 1_700_000_000)


class _Entities(BaseHTTPRequestHandler):
    def do_POST(self) -> None:  # noqa: N802
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        n = body["prompt"].count("\n1. ")
        answer = {"1": [{"name": "Zanzibar Books", "type": "project"}]} if n else {}
        data = json.dumps({"text": json.dumps(answer)}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args) -> None:
        pass


def test_llm_adds_what_rules_miss(config, archive) -> None:
    from memoryd.sync.llm import HttpLLM

    clock = Clock()
    mem = AgentMemory(config, "a", archive=archive, clock=clock)
    mem.store("bought a gift at zanzibar books with Alice", "shopping")
    with serving(_Entities) as url:
        entities.refresh(archive, "a", warm_of(mem), llm=HttpLLM(url + "/complete"))
    got = names(archive, "a", clock())
    assert "Alice" in got and "Zanzibar Books" in got


def test_a_name_said_bare_counts_once_its_cue_is_read_in_either_order(config, archive) -> None:
    """An echo: `Wendeline` said bare before and after `Wendeline Kortenhoeve joined` counts as her mention, read
    incrementally as a rebuild reads it; a capitalised word no cue ever named (`Ficus`) stays no entity."""
    clock = Clock()
    mem = AgentMemory(config, "a", archive=archive, clock=clock)
    mem.store("The quote from Wendeline is still open; watered the Ficus", "work")
    entities.refresh(archive, "a", warm_of(mem))
    assert names(archive, "a", clock()) == {}  # no cue yet: silent
    mem.store("Wendeline Kortenhoeve joined the supplier team today", "work")
    mem.store("Forwarded the tile samples to Wendeline", "work")
    entities.refresh(archive, "a", warm_of(mem))
    got = names(archive, "a", clock())
    assert set(got) == {"Wendeline Kortenhoeve"} and got["Wendeline Kortenhoeve"][1] == 3
    entities.rebuild(archive, "a", warm_of(mem))
    assert names(archive, "a", clock()) == got
