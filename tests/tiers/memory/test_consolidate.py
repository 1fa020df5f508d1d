"""Consolidation modes: what each does, runs recorded in metrics.json, outage keeps entries queued."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from memhelp import AgentMemory
from memoryd.tiers.memory.consolidate import MODES, consolidate, is_due
from memoryd.tiers.base.errors import MemorydError, UsageError
from memoryd.tiers.memory.model import DAY
from memoryd.tiers.memory import tree as T
from clock import T0, Clock


def metrics(mem: AgentMemory) -> dict:
    return json.loads((mem.dir / "metrics.json").read_text("utf-8"))


def test_each_mode_is_recorded(config) -> None:
    clock = Clock()
    mem = AgentMemory(config, "modes", clock=clock)
    mem.store("A fact worth keeping", "facts", importance=0.5)
    for i, mode in enumerate(MODES):
        clock.t = T0 + i * 100
        report = consolidate(mem, mode)
        assert report["mode"] == mode and report["agent_id"] == "modes"
        run = metrics(mem)["runs"][mode]
        assert run["ok"] is True and run["error"] is None
        assert run["last_start"] == clock.t and run["last_ok_end"] == run["last_end"]
        assert run["counts"] == report["counts"]
    counts = metrics(mem)["runs"]
    assert "tree_pruned" not in counts["quick"]["counts"] and "tree_pruned" in counts["daily"]["counts"]
    assert "cold_deleted" in counts["monthly"]["counts"] and "cold_deleted" in counts["full"]["counts"]
    assert "cold_deleted" not in counts["daily"]["counts"]


def test_unknown_mode_refused_without_record(config) -> None:
    mem = AgentMemory(config, "badmode", clock=Clock())
    mem.init()
    with pytest.raises(UsageError):
        consolidate(mem, "hourly")
    assert not (mem.dir / "metrics.json").exists()


def test_is_due() -> None:
    m = {"runs": {"quick": {"last_ok_end": T0}, "daily": {"last_end": T0}}}
    assert not is_due(m, "quick", T0 + 3599) and is_due(m, "quick", T0 + 3600)
    assert is_due(m, "daily", T0)  # never succeeded
    assert not is_due(m, "full", T0 + 1e9)  # full runs only on request


def test_quick_promotes_hot_scored_lessons_once_and_no_other_fact(config) -> None:
    mem = AgentMemory(config, "promo", clock=Clock())
    e = mem.store("The owner is allergic to peanuts", "lessons/health", importance=0.95)
    mem.store("The quarterly report is due on the 14th", "work/reports", importance=0.95)  # high, but no lesson
    mem.store("Minor detail", "misc", importance=0.4)
    assert consolidate(mem, "quick")["counts"]["promoted"] == 1
    lessons = mem.read_state()["hot"]["critical_lessons"]
    assert [(x["text"], x["source_id"]) for x in lessons] == [("The owner is allergic to peanuts", e["id"])]
    assert consolidate(mem, "quick")["counts"]["promoted"] == 0
    assert "allergic to peanuts" in (mem.dir / "MEMORY.md").read_text("utf-8")


def test_quick_archives_to_cold_insert_then_remove(config, archive) -> None:
    clock = Clock()
    mem = AgentMemory(config, "arch", archive=archive, clock=clock)
    ids = [mem.store(f"Ephemeral note {i}", "notes", importance=0.4)["id"] for i in range(5)]
    keep = mem.store("Durable", "notes", importance=1.0)["id"]
    clock.t += 31 * DAY
    report = consolidate(mem, "quick")
    assert report["counts"]["to_cold"] == 5 and report["counts"]["archived"] == 5
    assert sorted(e["id"] for e in archive.iter_entries("arch")) == sorted(ids)
    assert [e["id"] for e in mem.read_state()["warm"]["entries"]] == [keep]
    assert not (mem.dir / "cold-pending.json").exists()
    assert report["counts"]["archived"] == 5 and archive.count("arch") == 5
    # a repeat insert is idempotent
    archive.put("arch", archive.get("arch", ids))
    assert archive.count("arch") == 5


def test_monthly_deletes_cold_past_retention(config, archive) -> None:
    clock = Clock()
    mem = AgentMemory(config, "retain", archive=archive, clock=clock)
    ancient = mem.store("Something from long ago", "history", importance=0.5)["id"]
    clock.t += 40 * DAY
    consolidate(mem, "quick")
    recent = mem.store("Something newer", "history", importance=0.5)["id"]
    clock.t += 40 * DAY
    consolidate(mem, "quick")
    assert archive.count("retain") == 2
    clock.t = T0 + 10 * 365.25 * DAY + 20 * DAY  # ancient is past 10 years, recent is not
    assert consolidate(mem, "daily")["counts"].get("cold_deleted") is None
    report = consolidate(mem, "monthly")
    assert report["counts"]["cold_deleted"] == 1
    assert [e["id"] for e in archive.iter_entries("retain")] == [recent]
    rows = [r for r in mem.eviction_rows() if r["tier"] == "cold"]
    assert [r["id"] for r in rows] == [ancient] and "retention" in rows[0]["why"]


def test_full_recounts_tree_activity(config) -> None:
    clock = Clock()
    mem = AgentMemory(config, "full", clock=clock)
    mem.store("Fact under a node", "area/topic", importance=1.0)
    clock.t += 20 * DAY
    mem.retrieve("fact node")  # last_access moves on; tree touched too
    # Simulate a tree merged from another device that lost activity days.
    mem.change(lambda s, now: s["tree"]["nodes"]["area/topic"].__setitem__(1, 0), "test stale")
    consolidate(mem, "full")
    assert mem.read_state()["tree"]["nodes"]["area/topic"][1] == T.day_of(clock.t)


def test_consolidation_needs_no_server_and_the_upload_waits(config, tmp_path: Path) -> None:
    """Archiving is local (the index); a server that is down only delays the sealed upload."""
    from sqld_server import SqldServer, sqld_binary

    from memoryd.daemon.engine import Engine
    from memoryd.sync.critical import pull_now
    from memoryd.sync.crypto.keys import ensure_key

    (tmp_path / "sqld").mkdir()
    server = SqldServer(sqld_binary(), tmp_path / "sqld")
    server.start()
    try:
        cfg = config.with_(db_url=server.http_url)
        ensure_key(cfg, "outage")
        clock = Clock()
        with Engine(cfg).memory("outage", clock=clock) as mem:
            gone = mem.store("Soon archived", "notes", importance=0.4)["id"]
            clock.t += 31 * DAY
            server.kill()
            report = consolidate(mem, "quick")
            assert report["counts"]["archived"] == 1 and metrics(mem)["runs"]["quick"]["ok"] is True
            assert mem.retrieve("archived")[0]["id"] == gone and mem.archive.pending_uploads("outage") == 1
        assert pull_now(cfg, "outage")["status"] == "queued"  # nothing lost: it waits in the outbox
        server.start()
        result = pull_now(cfg, "outage")
        assert result["status"] == "pushed" and result["cold"]["uploaded"] == 1
        with Engine(cfg).memory("outage") as mem:
            assert mem.archive.pending_uploads("outage") == 0
    finally:
        server.stop()


def test_a_full_run_counts_for_the_modes_it_contains(config) -> None:
    clock = Clock()
    mem = AgentMemory(config, "default", clock=clock)
    mem.store("a fact to consolidate", "misc", 0.5)
    clock.t += 40 * DAY
    consolidate(mem, "daily")
    runs = mem.metrics()["runs"]
    assert runs["quick"]["via"] == "daily" and "monthly" not in runs
    assert not is_due(mem.metrics(), "quick", clock.t) and is_due(mem.metrics(), "monthly", clock.t)
    mem.store("a fresh fact", "misc", 0.5)
    consolidate(mem, "full")
    metrics = mem.metrics()
    assert all(not is_due(metrics, m, clock.t) for m in ("quick", "daily", "monthly"))
    assert metrics["runs"]["full"]["counts"]["rescored"] >= 1
