"""One current truth across wordings on the real local index and warm file: a value said as "X: v", a switch, a
move, a reminder and the assistant's echo of it are one thing; the newest value leads, stale ones stay in
history, one value said twice is returned once, and filler (an assistant's pleasantry) is not returned."""
from __future__ import annotations

import pytest

from memoryd.tiers.knowledge.lowvalue import is_low_value
from memoryd.tiers.knowledge.maintain import maintain
from memoryd.tiers.memory.agent import AgentMemory
from memoryd.tiers.retrieval.filters import Filters

DAY = 86400.0
T0 = 1_780_000_000.0


@pytest.fixture
def mem(config, archive) -> AgentMemory:
    return AgentMemory(config, "main", archive=archive, clock=lambda: T0)


def turn(mid: str, text: str, day: int, role: str = "user") -> dict:
    at = T0 - (30 - day) * DAY
    return {"id": mid, "text": text, "category": f"conversations/{role}", "importance": 0.4, "created_at": int(at),
            "metadata": {"kind": "turn", "role": role, "date": f"2026-05-{day:02d}", "time": f"2026-05-{day:02d}T10:00:00Z"}}


def note(mid: str, text: str, day: int) -> dict:
    return {"id": mid, "text": text, "category": "notes", "importance": 0.6, "created_at": int(T0 - (30 - day) * DAY),
            "metadata": {"date": f"2026-05-{day:02d}"}}


def test_a_switch_naming_what_it_replaces_leads_and_an_unnamed_one_changes_nothing(mem, archive) -> None:
    archive.put("main", [
        note("a1", "billing-svc deploy target: Heroku", 2),
        turn("a2", "We migrated the billing-svc deploys from Heroku to Render yesterday, all green.", 9),
        turn("a3", "Nice, billing-svc deploys on Render.", 9, "assistant"),
        note("a4", "billing-svc deploy target: Fly", 20),          # no value named: silent
        turn("a5", "The billing-svc repo is gitlab.com/shop/billing-svc", 3),
    ])
    maintain(mem)
    stored = {e["id"]: e["metadata"] for e in archive.iter_entries("main")}
    assert stored["a1"]["superseded_by"] == "a2"
    assert all("superseded_by" not in stored[i] for i in ("a2", "a3", "a4", "a5"))
    found = mem.retrieve("billing-svc deploy target", limit=10)   # no question: no preference for the latest
    ids = [r["id"] for r in found]
    assert set(ids) >= {"a1", "a2", "a4", "a5"}                # nothing the words found is dropped
    assert ids.index("a2") == ids.index("a1") - 1                # the replacement directly above what it replaced
    echo = next(r for r in found if r["id"] == "a2")
    assert echo.get("restated_by") == ["a3"]                     # the assistant's echo folds into the person's words


def test_one_value_said_twice_is_returned_once(mem, archive) -> None:
    archive.put("main", [
        turn("b1", "Please remember Ines is allergic to shellfish.", 4),
        turn("b3", "I'll remember Ines is allergic to shellfish.", 4, "assistant"),
        note("b4", "Ines moved to the growth team.", 6),
    ])
    found = mem.retrieve("what is Ines allergic to", limit=5)
    holding = [r for r in found if "shellfish" in r["text"]]
    assert len(holding) == 1 and holding[0]["restated_by"] == ["b3"]
    assert any(r["id"] == "b4" for r in found)  # a team is not an allergy: nothing superseded


def test_chinese_wordings_of_one_change(mem, archive) -> None:
    archive.put("main", [
        note("c1", "小刘所在城市：成都", 1),
        turn("c2", "小刘从成都搬到重庆了。", 12),
        turn("c0", "小周也住在成都。", 5),                          # another person in that city: not replaced
    ])
    maintain(mem)
    stored = {e["id"]: e["metadata"] for e in archive.iter_entries("main")}
    assert stored["c1"]["superseded_by"] == "c2" and "superseded_by" not in stored["c0"]
    ids = [r["id"] for r in mem.retrieve("小刘现在在哪个城市", limit=5)]
    assert ids.index("c2") < ids.index("c1")


def test_maintain_marks_the_replaced_wording_for_good(mem, archive) -> None:
    archive.put("main", [note("d1", "Office wifi name: Harbor-5G", 1),
                         turn("d2", "We renamed the office wifi from Harbor-5G to Quay-Guest.", 8),
                         note("d3", "Orion prod region: eu-central-1", 2),
                         turn("d4", "We moved the Orion prod region from eu-central-1 to us-east-2.", 9)])
    counts = maintain(mem)
    assert counts["superseded"] == 2
    stored = {e["id"]: e["metadata"] for e in archive.iter_entries("main")}
    assert stored["d1"]["superseded_by"] == "d2" and stored["d2"]["supersedes"] == ["d1"]
    assert stored["d3"]["superseded_by"] == "d4"
    assert maintain(mem)["written"] == 0
    ids = [r["id"] for r in mem.retrieve("Orion prod region eu-central-1", limit=5)]
    assert ids[:2] == ["d4", "d3"]


def test_a_change_back_makes_the_first_telling_current_again(mem, archive) -> None:
    archive.put("main", [note("b1", "Gloves and masks come from Kestrel Dental.", 2),
                         turn("b2", "We switched the consumables from Kestrel Dental to Ardent Supply.", 8),
                         turn("b3", "The consumables moved back from Ardent Supply to Kestrel Dental today.", 20)])
    maintain(mem)
    stored = {e["id"]: e["metadata"] for e in archive.iter_entries("main")}
    assert stored["b2"]["superseded_by"] == "b3"
    assert "superseded_by" not in stored["b1"]  # it states what is true again


