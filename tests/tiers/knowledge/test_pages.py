"""Reflect: a page per active entity with a person's edits kept byte for byte, opinions.md, safe slugs, forget scrubs pages."""
from __future__ import annotations

from pathlib import Path

import pytest

from clock import Clock
from memhelp import AgentMemory
from memoryd.tiers.base.errors import UsageError
from memoryd.tiers.knowledge import kinds, pages
from memoryd.tiers.knowledge.reflect import reflect, scrub_pages
from memoryd.tiers.memory.forget import forget_id


def _busy(mem, who: str = "Alice", n: int = 11) -> list[dict]:
    return [mem.store(f"Call {i} with {who} about the roadmap", "work") for i in range(n)]


def test_pages_keep_a_persons_edit_across_two_reflects(config, archive, tmp_path: Path) -> None:
    clock = Clock()
    mem = AgentMemory(config, "a", archive=archive, clock=clock)
    _busy(mem)
    mem.store("Alice prefers short replies", "people",
              metadata={kinds.KIND_KEY: kinds.OPINION, kinds.CONFIDENCE_KEY: 0.8,
                        kinds.EVIDENCE_KEY: [{"id": "ev1", "delta": 0.1, "at": 1, "why": "said so"}]})
    ws = tmp_path / "ws"
    ws.mkdir()
    report = reflect(mem, archive, clock(), 7, [ws])
    assert [e["name"] for e in report["entities"]] == ["Alice"]
    page = mem.dir / "bank" / "entities" / "Alice.md"
    assert (ws / "bank" / "entities" / "Alice.md").read_text() == page.read_text()
    assert page.stat().st_mode & 0o777 == 0o600 and page.parent.stat().st_mode & 0o777 == 0o700
    text = page.read_text()
    assert "(c=0.80) Alice prefers short replies" in text and "## Timeline" in text
    edited = "My own notes about Alice.\n\n" + text + "\nMore notes — keep me ✓\n"
    page.write_text(edited)
    mem.store("Alice said the launch moves to Friday", "work")
    again = reflect(mem, archive, clock(), 7, [ws])
    now = page.read_text()
    assert now.startswith("My own notes about Alice.\n\n") and now.endswith("\nMore notes — keep me ✓\n")
    assert "the launch moves to Friday" in now and str(page) in again["written"]
    opinions = (mem.dir / "bank" / "opinions.md").read_text()
    assert "(c=0.80) Alice prefers short replies" in opinions and "`ev1`" in opinions
    assert reflect(mem, archive, clock(), 7, [ws])["written"] == []  # nothing new: nothing rewritten


def test_named_twice_or_not_recent_gets_no_page(config, archive) -> None:
    clock = Clock()
    mem = AgentMemory(config, "a", archive=archive, clock=clock)
    _busy(mem, n=2)  # the near miss: two memories in 30 days are not yet an entity that matters
    assert reflect(mem, archive, clock(), 7)["entities"] == []
    _busy(mem, "Bob")
    clock.days(3)  # Bob named in the last week, not in the last day
    assert reflect(mem, archive, clock(), 1)["entities"] == []


def test_three_weeks_of_ordinary_use_give_the_most_mentioned_a_page(config, archive) -> None:
    """Two mentions a week never make an entity active (hotness stays near 0.2); it is still one that matters."""
    clock = Clock()
    mem = AgentMemory(config, "a", archive=archive, clock=clock)
    for week in range(3):
        mem.store(f"Call {week} with Carmen about the kitchen tiles", "home")
        mem.store(f"Lunch with Carmen, week {week}", "home")
        mem.store(f"Talked to Dmitri once in week {week}" if week == 0 else f"Quiet week {week}", "home")
        clock.days(7)
    report = reflect(mem, archive, clock(), 30)
    assert [e["name"] for e in report["entities"]] == ["Carmen"] and report["entities"][0]["hotness"] < 0.5


def test_a_page_shows_current_values_first_and_history_after(config, archive) -> None:
    clock = Clock()
    mem = AgentMemory(config, "a", archive=archive, clock=clock)
    _busy(mem, "Hiroshi", n=3)
    new = mem.store("Hiroshi said his office moved to the fifth floor", "people")
    mem.store("Hiroshi's office is on the third floor", "people", metadata={kinds.SUPERSEDED_BY_KEY: new["id"]})
    reflect(mem, archive, clock(), 7)
    text = (mem.dir / "bank" / "entities" / "Hiroshi.md").read_text()
    facts, history = text.index("## Facts"), text.index("## History (superseded)")
    assert facts < text.index("fifth floor") < history < text.index("~~Hiroshi's office is on the third floor~~")
    assert text[facts:history].count("third floor") == 0


def test_forget_rewrites_the_pages_that_quote_it(config, archive) -> None:
    clock = Clock()
    mem = AgentMemory(config, "a", archive=archive, clock=clock)
    stored = _busy(mem)
    reflect(mem, archive, clock(), 7)
    page = mem.dir / "bank" / "entities" / "Alice.md"
    assert stored[3]["id"] in page.read_text()
    forget_id(mem, stored[3]["id"])
    assert scrub_pages(mem, archive, {stored[3]["id"]}, clock()) == [str(page)]
    assert stored[3]["id"] not in page.read_text() and "Call 3 with" not in page.read_text()


@pytest.mark.parametrize("name, want", [("The Castle", "The-Castle"), ("../../etc/passwd", "etc-passwd"),
                                        ("老王", "老王"), ("..", None), ("a/b", "a-b"), (".hidden", "hidden")])
def test_slugs_stay_in_the_folder(name: str, want: str | None) -> None:
    s = pages.slug(name)
    assert "/" not in s and not s.startswith(".") and s
    assert s == want if want else s.startswith("entity-")


def test_broken_markers_refuse_and_change_nothing(tmp_path: Path) -> None:
    path = tmp_path / "p.md"
    path.write_text("<!-- memoryd:begin entity key=x -->\nno end\n")
    with pytest.raises(UsageError):
        pages.write_page(path, lambda nl: "block", "entity", "X")
    assert path.read_text() == "<!-- memoryd:begin entity key=x -->\nno end\n"
