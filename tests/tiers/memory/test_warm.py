"""Warm tier: scores, reinforcement, retention eviction and the 50 KB cap (to the local index + log)."""
from __future__ import annotations

import json
import math

import pytest

from memoryd.tiers.memory import warm as W
from memhelp import AgentMemory
from memoryd.tiers.base.atomic import dumps
from memoryd.tiers.memory.consolidate import consolidate
from memoryd.tiers.memory.model import DAY, WARM_MAX_BYTES
from clock import T0, Clock

pytestmark = pytest.mark.usefixtures("keyword_mode")  # the subject is warm's limits and eviction, not ranking


def test_new_entry_fields_and_score() -> None:
    e = W.new_entry("fact", "cat", 0.9, T0, {"urls": ["u"]})
    assert set(e) >= {"id", "text", "category", "importance", "created_at", "access_count", "last_access",
                      "score", "tier", "metadata"}
    assert e["id"] == W.entry_id("fact", "cat") and e["score"] == 0.9 and e["tier"] == "hot"
    assert W.rescore(e, T0 + 30 * DAY) == pytest.approx(0.9 * math.exp(-1), abs=1e-4)
    assert e["tier"] == "warm"


def test_reinforce_same_text_and_category() -> None:
    warm = W.empty_warm()
    a, created = W.add_or_reinforce(warm, W.new_entry("Duck is great", "food", 0.4, T0), T0)
    assert created
    b, created = W.add_or_reinforce(warm, W.new_entry("duck  is GREAT", "food", 0.6, T0 + 10, {"k": 1}), T0 + 10)
    assert not created and b is a and len(warm["entries"]) == 1
    assert b["access_count"] == 1 and b["importance"] == 0.6 and b["metadata"]["k"] == 1
    assert b["created_at"] == int(T0)
    c, created = W.add_or_reinforce(warm, W.new_entry("Duck is great", "food/other", 0.4, T0), T0)
    assert created and len(warm["entries"]) == 2  # another category is another memory


def test_split_due_for_cold_rules() -> None:
    warm = W.empty_warm()
    old_low = W.new_entry("old low", "c", 0.5, T0)           # 31 d: 0.5*e^-1.03 ≈ 0.18 → evict
    old_high = W.new_entry("old high", "c", 1.0, T0)         # 31 d: ≈ 0.36 → stays
    old_high["access_count"] = 0
    young_low = W.new_entry("young low", "c", 0.2, T0 + 30 * DAY)   # 1 d: 0.19, age ≤ 30 → stays
    frozen = W.new_entry("tiny", "c", 0.04, T0 + 30 * DAY)   # below 0.05 → frozen → out
    warm["entries"] = [old_low, old_high, young_low, frozen]
    out, log = W.split_due_for_cold(warm, T0 + 31 * DAY)
    assert {e["text"] for e in out} == {"old low", "tiny"}
    assert {e["text"] for e in warm["entries"]} == {"old high", "young low"}
    assert all(r["tier"] == "warm" and r["to"] == "cold" and r["why"] for r in log)


def test_access_keeps_old_entry_alive() -> None:
    warm = W.empty_warm()
    e = W.new_entry("remember me", "c", 0.5, T0)
    warm["entries"] = [e]
    for _ in range(10):
        W.touch(warm, {e["id"]}, T0 + DAY)
    out, _ = W.split_due_for_cold(warm, T0 + 31 * DAY)  # 0.5*e^-1.03*2.0 ≈ 0.36
    assert out == [] and e["access_count"] == 10


def _fill(n: int, now: float) -> dict:
    warm = W.empty_warm()
    for i in range(n):
        warm["entries"].append(W.new_entry(f"fact {i:04d} " + "p" * 300, "c/d", round(0.1 + (i % 90) / 100, 2), now))
    return warm


def test_enforce_size_evicts_lowest_score_first() -> None:
    warm = _fill(200, T0)
    assert W.warm_size(warm) > WARM_MAX_BYTES
    kept_before = {e["id"]: e["score"] for e in warm["entries"]}
    out, log = W.enforce_size(warm, T0)
    assert W.warm_size(warm) <= WARM_MAX_BYTES
    assert out and len(out) == len(log)
    assert max(e["score"] for e in out) <= min(e["score"] for e in warm["entries"])
    assert {e["id"] for e in out} | {e["id"] for e in warm["entries"]} == set(kept_before)
    # Not over-evicting: putting back the best evicted entry would break the cap.
    best = min(out, key=lambda e: (-e["score"], -e["created_at"], e["id"]))
    assert W.warm_size({"entries": warm["entries"] + [best]}) > WARM_MAX_BYTES


def test_store_at_cap_sends_evicted_to_the_index_and_log(config) -> None:
    clock = Clock()
    mem = AgentMemory(config, "capped", clock=clock)
    warm = W.empty_warm()
    for i in range(85):  # ~48 KB of well-scored facts, written in one go
        warm["entries"].append(W.new_entry(f"kept fact {i:03d} " + "k" * 380, "notes", 0.9, clock.t))
    state = mem.read_state()
    state["warm"] = warm
    assert mem.write_state(state, "setup") == []
    acked = [e["id"] for e in warm["entries"]]
    low = []
    for i in range(12):
        clock.t += 1
        low.append(mem.store(f"minor note {i:03d} about topic {i} " + "q" * 280, "notes", importance=0.2)["id"])
    acked += low
    warm = mem.read_state()["warm"]
    size = len((mem.dir / "warm-memory.json").read_bytes())
    assert size == len(dumps(warm)) and size <= WARM_MAX_BYTES
    pending = {e["id"] for e in mem.archive.iter_entries("capped")}
    assert pending, "the cap must have evicted something"
    in_warm = {e["id"] for e in warm["entries"]}
    assert set(acked) == in_warm | pending and not (in_warm & pending)
    logged = {r["id"] for r in mem.eviction_rows() if r["tier"] == "warm"}
    assert pending <= logged
    assert pending <= set(low)  # the low-scored ones went first


