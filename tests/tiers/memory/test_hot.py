"""Hot tier: changes, count limits, progressive 5 KB pruning, eviction-log rows and MEMORY.md."""
from __future__ import annotations

import json

import pytest

from memoryd.tiers.memory import hot as H
from memhelp import AgentMemory
from memoryd.tiers.base.atomic import dumps
from memoryd.tiers.base.errors import UsageError
from memoryd.tiers.memory.model import HOT_MAX_BYTES
from clock import T0, Clock


def log_rows(mem: AgentMemory) -> list[dict]:
    return mem.eviction_rows()


def test_lessons_keep_20_most_important() -> None:
    hot = H.empty_hot()
    for i in range(25):
        H.add_lesson(hot, f"lesson number {i}", "lessons", round(0.5 + i * 0.01, 2), T0 + i)
    out = H.prune_hot(hot)
    assert len(hot["critical_lessons"]) == 20
    gone = {e["what"] for e in out if e["kind"] == "lesson"}
    assert gone == {f"lesson number {i}" for i in range(5)}  # lowest importance went
    assert all(e["tier"] == "hot" and "lowest importance" in e["why"] for e in out)


def test_events_keep_last_10() -> None:
    hot = H.empty_hot()
    for i in range(13):
        H.add_event(hot, f"event {i}", T0 + i * 60)
    out = H.prune_hot(hot)
    assert [e["text"] for e in hot["active_context"]["events"]] == [f"event {i}" for i in range(3, 13)]
    assert [e["what"] for e in out] == ["event 0", "event 1", "event 2"]


def test_pending_tasks_capped_done_tasks_kept() -> None:
    hot = H.empty_hot()
    H.upsert_task(hot, "finished job", "done", T0)
    for i in range(12):
        H.upsert_task(hot, f"task {i}", None, T0 + i + 1)
    out = H.prune_hot(hot)
    tasks = hot["active_context"]["tasks"]
    assert sum(t["status"] == "pending" for t in tasks) == 10
    assert any(t["text"] == "finished job" for t in tasks)
    assert {e["what"] for e in out} == {"task 0", "task 1"}


def test_progressive_prune_to_5kb() -> None:
    hot = H.empty_hot()
    for i in range(10):
        H.upsert_project(hot, f"project {i}", "d" * 150, "active", T0 + i)
    for i in range(20):
        H.add_lesson(hot, f"lesson {i} " + "x" * 150, "lessons", 0.9, T0 + i)
    for i in range(10):
        H.add_event(hot, f"event {i} " + "y" * 150, T0 + i)
    H.set_identity(hot, "name", "Claw")
    assert len(dumps(hot)) > HOT_MAX_BYTES
    out = H.prune_hot(hot)
    assert len(dumps(hot)) <= HOT_MAX_BYTES
    assert out and all(e["why"].startswith("hot state over") for e in out)
    kinds = [e["kind"] for e in out]
    assert kinds[0] == "event"  # least valuable goes first
    assert hot["identity"] == {"name": "Claw"}  # identity is the last resort


def test_identity_pruned_only_as_last_resort() -> None:
    hot = H.empty_hot()
    for i in range(40):
        H.set_identity(hot, f"key{i:02d}", "v" * 190)
    out = H.prune_hot(hot)
    assert len(dumps(hot)) <= HOT_MAX_BYTES
    assert out and all(e["kind"] == "identity" for e in out)


def test_prune_is_deterministic() -> None:
    def build() -> dict:
        hot = H.empty_hot()
        for i in range(30):
            H.add_lesson(hot, f"l{i} " + "z" * 200, "lessons", (i % 7) / 7, T0 + (i % 3))
            H.add_event(hot, f"e{i}", T0 + (i % 4))
        return hot

    a, b = build(), build()
    assert H.prune_hot(a) == H.prune_hot(b)
    assert dumps(a) == dumps(b)


def test_lesson_reinforcement_keeps_one_item() -> None:
    hot = H.empty_hot()
    a = H.add_lesson(hot, "Never force-push main", "git", 0.6, T0)
    b = H.add_lesson(hot, "never  force-push MAIN", "git", 0.9, T0 + 5)
    assert a["id"] == b["id"] and len(hot["critical_lessons"]) == 1
    assert hot["critical_lessons"][0]["importance"] == 0.9


@pytest.mark.parametrize("fn", [
    lambda h: H.set_identity(h, "", "x"),
    lambda h: H.set_identity(h, "name", "  "),
    lambda h: H.set_profile(h, "k", "v" * 201),
    lambda h: H.add_event(h, "", T0),
    lambda h: H.upsert_task(h, "   ", None, T0),
    lambda h: H.add_lesson(h, "ok", "a//b", None, T0),
    lambda h: H.add_lesson(h, "ok", "lessons", 1.5, T0),
    lambda h: H.upsert_project(h, "", None, None, T0),
])
def test_bad_hot_input_refused(fn) -> None:
    hot = H.empty_hot()
    with pytest.raises(UsageError):
        fn(hot)
    assert hot == H.empty_hot()


