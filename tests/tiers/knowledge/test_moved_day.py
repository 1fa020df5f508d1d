"""A day said moved without the day it replaces updates the older memory that gave the thing another day (in part:
the rest of it stays true), at store time and in maintain alike; where the words do not say it is that thing,
nothing happens (tiers/knowledge/moved_day.py)."""
from __future__ import annotations

import pytest

from clock import Clock
from memoryd.tiers.knowledge.maintain import maintain
from memoryd.tiers.memory.agent import AgentMemory


@pytest.fixture
def clock() -> Clock:
    return Clock(1_780_000_000.0)


@pytest.fixture
def mem(config, archive, clock) -> AgentMemory:
    return AgentMemory(config, "main", archive=archive, clock=clock)


def _said(mem: AgentMemory, clock: Clock, texts: list[tuple[str, str]]) -> list[dict]:
    out = []
    for text, date in texts:
        clock.t += 60
        out.append(mem.store(text, "notes", 0.6, {"date": date}))
    return out


def _meta(mem: AgentMemory, mid: str) -> dict:
    return next(e for e in mem.read_state()["warm"]["entries"] if e["id"] == mid)["metadata"]


def test_a_check_up_moved_to_a_new_day_updates_the_one_booked_before(mem, clock) -> None:
    old, new = _said(mem, clock, [("Annual check-up with Dr Varga booked for 14 May.", "2026-05-02"),
                                  ("The surgery rang, they moved my check-up with Dr Varga to 21 May.", "2026-05-09")])
    assert _meta(mem, old["id"]).get("updated_by") == new["id"]
    assert _meta(mem, old["id"]).get("change_rule") == "moved-day"
    maintain(mem)  # the same rule in maintain: the answer stays
    assert _meta(mem, old["id"]).get("updated_by") == new["id"]
    found = [r["text"] for r in mem.retrieve("When is my check-up with Dr Varga now?", 5)]
    assert found.index(new["text"]) < found.index(old["text"])


@pytest.mark.parametrize("first, then", [
    # only names in common: whose it is (Harbour Clinic), not what (a flu jab is no staff party)
    ("Staff party at Harbour Clinic on 14 May.", "The flu jabs at Harbour Clinic moved to 21 May."),
    # the newer one names the day it moves from, and it is another one
    ("Team offsite planning call on 14 May.", "The team offsite moved from 2 June to 9 June."),
    # a relative day: which day it is depends on when it was said
    ("Dentist appointment at the Elm Street clinic on 14 May.", "The Elm Street dentist appointment moved to tomorrow."),
    # what is shared (class teacher) is not in the clause that moves a day (the parent evening)
    ("Kai started year two at Northgate on 1 September with Ms Adebayo as class teacher.",
     "There is a class teacher training that night, so our parent evening moved to 24 September."),
    # no word of moving a day
    ("Dentist appointment at the Elm Street clinic on 14 May.", "Dentist appointment at the Elm Street clinic, 21 May?"),
])
def test_nothing_is_updated_where_the_words_do_not_say_it_is_that_day_moving(mem, clock, first: str, then: str) -> None:
    old, _new = _said(mem, clock, [(first, "2026-05-02"), (then, "2026-05-09")])
    maintain(mem)
    assert not _meta(mem, old["id"]).get("updated_by")


def test_a_chinese_move_with_gai_dao_updates_the_earlier_day(mem, clock) -> None:
    old, new = _said(mem, clock, [("外婆在市一医院的复查约在5月14日。", "2026-05-02"),
                                  ("医院打电话来，外婆的复查改到5月21日。", "2026-05-09")])
    assert _meta(mem, old["id"]).get("updated_by") == new["id"]


def test_a_question_that_asks_no_day_keeps_the_older_memory_where_the_words_found_it(mem, clock) -> None:
    """Only the day moved: `who` is still answered by the older memory, which is not covered by the newer one."""
    old, new = _said(mem, clock, [("Gran's eye check-up at the Elm Street clinic is with her eye doctor, Dr Okonkwo, "
                                   "on 14 May.", "2026-05-02"),
                                  ("The Elm Street clinic rang: Gran's eye check-up moved to 21 May.", "2026-05-09")])
    assert _meta(mem, old["id"]).get("updated_by") == new["id"]
    who = mem.retrieve("Who is Gran's eye doctor?", 5)
    assert who[0]["id"] == old["id"]
    assert not any(s.get("stage") == "current" for r in who for s in r.get("stages") or [])
    when = mem.retrieve("When is Gran's eye check-up now?", 5)
    assert [r["id"] for r in when].index(new["id"]) < [r["id"] for r in when].index(old["id"])