def test_a_fresh_fact_stays_at_the_cap(config) -> None:
    """Within its grace period a just-stored fact is not what the cap evicts, whatever its importance."""
    clock = Clock()
    mem = AgentMemory(config, "grace", clock=clock)
    warm = W.empty_warm()
    for i in range(90):
        warm["entries"].append(W.new_entry(f"older fact {i:03d} " + "k" * 380, "notes", 0.9, clock.t))
    state = mem.read_state()
    state["warm"] = warm
    mem.write_state(state, "setup")
    clock.days(2)  # the older facts are past their grace period
    fresh = mem.store("a minor but fresh note " + "q" * 300, "notes", importance=0.05)
    ids = {e["id"] for e in mem.read_state()["warm"]["entries"]}
    assert fresh["id"] in ids and len((mem.dir / "warm-memory.json").read_bytes()) <= WARM_MAX_BYTES
    gone = [r for r in mem.eviction_rows() if r["tier"] == "warm"]
    assert gone and all(r["id"] != fresh["id"] for r in gone) and mem.archive.count("grace") == len(gone)


def test_only_fresh_facts_left_then_the_store_says_so(config) -> None:
    clock = Clock()
    mem = AgentMemory(config, "allfresh", clock=clock)
    stored = [mem.store(f"fresh fact {i:03d} " + "z" * 400, "notes", importance=0.5) for i in range(130)]
    ids = [e["id"] for e in stored]
    warm_ids = {e["id"] for e in mem.read_state()["warm"]["entries"]}
    cold_ids = {e["id"] for e in mem.archive.iter_entries("allfresh")}
    assert cold_ids and set(ids) == warm_ids | cold_ids  # nothing lost: what could not stay is archived
    rows = [r for r in mem.eviction_rows() if r["tier"] == "warm"]
    assert all("grace period" in r["why"] for r in rows)
    assert any(e.get("tier") == "cold" and "grace period" in e["note"] for e in stored)


def test_retention_eviction_via_consolidation(config) -> None:
    clock = Clock()
    mem = AgentMemory(config, "aging", clock=clock)
    keep = mem.store("The owner's birthday is May 3", "people/owner", importance=1.0)
    drop = mem.store("Lunch was a sandwich today", "daily", importance=0.4)
    clock.days(31)
    report = consolidate(mem, "quick")
    assert report["counts"]["to_cold"] == 1
    ids = {e["id"] for e in mem.read_state()["warm"]["entries"]}
    assert keep["id"] in ids and drop["id"] not in ids
    assert [e["id"] for e in mem.archive.iter_entries("aging")] == [drop["id"]]
    row = [r for r in mem.eviction_rows() if r["id"] == drop["id"]][0]
    assert row["tier"] == "warm" and "30 days" in row["why"]


def test_store_reinforces_instead_of_duplicating(config) -> None:
    clock = Clock()
    mem = AgentMemory(config, "reinf", clock=clock)
    a = mem.store("Use uv for Python envs", "dev/python", importance=0.5)
    clock.t += 3600
    b = mem.store("use uv for  python envs", "dev/python", importance=0.5)
    assert a["id"] == b["id"] and a["created"] and not b["created"]
    entries = mem.read_state()["warm"]["entries"]
    assert len(entries) == 1 and entries[0]["access_count"] == 1
    assert entries[0]["score"] == pytest.approx(0.5 * math.exp(-1 / 720) * 1.1, abs=1e-4)


def test_warm_file_is_canonical_json(config) -> None:
    mem = AgentMemory(config, "canon", clock=Clock())
    mem.store("北京烤鸭 is the best duck", "food", importance=0.7)
    raw = (mem.dir / "warm-memory.json").read_bytes()
    assert raw == dumps(json.loads(raw))


def test_retention_boundary_is_strictly_over_30_days() -> None:
    warm = W.empty_warm()
    e = W.new_entry("boundary fact", "c", 0.5, T0)  # 0.5·e^-1 ≈ 0.18 < 0.3 at 30 days
    warm["entries"] = [e]
    out, _ = W.split_due_for_cold(warm, T0 + 30 * DAY)
    assert out == [] and len(warm["entries"]) == 1
    out, _ = W.split_due_for_cold(warm, T0 + 30 * DAY + 1)
    assert [x["id"] for x in out] == [e["id"]] and warm["entries"] == []


def test_score_at_threshold_keeps_old_entry() -> None:
    warm = W.empty_warm()
    imp = 0.3 / math.exp(-31 / 30)  # exactly 0.3 after 31 days
    e = W.new_entry("exactly warm", "c", round(imp + 0.0001, 4), T0)
    warm["entries"] = [e]
    out, _ = W.split_due_for_cold(warm, T0 + 31 * DAY)
    assert out == [] and e["tier"] == "warm"