def test_long_promoted_lesson_keeps_its_head_but_a_long_given_one_is_refused() -> None:
    hot = H.empty_hot()
    item = H.add_lesson(hot, "word " * 100, "lessons", 0.8, T0, keep_head=True)  # 500 chars: a promoted fact
    assert 0 < len(item["text"]) <= 300
    with pytest.raises(UsageError, match="lesson is 1200 characters; the maximum is 300"):
        H.add_lesson(hot, "x" * 1200, "lessons", 0.8, T0)
    assert len(hot["critical_lessons"]) == 1


def test_agent_change_logs_evictions_and_renders_markdown(config) -> None:
    mem = AgentMemory(config, "hotty", clock=Clock())
    mem.init()
    for i in range(12):
        mem.clock.t += 60
        mem.change(lambda s, now, i=i: H.add_event(s["hot"], f"event {i}", now), "event")
    state = mem.read_state()
    assert len(state["hot"]["active_context"]["events"]) == 10
    rows = [r for r in log_rows(mem) if r["kind"] == "event"]
    assert [r["what"] for r in rows] == ["event 0", "event 1"]
    assert all(r["reason"] == "event" and r["ts"] > 0 and r["why"] for r in rows)
    md = (mem.dir / "MEMORY.md").read_text("utf-8")
    assert "event 11" in md and "event 0" not in md
    on_disk = json.loads((mem.dir / "hot-memory-state.json").read_bytes())
    assert on_disk == state["hot"]
    assert len(dumps(on_disk)) <= HOT_MAX_BYTES


def test_markdown_sections(config) -> None:
    mem = AgentMemory(config, "md", clock=Clock())

    def fill(s: dict, now: float) -> None:
        H.set_identity(s["hot"], "name", "Claw")
        H.set_profile(s["hot"], "city", "北京")
        H.upsert_project(s["hot"], "EvoClaw", "agent framework", "active", now)
        H.upsert_task(s["hot"], "ship v1", "done", now)
        H.add_lesson(s["hot"], "Always run tests", "dev", 0.95, now)

    mem.change(fill, "fill")
    md = (mem.dir / "MEMORY.md").read_text("utf-8")
    for needle in ("## Identity", "- name: Claw", "- city: 北京", "**EvoClaw** — agent framework",
                   "- [x] ship v1", "Always run tests _(dev, 0.95)_"):
        assert needle in md


def test_hot_over_5kb_through_agent_logs_every_pruned_item(config) -> None:
    clock = Clock()
    mem = AgentMemory(config, "hotcap", clock=clock)

    def fill(s: dict, now: float) -> None:
        for i in range(10):
            H.upsert_project(s["hot"], f"project {i}", "d" * 190, "active", now + i)
            H.add_event(s["hot"], f"event {i} " + "e" * 180, now + i)
            H.upsert_task(s["hot"], f"task {i} " + "t" * 180, None, now + i)
        for i in range(20):
            H.add_lesson(s["hot"], f"lesson {i} " + "l" * 180, "lessons", 0.5 + i / 50, now + i)

    mem.change(fill, "fill")
    raw = (mem.dir / "hot-memory-state.json").read_bytes()
    assert len(raw) <= HOT_MAX_BYTES and raw == dumps(json.loads(raw))
    hot = json.loads(raw)
    rows = [r for r in mem.eviction_rows() if r["tier"] == "hot"]
    assert rows and all("over 5120 bytes" in r["why"] and r["reason"] == "fill" for r in rows)
    kept = ({x["id"] for x in hot["critical_lessons"]}
            | {x["id"] for k in ("projects", "events", "tasks") for x in hot["active_context"][k]})
    assert len(kept) + len(rows) == 50  # every item is either kept or logged
    assert len(mem.warnings) == len(rows)  # the caller is told, too


@pytest.mark.parametrize("setter,section", [(H.set_identity, "identity"), (H.set_profile, "owner_profile")])
def test_identity_key_is_trimmed(setter, section: str) -> None:
    hot = H.empty_hot()
    item = setter(hot, "  name ", "Clawd")
    assert item == {"key": "name", "value": "Clawd"}
    assert hot[section] == {"name": "Clawd"}


def test_event_ids_unique() -> None:
    hot = H.empty_hot()
    a = H.add_event(hot, "deployed v2", T0)
    b = H.add_event(hot, "deployed  v2", T0 + 0.4)  # same content, same second
    ids = [e["id"] for e in hot["active_context"]["events"]]
    assert a["id"] == b["id"] and len(ids) == len(set(ids)) == 1
    H.add_event(hot, "deployed v2", T0 + 60)  # a minute later it is a new event
    assert len(hot["active_context"]["events"]) == 2
