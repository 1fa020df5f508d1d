"""A placement reads the found memory's parts as clauses: a decimal point ends none, a count's change answers no
question of a price, the name of whose the change is does not count as another of the found one's facts, and a
Chinese question of another thing (its first two characters in neither memory) gets none."""
from __future__ import annotations

import pytest

from memoryd.tiers.knowledge import change
from memoryd.tiers.retrieval.candidate import Candidate
from memoryd.tiers.retrieval.current import successors


def _row(id_: str, text: str, **meta: str) -> dict:
    return {"id": id_, "text": text, "category": "work", "tier": "warm", "path": "", "score": 1.0,
            "metadata": {"date": "2026-03-02", **meta}}


def _placed(found_text: str, newer_text: str, question: str, link: str = "updated_by") -> bool:
    found = Candidate.of(_row("a", found_text, **{link: "b"}))
    newer = Candidate.of(_row("b", newer_text))
    out = successors([found], lambda ids: [newer] if "b" in ids else [], question)
    return [c.id for c in out] == ["b", "a"]


def test_a_decimal_point_ends_no_clause() -> None:
    changed, others = change.parts("Weekday overtime pays 31.5 an hour, Sundays pay double.",
                                   "Weekday overtime went from 31.5 to 34 an hour.")
    assert changed == "Weekday overtime pays 31.5 an hour" and others == ["Sundays pay double"]


@pytest.mark.parametrize("question, placed", [
    ("周日加班按几倍算？", False),           # the found one's other clause: still current
    ("工作日加班现在每小时多少钱？", True),   # what changed
])
def test_a_change_of_a_decimal_value_is_placed_only_under_its_own_question(question: str, placed: bool) -> None:
    assert _placed("工作日加班每小时31.5元，周日加班三倍。", "工作日加班从31.5涨到34元一小时。周日呢？",
                   question) is placed


@pytest.mark.parametrize("found, newer, question, placed", [
    ("岑记的木梳起订量改为每款400个，原来是每款900个。", "好，木梳起订量从每款400个调到700个。",
     "岑记的木梳单价是多少？", False),                        # a price asked, a count changed
    ("岑记的木梳起订量改为每款400个，原来是每款900个。", "好，木梳起订量从每款400个调到700个。",
     "岑记的木梳现在每款起订多少个？", True),                  # the count asked
    ("Brackley Mills takes a minimum order of 300 boxes per shade.",
     "Brackley Mills moved the minimum from 300 boxes to 450 boxes.", "What price does Brackley Mills charge?",
     False),
    ("Brackley Mills sells the wool at 4.20 a skein.", "Brackley Mills went from 4.20 to 4.60 a skein.",
     "What price does Brackley Mills charge for the wool?", True),   # a price changed
])
def test_a_change_of_a_count_is_no_answer_to_a_question_of_a_price(found: str, newer: str, question: str,
                                                                  placed: bool) -> None:
    assert _placed(found, newer, question) is placed


def test_the_name_of_whose_the_change_is_is_not_another_fact_of_the_found_one() -> None:
    """`Harlow Grain Supply` in the found memory's other clause, `Harlow Grain's` in the newer: the question's
    `grain` says whose, and the price it asks is the one that changed."""
    assert _placed("Noted — Harlow Grain Supply, layer mash at $21.40 a sack. Have you priced it elsewhere?",
                   "So Harlow Grain's layer mash went from $21.40 to $22.10 a sack.",
                   "What does the grain supplier charge for a sack of layer mash?")
    assert not _placed("Noted — Harlow Grain Supply, layer mash at $21.40 a sack, and they deliver on Tuesdays.",
                       "So Harlow Grain's layer mash went from $21.40 to $22.10 a sack.",
                       "Which day does the grain supplier deliver?")


@pytest.mark.parametrize("question, placed", [
    ("岑记的木梳现在每款起订多少个？", True),    # the thing whose count changed
    ("岑记现在的木梳起订量是多少？", True),
    ("岑记的发夹起订量是多少？", False),         # the same count of another thing neither memory names
    ("岑记的起订量是多少？", True),              # no thing named: the change found is of what is asked
])
def test_a_chinese_question_of_another_thing_gets_no_placement(question: str, placed: bool) -> None:
    assert _placed("岑记的木梳起订量改为每款400个，原来是每款900个。", "好，木梳起订量从每款400个调到700个。",
                   question) is placed


@pytest.mark.parametrize("question, placed", [
    ("Which craft market is Odile renting a pitch at this spring?", False),  # the market asked, the pitch changed
    ("Which pitch number does Odile have now?", True),                       # the pitch asked
    ("Which day is the craft market?", False),
])
def test_a_which_question_of_a_kind_the_newer_memory_does_not_say_gets_no_placement(question: str,
                                                                                     placed: bool) -> None:
    """The found memory says the kind of thing a `which …` question asks for (a market), the newer changes another
    of its facts (the pitch's number) and says no word of that kind: the found one still answers."""
    assert _placed("Odile left the Harbour Fair and took pitch 31 at the Wexby Craft Market.",
                   "Odile's pitch got moved from 31 to 58.", question) is placed
