"""Valid time (tiers/memory/said.py) and what reads it: warm's score and archiving, a store said long ago,
sealing's age, the digest's day and retrieve's date filter — each on the real local index and a hand clock."""
from __future__ import annotations

import math
from typing import Any

import pytest

from clock import Clock
from memhelp import AgentMemory
from memoryd.tiers.knowledge import digest, kinds
from memoryd.tiers.knowledge.seal import seal
from memoryd.tiers.memory import warm as warm_tier
from memoryd.tiers.memory.model import DAY
from memoryd.tiers.memory.said import first_said, iso_seconds, said_age_days, said_at, said_day
from memoryd.tiers.retrieval.filters import Filters

NOW = 1_700_000_000.0  # 2023-11-14T22:13:20Z (tests/clock.py T0)


def _day(offset: float) -> str:
    import time

    return time.strftime("%Y-%m-%d", time.gmtime(NOW + offset * DAY))


@pytest.mark.parametrize("memory, expected", [
    ({"created_at": NOW, "metadata": {"date": "2023-09-01", "time": "2023-09-01T08:30:00Z"}}, "2023-09-01T08:30:00+00:00"),
    ({"created_at": NOW, "metadata": {"date": "2023-09-01", "time": "14:05"}}, "2023-09-01T14:05:00+00:00"),
    ({"created_at": NOW, "metadata": {"date": "2023-09-01", "time": None}}, "2023-09-01T00:00:00+00:00"),
    ({"created_at": NOW, "metadata": {"time": "2023-09-01T10:00:00+02:00"}}, "2023-09-01T08:00:00+00:00"),
    ({"created_at": NOW, "metadata": {"date": "2023-02-30"}}, None),       # no such day: when it was stored
    ({"created_at": NOW, "metadata": {"date": "last week"}}, None),
    ({"created_at": NOW, "metadata": {}}, None),
    ({"created_at": NOW, "metadata": {"said_at": "2023-09-01T08:00"}}, "2023-09-01T08:00:00+00:00"),  # given
    ({"created_at": NOW, "metadata": {"said_at": "2024-01-01"}}, None),  # a later saying is not the first
    ({"created_at": NOW}, None),
])
def test_first_said_reads_the_memory_own_time_else_when_stored(memory: dict[str, Any], expected: str | None) -> None:
    assert first_said(memory) == (iso_seconds(expected) if expected else NOW)


def test_said_again_later_is_as_new_as_that_but_age_counts_from_the_first_saying() -> None:
    m = {"created_at": NOW, "metadata": {"date": "2023-09-01", "said_at": "2023-10-01T09:00:00"}}
    assert said_at(m) == iso_seconds("2023-10-01T09:00:00") and first_said(m) == iso_seconds("2023-09-01")
    assert said_day(m) == "2023-09-01"
    assert said_age_days(m, iso_seconds("2023-09-11")) == pytest.approx(10.0)
    earlier = {"created_at": NOW, "metadata": {"date": "2023-09-01", "said_at": "2023-08-01"}}
    assert said_at(earlier) == first_said(earlier)
    ahead = {"created_at": NOW, "metadata": {"date": "2023-12-25"}}  # a note dated ahead is not younger than new
    assert said_age_days(ahead, NOW) == 0.0


def test_warm_scores_by_the_said_age_not_by_when_stored() -> None:
    entry = warm_tier.new_entry("Moved the standup to 9:30", "work", 0.5, NOW, {"date": _day(-60)})
    assert entry["created_at"] == int(NOW)
    assert entry["score"] == pytest.approx(0.5 * math.exp(-60.5 / 30), abs=2e-3)  # not 0.5
    fresh = warm_tier.new_entry("Moved the standup to 10:00", "work", 0.5, NOW)
    assert fresh["score"] == 0.5
    warm = {"entries": [entry, fresh]}
    out, log = warm_tier.split_due_for_cold(warm, NOW)
    assert [e["id"] for e in out] == [entry["id"]] and "said over 30 days ago" in log[0]["why"]
    assert warm["entries"] == [fresh]


def test_a_store_said_long_ago_goes_to_the_local_index_at_once(config, archive) -> None:
    clock = Clock(NOW)
    mem = AgentMemory(config, "v", archive=archive, clock=clock)
    results = mem.store_many([("The VPN host was vpn1.example.org", "infra", 0.5, {"date": _day(-200)}),
                              ("The VPN host is vpn2.example.org", "infra", 0.5, {"date": _day(-10)}),
                              ("Printer toner ordered", "office", 0.5, {"date": _day(-40)})])
    assert [r["tier"] for r in results] == ["cold", "warm", "cold"]
    assert "said long ago" in results[0]["note"]
    warm = mem.read_state()["warm"]["entries"]
    assert [e["text"] for e in warm] == ["The VPN host is vpn2.example.org"]
    assert warm[0]["score"] == pytest.approx(0.5 * math.exp(-said_age_days(warm[0], NOW) / 30), abs=1e-4)
    assert 10 < said_age_days(warm[0], NOW) < 11
    assert {m["id"] for m in archive.get("v", [results[0]["id"], results[2]["id"]])} == {results[0]["id"], results[2]["id"]}
    rows = [r for r in mem.eviction_rows() if r.get("reason") == "store"]  # one row for the batch, ids only
    assert len(rows) == 1 and rows[0]["ids"] == sorted([results[0]["id"], results[2]["id"]]) and "what" not in rows[0]
    # a consolidation a month on (the hand clock) moves the rest by its said age too
    clock.days(31)
    due, _ = warm_tier.split_due_for_cold({"entries": [dict(e) for e in warm]}, clock())
    assert [e["id"] for e in due] == [warm[0]["id"]]


