"""Hot items across a merge on a real sqld: a lesson promoted from a memory is kept when the memory moved to
cold, dropped only when it was forgotten; whatever a merge removes is named in evictions.jsonl (ids only)."""
from __future__ import annotations

import json

from memoryd.sync.critical import pull_now, push_now
from memoryd.tiers.memory.forget import forget_id
from memoryd.tiers.memory.hot import add_event, add_lesson, remove_ids
from memhelp import AgentMemory

from synchelp import AGENT, device, first_device, state_of

FACT = "Always pin the base image digest before a release"


def _promote(mem, entry_id: str) -> str:
    """What consolidation's promote step does: the warm fact becomes a hot lesson naming its source."""
    def step(state, now):
        lesson = add_lesson(state["hot"], FACT, "lessons", 0.9, now)
        lesson["source_id"] = entry_id
        return lesson["id"]
    return mem.change(step, "consolidate")


def _lessons(config) -> set[str]:
    return {les["id"] for les in state_of(config)["hot"]["critical_lessons"]}


def test_a_lesson_whose_memory_moved_to_cold_survives_merges(tmp_path, sqld) -> None:
    sqld.wipe()
    a, key = first_device(tmp_path, sqld.http_url)
    mem = AgentMemory(a, AGENT)
    entry = mem.store(FACT, "lessons", 0.9)
    lesson = _promote(mem, entry["id"])
    push_now(a, AGENT)  # the fact is stamped alive in warm
    mem.archive_entries([entry])  # then it leaves warm for cold (a tombstone in warm's register)
    mem.change(lambda s, now: s["warm"]["entries"].remove(next(e for e in s["warm"]["entries"]
                                                               if e["id"] == entry["id"])), "consolidate")
    push_now(a, AGENT)
    b = device(tmp_path, "b", sqld.http_url, key)
    pull_now(b, AGENT)
    AgentMemory(b, AGENT).store("an unrelated fact from b", "misc")
    push_now(b, AGENT)
    AgentMemory(a, AGENT).store("an unrelated fact from a", "misc")
    pull_now(a, AGENT)  # a merge on a
    assert lesson in _lessons(a) and lesson in _lessons(b)


def test_a_lesson_dropped_because_its_memory_was_forgotten_elsewhere_is_logged(tmp_path, sqld) -> None:
    sqld.wipe()
    a, key = first_device(tmp_path, sqld.http_url)
    entry = AgentMemory(a, AGENT).store(FACT, "lessons", 0.9)
    push_now(a, AGENT)
    b = device(tmp_path, "b", sqld.http_url, key)
    pull_now(b, AGENT)
    lesson = _promote(AgentMemory(b, AGENT), entry["id"])  # b promotes it while a forgets it
    forget_id(AgentMemory(a, AGENT), entry["id"])
    push_now(a, AGENT)
    pull_now(b, AGENT)
    assert lesson not in _lessons(b)  # a forgotten fact does not come back through its lesson
    log = b.agent_dir(AGENT) / "evictions.jsonl"
    rows = [json.loads(line) for line in log.read_text().splitlines()]
    assert [r for r in rows if r["id"] == lesson and r["tier"] == "hot" and r["what"] == ""
            and r["why"] == "its source memory was forgotten on another device"]
    assert FACT not in log.read_text()  # a forget forgets: the row names the id only


def test_a_hot_item_removed_on_another_device_is_logged_here(tmp_path, sqld) -> None:
    sqld.wipe()
    a, key = first_device(tmp_path, sqld.http_url)
    event = AgentMemory(a, AGENT).change(lambda s, now: add_event(s["hot"], "storm drill at noon", now)["id"], "event")
    push_now(a, AGENT)
    b = device(tmp_path, "b", sqld.http_url, key)
    pull_now(b, AGENT)
    AgentMemory(b, AGENT).change(lambda s, now: remove_ids(s["hot"], {event}), "forget")
    push_now(b, AGENT)
    pull_now(a, AGENT)
    assert event not in {e["id"] for e in state_of(a)["hot"]["active_context"]["events"]}
    rows = [json.loads(line) for line in (a.agent_dir(AGENT) / "evictions.jsonl").read_text().splitlines()]
    assert [r for r in rows if r["id"] == event and r["kind"] == "event"
            and r["why"] == "removed on another device (evicted or forgotten there)"]
