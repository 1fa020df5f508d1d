"""Forgetting on request: by id or by the last N days, in warm, hot, the cold queue and the archive."""
from __future__ import annotations

from pathlib import Path

import pytest

from memoryd.tiers.memory import hot as H
from memhelp import AgentMemory
from memoryd.tiers.memory.consolidate import consolidate
from memoryd.tiers.base.errors import UsageError
from memoryd.tiers.memory.forget import forget_days, forget_id
from memoryd.tiers.memory.model import DAY
from clock import Clock


def snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_forget_id_warm_and_promoted_lesson(config) -> None:
    mem = AgentMemory(config, "fid", clock=Clock())
    e = mem.store("The owner's PIN hint is 'blue'", "lessons/owner", importance=0.95)
    other = mem.store("Keep me", "misc", importance=0.5)
    consolidate(mem, "quick")  # promotes e into a hot lesson with source_id
    assert mem.read_state()["hot"]["critical_lessons"]
    out = forget_id(mem, e["id"])
    assert out["removed"]["warm"] == 1 and out["removed"]["hot"] == 1
    state = mem.read_state()
    assert [x["id"] for x in state["warm"]["entries"]] == [other["id"]]
    assert state["hot"]["critical_lessons"] == []
    assert "PIN hint" not in (mem.dir / "MEMORY.md").read_text("utf-8")
    rows = [r for r in mem.eviction_rows() if r["kind"] == "forget"]
    assert [r["id"] for r in rows] == [e["id"]] and rows[0]["tier"] == "all"


def test_forget_hot_item_by_id(config) -> None:
    mem = AgentMemory(config, "fhot", clock=Clock())
    ev = mem.change(lambda s, now: H.add_event(s["hot"], "met Bob", now), "event")
    assert forget_id(mem, ev["id"])["removed"]["hot"] == 1
    assert mem.read_state()["hot"]["active_context"]["events"] == []


@pytest.mark.parametrize("bad", ["", "   ", "0000000000000000"])
def test_forget_unknown_or_empty_id_changes_nothing(config, bad: str) -> None:
    mem = AgentMemory(config, "fnone", clock=Clock())
    mem.store("something", "c", importance=0.5)
    before = snapshot(mem.dir)
    with pytest.raises(UsageError):
        forget_id(mem, bad)
    assert snapshot(mem.dir) == before


def test_forget_cold_and_warm_only_items(config, archive) -> None:
    clock = Clock()
    mem = AgentMemory(config, "fcold", archive=archive, clock=clock)
    in_cold = mem.store("Archived secret-ish note", "notes", importance=0.4)["id"]
    clock.t += 31 * DAY
    consolidate(mem, "quick")
    assert archive.count("fcold") == 1
    assert forget_id(mem, in_cold)["removed"]["cold"] == 1
    assert archive.count("fcold") == 0
    warm_only = mem.store("Warm note", "notes", importance=0.4)["id"]
    assert forget_id(mem, warm_only)["removed"] == {"warm": 1, "hot": 0, "cold": 0}
    assert mem.retrieve("warm note") == []
    # the index remembers the forget: a copy archived on another device stays out when it arrives
    archive.put("fcold", [{"id": warm_only, "text": "Warm note", "category": "notes", "created_at": clock.t - 1}])
    assert archive.count("fcold") == 0


def test_forget_days(config, archive) -> None:
    clock = Clock()
    mem = AgentMemory(config, "fdays", archive=archive, clock=clock)
    old = mem.store("Old fact from last month", "c", importance=0.9)["id"]
    clock.t += 10 * DAY
    mid = mem.store("Fact from ten days in", "c", importance=0.9)["id"]
    clock.t += 7 * DAY
    ev = mem.change(lambda s, now: H.add_event(s["hot"], "recent event", now), "event")["id"]
    clock.t += 3 * DAY
    new = mem.store("Brand new fact", "c", importance=0.9)["id"]
    out = forget_days(mem, 5)  # new (0 d) and the event (3 d)
    assert out["removed"] == {"warm": 1, "hot": 1, "cold": 0}
    assert out["ids"] == sorted([new, ev])
    assert forget_days(mem, 15)["ids"] == [mid]
    assert [e["id"] for e in mem.read_state()["warm"]["entries"]] == [old]
    logged = {r["id"] for r in mem.eviction_rows() if r["kind"] == "forget"}
    assert logged == {new, ev, mid}


@pytest.mark.parametrize("bad", [0, -1, float("nan")])
def test_forget_days_bad_input_changes_nothing(config, bad: float) -> None:
    mem = AgentMemory(config, "fbad", clock=Clock())
    mem.store("must survive", "c", importance=0.5)
    before = snapshot(mem.dir)
    with pytest.raises(UsageError):
        forget_days(mem, bad)
    assert snapshot(mem.dir) == before