def test_sealing_counts_age_from_when_said_and_ignores_the_import_as_an_access(config, archive) -> None:
    clock = Clock(NOW)
    mem = AgentMemory(config, "s", archive=archive, clock=clock)
    mem.init()

    def rows(prefix: str, days_ago: float) -> list[dict[str, Any]]:  # stored today, said `days_ago`
        return [{"id": f"{prefix}{i:02d}", "text": f"{prefix} build {i} of billing deployed", "category": f"notes/{prefix}",
                 "importance": 0.3, "created_at": NOW, "last_access": NOW, "access_count": 0,
                 "metadata": {"date": _day(-days_ago), "time": f"{8 + i % 10:02d}:00"}} for i in range(10)]
    archive.put("s", rows("old", 90) + rows("recent", 5))
    counts = seal(mem, clock())
    assert counts["summaries"] == 1 and counts["sealed"] == 10
    summary = next(m for m in archive.iter_entries("s") if kinds.kind_of(m["metadata"]) == kinds.SUMMARY)
    assert summary["metadata"]["span"] == [_day(-90), _day(-90)]
    assert summary["metadata"]["date"] == _day(-90) and said_day(summary) == _day(-90)  # said when its members were
    assert all(m["metadata"].get(kinds.SEALED_IN_KEY) == summary["id"] for m in archive.get("s", [f"old{i:02d}" for i in range(10)]))
    clock.days(60)  # the recent ones are 65 days old now
    assert seal(mem, clock())["sealed"] == 10


def test_digest_files_memories_under_the_day_they_were_said(config, archive) -> None:
    clock = Clock(NOW)
    mem = AgentMemory(config, "d", archive=archive, clock=clock)
    past = _day(-100)
    mem.store_many([("We decided to rename the billing repo", "work", 0.5, {"date": past, "source": f"memory/{past}.md"}),
                    ("Lesson learned: pin the CI image", "work", 0.5, {"date": past, "source": f"memory/{past}.md"}),
                    ("Something said today", "work", 0.5, None)])
    data = digest.build(mem, archive, past, mem.knowledge_rows())
    assert data["memories"] == 2 and data["decided"] == ["We decided to rename the billing repo"]
    assert "Something said today" not in data["text"]
    today = digest.build(mem, archive, _day(0), mem.knowledge_rows())
    assert today["memories"] == 1 and "rename" not in today["text"]


def test_a_value_replaced_the_same_day_is_a_change_not_learned(config, archive) -> None:
    clock = Clock(NOW)
    mem = AgentMemory(config, "c", archive=archive, clock=clock)
    day = _day(-3)
    old = mem.store("The office wifi is called attic-5g", "home", metadata={"date": day, "time": "09:00"})
    new = mem.store("The office wifi is called cellar-5g now", "home",
                    metadata={"date": day, "time": "17:00", kinds.SUPERSEDES_KEY: [old["id"]]})

    def point(state: Any, now: float) -> None:
        for e in state["warm"]["entries"]:
            if e["id"] == old["id"]:
                e["metadata"][kinds.SUPERSEDED_BY_KEY] = new["id"]
    mem.change(point, "test")
    from memoryd.tiers.knowledge import log as klog

    mem.record_knowledge([klog.row("supersede", old["id"], "a newer name", old["text"], by=new["id"])], clock() + 5 * DAY)
    data = digest.build(mem, archive, day, mem.knowledge_rows())
    assert not any("attic" in line for line in data["learned"])
    assert any("attic" in line for line in data["changed"]) and any("cellar" in line for line in data["changed"])
    logged_day = digest.build(mem, archive, _day(2), mem.knowledge_rows())  # the day the log row was written
    assert logged_day["changed"] == []


def test_since_until_filter_by_the_said_day() -> None:
    f = Filters.from_params({"since": "2023-09-01", "until": "2023-09-01"})
    assert f.matches({"created_at": NOW, "metadata": {"date": "2023-09-01", "time": "23:59"}})
    assert not f.matches({"created_at": NOW, "metadata": {"date": "2023-09-02"}})
    assert f.matches({"created_at": NOW, "metadata": {"time": "2023-09-01T12:00:00Z"}})   # a turn's timestamp
    assert not f.matches({"created_at": NOW, "metadata": {}})                            # stored 2023-11-14
