"""Consolidation as phases: which phases each mode runs, the old counts kept, the journal resuming after a
failed phase, and the ~2,000-token working snapshot."""
from __future__ import annotations

import json

import pytest

from clock import Clock
from memhelp import AgentMemory
from memoryd.tiers.base.errors import StoreError
from memoryd.tiers.knowledge.phase_journal import FILE
from memoryd.tiers.knowledge.phases import ORDER, PLAN
from memoryd.tiers.knowledge.snapshot import MAX_BYTES, render
from memoryd.tiers.memory.agent import AgentMemory as BareMemory
from memoryd.tiers.memory.consolidate import consolidate

AGENT = "phases"
OLD_COUNTS = {"quick": {"rescored", "to_cold", "promoted", "archived"},
              "daily": {"rescored", "to_cold", "promoted", "archived", "tree_pruned"},
              "monthly": {"rescored", "to_cold", "promoted", "archived", "tree_pruned", "cold_deleted"}}


def test_each_mode_runs_its_phases_in_seed_order_and_keeps_its_old_counts(config, archive):
    mem = AgentMemory(config, AGENT, archive=archive, clock=Clock())
    mem.store("the kettle is in the left cupboard", "home", 0.5)
    for mode in ("quick", "daily", "monthly", "full"):
        report = consolidate(mem, mode)
        assert report["phases"] == list(PLAN[mode]) and report["skipped"] == [] and not report["resumed"]
        assert [p for p in ORDER if p in report["phases"]] == report["phases"]  # seed 001's order
        assert OLD_COUNTS.get(mode, OLD_COUNTS["monthly"]) <= set(report["counts"])
    assert set(PLAN["quick"]) == {"collect", "filter", "extract", "snapshot"}  # quick stays cheap
    assert {"merge", "verify", "summarise", "entities"} <= set(PLAN["daily"]) and "restructure" not in PLAN["daily"]
    assert "restructure" in PLAN["monthly"]
    assert json.loads((mem.dir / FILE).read_text()) == {}
    runs = mem.metrics()["runs"]
    assert all(runs[m]["ok"] for m in ("quick", "daily", "monthly", "full"))


def test_a_failed_phase_is_where_the_next_run_starts(config, archive):
    clock = Clock()
    stored = AgentMemory(config, AGENT, archive=archive, clock=clock)
    for i in range(3):
        stored.store(f"a fact that will fade {i}", "notes", 0.05)
    clock.days(60)
    blind = BareMemory(config, AGENT, archive=None, clock=clock)  # no local index: warm cannot move out
    with pytest.raises(StoreError):
        consolidate(blind, "daily")
    journal = json.loads((blind.dir / FILE).read_text())["daily"]
    assert journal["done"] == ["collect"]
    assert blind.metrics()["runs"]["daily"]["ok"] is False
    mem = AgentMemory(config, AGENT, archive=archive, clock=clock)
    report = consolidate(mem, "daily")
    assert report["resumed"] and report["skipped"] == ["collect"] and report["phases"][0] == "filter"
    assert report["counts"]["to_cold"] == 3 and report["run"] == journal["run"]
    assert archive.count(AGENT) == 3 and mem.read_state()["warm"]["entries"] == []
    assert consolidate(mem, "daily")["resumed"] is False


def test_the_working_snapshot_is_bounded_and_best_first(config, archive):
    clock = Clock()
    mem = AgentMemory(config, AGENT, archive=archive, clock=clock)
    mem.store("Alice prefers green tea in the morning", "people/alice", 0.95)
    for i in range(120):
        mem.store(f"note {i}: " + "the build server needs more disk space " * 3, "ops", 0.3)
    consolidate(mem, "quick")
    text = (mem.dir / "snapshot.md").read_text()
    assert len(text.encode()) <= MAX_BYTES and text.startswith("# Working snapshot")
    facts = text.split("## Facts\n", 1)[1].splitlines()
    assert "Alice prefers green tea" in facts[0]
    assert len(facts[-1]) < len(facts[1])  # the best in full, the rest as previews
    assert render(mem.read_state(), 500).encode().__len__() <= 500
