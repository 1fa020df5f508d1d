"""The daily digest on a fixed clock: every source, decided/learned/changed/active, stored once per day."""
from __future__ import annotations

from clock import Clock
from memhelp import AgentMemory
from memoryd.tiers.knowledge import digest, kinds
from memoryd.tiers.knowledge import log as klog


def _day(clock: Clock) -> str:
    return digest.parse_date("today", clock())


def test_digest_of_a_day_across_sources_replaced_not_duplicated(config, archive) -> None:
    clock = Clock()  # 2023-11-14
    mem = AgentMemory(config, "a", archive=archive, clock=clock)
    mem.store("We decided to ship warelay v2.0.0 with Alice", "work")
    mem.store("Lesson learned: never deploy on Fridays", "lessons",
              metadata={"source": "memory/2023-11-14.md#L3", "date": "2023-11-14"})
    archive.put("a", [{"id": "t1", "text": "Can you remind me about the 张伟 call?", "category": "chat",
                       "created_at": int(clock()), "metadata": {"role": "user", "session_id": "s1"}},
                      {"id": "t2", "text": "Sure, noted.", "category": "chat", "created_at": int(clock()),
                       "metadata": {"role": "assistant", "session_id": "s1"}}])
    old = mem.store("The garage code is 4417", "home")
    new = mem.store("The garage code changed to 9931", "home", metadata={kinds.SUPERSEDES_KEY: [old["id"]]})
    mem.record_knowledge([klog.row("supersede", old["id"], "a newer code", old["text"], by=new["id"])], clock())
    mem.store("Something from another day", "x", metadata={"date": "2023-11-10"})
    date = _day(clock)
    data = digest.build(mem, archive, date, mem.knowledge_rows())
    assert data["date"] == "2023-11-14" and data["memories"] == 6
    assert data["sources"] == {"conversation": 2, "notes": 1, "stored": 3}
    assert data["decided"] == ["We decided to ship warelay v2.0.0 with Alice"]
    assert "Lesson learned: never deploy on Fridays" in data["learned"]
    assert any("9931" in c for c in data["changed"]) and any("4417" in c for c in data["changed"])
    named = {e["name"] for e in data["entities"]}
    assert "Alice" in named and "v2.0.0" not in named  # a version is a value, not an entity (entity rules v3)
    assert "Sure, noted." not in data["text"] and "another day" not in data["text"]
    first = digest.store(mem, data)
    assert first["metadata"][digest.DATE_KEY] == date and kinds.kind_of(first["metadata"]) == kinds.SUMMARY
    mem.store("We decided to rename the repo", "work")
    second = digest.store(mem, digest.build(mem, archive, date, mem.knowledge_rows()))
    assert second["id"] == first["id"]
    held = [e for e in mem.read_state()["warm"]["entries"] if digest.DATE_KEY in e["metadata"]]
    assert len(held) == 1 and "rename the repo" in held[0]["text"]
    assert digest.latest_lines(mem.read_state()["warm"]["entries"])[0].startswith("Daily digest 2023-11-14")
    # the digest names entities but does not make them hotter
    again = digest.build(mem, archive, date, mem.knowledge_rows())
    assert {e["name"]: e["hotness"] for e in again["entities"]}["Alice"] == 0.05


def test_a_digest_that_left_warm_is_replaced_in_the_index(config, archive) -> None:
    clock = Clock()
    mem = AgentMemory(config, "a", archive=archive, clock=clock)
    mem.store("We decided to adopt Rust", "work")
    date = _day(clock)
    first = digest.store(mem, digest.build(mem, archive, date))

    def evict(state, now):
        archive.put("a", [e for e in state["warm"]["entries"] if e["id"] == first["id"]])
        state["warm"]["entries"] = [e for e in state["warm"]["entries"] if e["id"] != first["id"]]
    mem.change(evict, "test")
    mem.store("We decided to drop Go", "work")
    digest.store(mem, digest.build(mem, archive, date))
    assert all(e["id"] != first["id"] for e in mem.read_state()["warm"]["entries"])
    assert "drop Go" in archive.get("a", [first["id"]])[0]["text"]