@pytest.mark.parametrize("back, restored", [
    ("The pony hated the Oat Crunch. she's back on Meadow Mix as of today", True),
    ("马驹吃燕麦脆不习惯，又换回草原料了", True),
    ("The pony is back to Meadow Mix now, the Oat Crunch made her fizzy", True),
    ("The pony went back to Meadow Mix's farm shop for hay, Oat Crunch was sold out", False),   # a trip
    ("she's back on Meadow Mix, the hay I mean", False),   # names nothing it goes back from
    ("过了年，马驹的饲料改回草原料了", True),                # 改回 can only be a change back, and names the feed
    ("过了年，马驹住的马厩改回草原料那家了", False),          # the stable, not the feed
    ("过了年，马驹的饲料改回来了，还是草原料", True),         # the value said after 改回来
    ("牧场的围栏改回来了，还是草原料那家卖得贵", False),       # names neither the feed nor what it left
])
def test_a_change_back_said_without_from_to_makes_the_first_telling_current_again(
        mem, archive, back: str, restored: bool) -> None:
    """`from <A> to <B>`, later `back on <A>` (换回<A>): the first telling is current again, when the going back
    names <B> and, for a plain `back to`, says now."""
    first, change = (("马驹的饲料是草原料。", "马驹的饲料从草原料换成了燕麦脆。") if "马驹" in back else
                     ("The pony's hard feed is Meadow Mix.", "Switched the pony from Meadow Mix to Oat Crunch."))
    archive.put("main", [note("f1", first, 2), turn("f2", change, 8), turn("f3", back, 20)])
    maintain(mem)
    stored = {e["id"]: e["metadata"] for e in archive.iter_entries("main")}
    assert ("superseded_by" not in stored["f1"]) is restored


@pytest.mark.parametrize("first, change, back, restored", [
    ("The loaf price is $3.15.", "The bakery raised the loaf price from $3.15 to $3.60.",
     "Loaf price back to $3.15 from Monday, the $3.60 lost us customers", True),                                                      # a plain `back to` before an amount
    ("面包卖8块一个。", "面包从8块涨到9块。", "面包又回到8块一个了，9块没人买", True),
    ("The depot is at 12 Elm St.", "The depot moved from 12 Elm St to 40 Oak Rd.",
     "Went back to 12 Elm St for the last boxes, 40 Oak Rd is much bigger", False),   # an address: a trip
    ("阿澄住在上海。", "阿澄从上海搬到北京。", "阿澄又回到上海出差，北京太干了", False),
])
def test_a_plain_going_back_to_an_amount_is_a_change_back(
        mem, archive, first: str, change: str, back: str, restored: bool) -> None:
    archive.put("main", [note("a1", first, 2), turn("a2", change, 8)])
    maintain(mem)
    assert "superseded_by" in {e["id"]: e["metadata"] for e in archive.iter_entries("main")}["a1"]
    archive.put("main", [turn("a3", back, 20)])
    maintain(mem)
    stored = {e["id"]: e["metadata"] for e in archive.iter_entries("main")}
    assert ("superseded_by" not in stored["a1"]) is restored


@pytest.mark.parametrize("back, restored", [
    ("the hall's free again, so choir's back on tuesdays at the Tarnside Hall", True),   # a weekday said as days
    ("From next month choir practice at the Tarnside Hall is back to Tuesday.", True),  # the thing, then is back to
    ("choir practice is back to Tuesday", False),     # names neither the place the move named nor the day left
    ("the Tarnside Hall is back to its Tuesday quiz", False),   # the hall's quiz, no day of the choir
])
def test_a_change_back_to_a_weekday_said_as_days_or_as_the_thing_being_back(
        mem, archive, back: str, restored: bool) -> None:
    archive.put("main", [note("w1", "Choir practice is on Tuesdays at the Tarnside Hall.", 2),
                         turn("w2", "Choir practice at the Tarnside Hall moved from Tuesday to Thursday.", 8),
                         turn("w3", back, 20)])
    maintain(mem)
    stored = {e["id"]: e["metadata"] for e in archive.iter_entries("main")}
    assert ("superseded_by" not in stored["w1"]) is restored


@pytest.mark.parametrize("text,role", [
    ("Sure, we can go over the budget draft tomorrow.", "assistant"),
    ("Happy to help with the migration whenever you're ready.", "assistant"),
    ("No problem, the invoice question can wait.", "assistant"),
    ("Thanks for sorting out the printer thing!", "user"),
    ("Let's talk about the roadmap next week.", "user"),
    ("Standup was fine, nothing to report.", "user"),
    ("好的，明天再说。", "user"),
])
def test_pleasantries_and_put_off_talks_are_filler(text: str, role: str) -> None:
    assert is_low_value(text, role)


@pytest.mark.parametrize("text,role", [
    ("Sure, the staging db moved to Aurora.", "assistant"),      # states a value
    ("Noted, the gate code is 7781.", "assistant"),               # a number
    ("Sure, we can go over the budget draft tomorrow.", "user"),  # the owner's plan, not an assistant's offer
    ("Thanks, the deploy worked on staging", "user"),
    ("Let's move the launch to May 3.", "user"),
])
def test_anything_stated_stays(text: str, role: str) -> None:
    assert not is_low_value(text, role)


def test_filler_turns_held_from_before_are_not_returned(mem, archive) -> None:
    archive.put("main", [turn("e1", "Sure, we can go over the Quay office lease tomorrow.", 3, "assistant"),
                         note("e2", "Quay office lease ends on 30 June", 3)])
    assert [r["id"] for r in mem.retrieve("Quay office lease", limit=5)] == ["e2"]
