"""What a daily note puts in hot keeps the memory it came from, is dated by it, and leaves hot when its day has
passed; a profile preference is the owner's only when the owner's clause says it."""
from __future__ import annotations

import datetime as dt

import pytest

from clock import Clock
from memhelp import AgentMemory
from memoryd.tiers.cold.source import LazyIndex
from memoryd.tiers.distillation.fact_rules import classify
from memoryd.tiers.ingest.dailynotes import ingest
from memoryd.tiers.ingest.hot_updates import owner_says
from memoryd.tiers.memory.consolidate import consolidate

NOTE = """# 2026-03-02

## 09:10
- Lesson learned: never merge the Friday release branch without a second reviewer.
- The team dinner is on March 6 at the harbour grill.
- Remind me to renew the parking permit by March 9.
"""


def _day(text: str) -> float:
    return dt.datetime.fromisoformat(text).replace(tzinfo=dt.timezone.utc).timestamp()


def test_hot_items_from_a_note_keep_their_source_and_a_passed_day_leaves_hot(config) -> None:
    clock = Clock(_day("2026-03-04T12:00:00"))        # the note of March 2, read two days later
    mem = AgentMemory(config, "main", archive=LazyIndex(config), clock=clock)
    (config.workspace / "memory").mkdir(parents=True, exist_ok=True)
    (config.workspace / "memory" / "2026-03-02.md").write_text(NOTE, encoding="utf-8")
    ingest(mem, config.workspace, "2026-03-02")
    hot = mem.read_state()["hot"]
    items = hot["critical_lessons"] + hot["active_context"]["events"] + hot["active_context"]["tasks"]
    assert len(items) == 3 and all(i.get("source_id") for i in items)   # each keeps the memory it came from
    stored = {e["id"] for e in mem.read_state()["warm"]["entries"]}
    assert {i["source_id"] for i in items} <= stored

    clock.days(3)                                       # March 7: the dinner has passed, the permit is not due
    lesson = next(r for r in mem.retrieve("Friday release branch reviewer", 5) if r["tier"] == "hot")
    assert lesson["date"] == "2026-03-02"               # dated by the note it came from, not by today
    consolidate(mem, "daily")
    hot = mem.read_state()["hot"]
    assert hot["active_context"]["events"] == []
    assert len(hot["active_context"]["tasks"]) == 1 and len(hot["critical_lessons"]) == 1
    assert "team dinner" not in (mem.dir / "MEMORY.md").read_text("utf-8")
    assert any("team dinner" in r["text"] for r in mem.retrieve("team dinner", 5))   # still remembered
    rows = [r for r in mem.eviction_rows() if r["tier"] == "hot"]
    assert any("has passed" in r["why"] for r in rows)

    clock.days(20)                                      # the permit's day is long past: out of hot too
    consolidate(mem, "daily")
    assert mem.read_state()["hot"]["active_context"]["tasks"] == []
    assert len(mem.read_state()["hot"]["critical_lessons"]) == 1   # a lesson has no day: it stays


def test_a_task_with_no_day_leaves_hot_when_its_memory_ages_out_of_warm(config) -> None:
    from memoryd.tiers.ingest.conversation import distill_segment
    from memoryd.tiers.ingest.openclaw.events import Turn

    said = _day("2026-03-02T09:10:00")
    clock = Clock(said + 3600)
    mem = AgentMemory(config, "main", archive=LazyIndex(config), clock=clock)
    distill_segment(mem, [Turn("s1", 1, "user", "ok, florist stuff: I need to pay the second instalment", said)])
    [task] = mem.read_state()["hot"]["active_context"]["tasks"]
    clock.days(5)                                        # recent: still active
    consolidate(mem, "daily")
    assert [t["id"] for t in mem.read_state()["hot"]["active_context"]["tasks"]] == [task["id"]]
    clock.days(60)                                       # its memory decays out of warm: the task goes with it
    consolidate(mem, "daily")
    assert mem.read_state()["hot"]["active_context"]["tasks"] == []
    assert task["source_id"] not in {e["id"] for e in mem.read_state()["warm"]["entries"]}
    assert any(r["why"] == "its memory has aged out of warm" for r in mem.eviction_rows() if r["tier"] == "hot")
    assert any("instalment" in r["text"] for r in mem.retrieve("florist instalment", 5))   # still remembered


@pytest.mark.parametrize("text, owners", [
    ("I prefer window seats on long flights", True),
    ("我不喝咖啡，只喝茶", True),
    ("Good call, Dana prefers green tea, I will order it", False),
    ("好主意，阿明不吃辣，我给他点清淡的", False),
    ("Marco prefers async updates, I think", False),
])
def test_the_owner_profile_takes_the_owners_own_clause(text: str, owners: bool) -> None:
    assert owner_says(text) is owners


@pytest.mark.parametrize("text, kind", [
    ("I need to send the signed lease back by Friday", "task"),
    ("I need to be honest with myself, the weekly newsletter is not happening", None),
    ("We have to think about the venue again", None),
])
def test_a_need_that_is_a_state_of_mind_is_no_task(text: str, kind: str | None) -> None:
    assert classify(text, False) == kind


def test_an_assistants_echo_of_a_lesson_in_a_note_is_not_a_lesson_but_the_owners_line_is(config) -> None:
    mem = AgentMemory(config, "main", archive=LazyIndex(config), clock=Clock(_day("2026-03-02T12:00:00")))
    (config.workspace / "memory").mkdir(parents=True, exist_ok=True)
    (config.workspace / "memory" / "2026-03-02.md").write_text(
        "# 2026-03-02\n\n## 09:10\n- Assistant: Saved as a lesson: ask every new supplier for a sample first.\n"
        "- 助手：记下了，教训：合同先给法务看。\n- Kit: lesson for me: label the spare keys before lending them.\n",
        encoding="utf-8")
    ingest(mem, config.workspace, "2026-03-02")
    lessons = [x["text"] for x in mem.read_state()["hot"]["critical_lessons"]]
    assert lessons == ["Kit: lesson for me: label the spare keys before lending them."]
    assert any("sample first" in r["text"] for r in mem.retrieve("new supplier sample", 5))   # still remembered


def test_an_assistants_echo_of_a_day_puts_no_event_in_hot_and_two_days_are_two_events(config) -> None:
    mem = AgentMemory(config, "main", archive=LazyIndex(config), clock=Clock(_day("2026-03-02T12:00:00")))
    (config.workspace / "memory").mkdir(parents=True, exist_ok=True)
    (config.workspace / "memory" / "2026-03-02.md").write_text(
        "# 2026-03-02\n\n## 09:10\n- Kit: dentist appointment for me at the Elm Street clinic on March 12\n"
        "- Assistant: So the dentist appointment is on March 12, noted.\n"
        "- Kit: and a dentist appointment for Imelda at the Elm Street clinic on March 20\n", encoding="utf-8")
    ingest(mem, config.workspace, "2026-03-02")
    events = [x["text"] for x in mem.read_state()["hot"]["active_context"]["events"]]
    assert len(events) == 2 and all(e.startswith("Kit:") for e in events), events
