"""A dated event or task said again with a new day and a word of change replaces the hot item of the old day;
one shared word, or no word of change, replaces nothing."""
from __future__ import annotations

import datetime as dt

import pytest

from clock import Clock
from memhelp import AgentMemory
from memoryd.tiers.cold.source import LazyIndex
from memoryd.tiers.ingest.dailynotes import ingest
from memoryd.tiers.memory.consolidate import consolidate


def _day(text: str) -> float:
    return dt.datetime.fromisoformat(text).replace(tzinfo=dt.timezone.utc).timestamp()


def _live(config, notes: dict[str, list[str]]) -> AgentMemory:
    clock = Clock(_day("2026-03-01T20:00:00"))
    mem = AgentMemory(config, "main", archive=LazyIndex(config), clock=clock)
    folder = config.workspace / "memory"
    folder.mkdir(parents=True, exist_ok=True)
    for day, lines in notes.items():
        clock.t = _day(f"{day}T20:00:00")
        (folder / f"{day}.md").write_text(f"# {day}\n\n## 09:10\n" + "".join(f"- {x}\n" for x in lines), "utf-8")
        ingest(mem, config.workspace, day)
    consolidate(mem, "daily")
    return mem


def _events(mem: AgentMemory) -> list[str]:
    return [e["text"] for e in mem.read_state()["hot"]["active_context"]["events"]]


def test_an_appointment_moved_to_another_day_leaves_only_the_new_day_in_hot(config) -> None:
    mem = _live(config, {"2026-03-02": ["Dentist appointment at the Elm Street clinic on March 12."],
                         "2026-03-04": ["The Elm Street clinic called: the dentist appointment moved to March 19."]})
    events = _events(mem)
    assert len(events) == 1 and "March 19" in events[0]
    assert "March 12" not in (mem.dir / "MEMORY.md").read_text("utf-8")
    assert any("moved to another day" in r["why"] for r in mem.eviction_rows() if r["tier"] == "hot")
    assert any("March 12" in r["text"] for r in mem.retrieve("dentist appointment Elm Street clinic", 5))  # kept


def test_a_chinese_appointment_moved_with_gai_dao_replaces_the_old_day(config) -> None:
    mem = _live(config, {"2026-03-02": ["外婆约了市一医院的体检，3月12号。"],
                         "2026-03-05": ["医院打电话来，外婆的体检改到3月19号。"]})
    events = _events(mem)
    assert len(events) == 1 and "3月19号" in events[0]


def test_one_shared_word_or_no_word_of_change_replaces_nothing(config) -> None:
    mem = _live(config, {"2026-03-02": ["Team dinner at the harbour grill on March 12.",
                                        "Dentist appointment at the Elm Street clinic on March 13."],
                         "2026-03-04": ["The flight to the team offsite moved to March 19.",
                                        "Dentist appointment for Kai at the Elm Street clinic on March 20."]})
    assert len(_events(mem)) == 4


def test_which_was_said_later_comes_from_the_notes_not_from_when_they_were_read(config) -> None:
    """Two notes read in the same second, the later one first: the day said later still wins."""
    mem = AgentMemory(config, "main", archive=LazyIndex(config), clock=Clock(_day("2026-03-09T20:00:00")))
    folder = config.workspace / "memory"
    folder.mkdir(parents=True, exist_ok=True)
    notes = {"2026-03-04": "The Elm Street clinic called: the dentist appointment moved to March 19.",
             "2026-03-02": "Dentist appointment at the Elm Street clinic on March 12."}
    for day, line in notes.items():   # the later note is read first, at the same clock time
        (folder / f"{day}.md").write_text(f"# {day}\n\n## 09:10\n- {line}\n", "utf-8")
        ingest(mem, config.workspace, day)
    consolidate(mem, "daily")
    events = _events(mem)
    assert len(events) == 1 and "March 19" in events[0]



@pytest.mark.parametrize("first, then, day", [
    ("Launch party for the Quenby book at the Quay Hall on March 28.",            # a correction
     "I wrote March 28 for the Quenby book launch but it's actually March 21.", "March 21"),
    ("The Quenby book launch at the Quay Hall is on March 28.",                   # the old day set against it
     "The Quenby book launch is on March 21 (not March 28), still at the Quay Hall.", "March 21"),
    ("Gran's eye appointment is on March 19 at the Elm Street clinic.",             # one shared word, the old
     "That appointment moved again: not the 19th any more, now March 26.", "March 26"),  # day said to be gone
])
def test_a_corrected_or_negated_day_replaces_the_one_said_first(config, first: str, then: str, day: str) -> None:
    events = _events(_live(config, {"2026-03-02": [first], "2026-03-04": [then]}))
    assert len(events) == 1 and day in events[0]


def _dated(mem: AgentMemory) -> list[str]:
    ctx = mem.read_state()["hot"]["active_context"]
    return [e["text"] for part in ("events", "tasks") for e in ctx[part]]


def test_a_move_said_again_replaces_the_one_earlier_move_a_pronoun_named(config) -> None:
    """'they pushed it to March 19' names its thing with a pronoun; 'moved again' then moves that one."""
    mem = _live(config, {"2026-03-02": ["The grant report for the Quenby trust is due March 12."],
                         "2026-03-04": ["Good news: since we need to rework the budget they pushed it to March 19."],
                         "2026-03-06": ["The trust wants one more appendix, so the deadline moved again to March 26."]})
    dated = _dated(mem)
    assert not any("March 19" in t for t in dated) and any("March 26" in t for t in dated)


def test_again_is_silent_when_two_earlier_moves_could_be_the_one_meant(config) -> None:
    mem = _live(config, {"2026-03-02": ["Good news: since we need to rework the budget they pushed it to March 19.",
                                        "The deadline for the visa forms moved to March 20."],
                         "2026-03-06": ["Ugh, the deadline moved again to March 26."]})
    dated = _dated(mem)
    assert any("March 19" in t for t in dated) and any("March 20" in t for t in dated)


def test_an_item_already_on_the_new_day_is_no_earlier_move_again_could_mean(config) -> None:
    mem = _live(config, {"2026-03-02": ["The grant report for the Quenby trust is due March 12."],
                         "2026-03-04": ["Good news: since we need to rework the budget they pushed it to March 19."],
                         "2026-03-05": ["The budget annex now has a submission deadline of March 26."],
                         "2026-03-06": ["The trust wants one more appendix, so the deadline moved again to March 26."]})
    assert not any("March 19" in t for t in _dated(mem))


def test_one_move_told_twice_is_the_one_move_again_means(config) -> None:
    """'they pushed it to March 19' in the chat and again in the evening's note is one move: 'moved again' moves
    both tellings (it was silent, or not, as hot's order of random ids fell)."""
    mem = _live(config, {"2026-03-02": ["The grant report for the Quenby trust is due March 12."],
                         "2026-03-04": ["Good news: since we need to rework the budget they pushed it to March 19.",
                                        "Quenby trust report: the budget rework moved the deadline to March 19."],
                         "2026-03-06": ["The trust wants one more appendix, so the deadline moved again to March 26."]})
    dated = _dated(mem)
    assert not any("March 19" in t for t in dated) and any("March 26" in t for t in dated)
