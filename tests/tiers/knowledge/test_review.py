"""The review queue on real files: which pairs become questions, ids every device derives alike, the cap, each
answer's metadata (warm and the local index), the maintain pass keeping a review's answer, and undo."""
from __future__ import annotations

import json
import stat

import pytest

from memoryd.tiers.base.errors import UsageError
from memoryd.tiers.knowledge import review
from memoryd.tiers.knowledge.maintain import maintain
from memhelp import AgentMemory

T0 = 1_790_000_000.0
DAY = 86400.0


def mem_at(config, at: float):
    return AgentMemory(config, "ag", clock=lambda: at)


def store(config, text: str, at: float, **meta) -> str:
    return mem_at(config, at).store(text, "notes", 0.5, meta or None)["id"]


def m(mid: str, text: str, day: int, **meta) -> dict:
    return {"id": mid, "text": text, "created_at": T0 + day * DAY, "metadata": meta}


def test_a_change_cue_naming_no_old_value_asks_and_near_misses_stay_silent() -> None:
    older = m("a1", "The harbour ferry to Vell leaves from pier 4", 0)
    newer = m("b2", "The harbour ferry to Vell now leaves from the north quay", 3)
    asked = review.questions_from([older, newer])
    assert [(q["kind"], q["members"]) for q in asked] == [("same_thing", ["a1", "b2"])]
    assert asked[0]["id"] == review.question_id("same_thing", ["b2", "a1"])  # order-free: every device alike
    named = m("c3", "The harbour ferry to Vell moved from pier 4 to the north quay", 3)  # the rule decides this one
    one_word = m("d4", "The library now opens at nine on the harbour", 3)  # shares one content word only
    opinion = m("e5", "The harbour ferry to Vell is now too slow", 3, memory_kind="opinion")  # another kind
    assert review.questions_from([older, named]) == []
    assert review.questions_from([older, one_word]) == []
    # two words in common say little in a month of chat ("time", "first"): three, as the pairs above, are asked
    small_talk = [m("f6", "First time on the climbing wall today, my arms are gone", 0),
                  m("g7", "Bye! The quiz is at ten now, so there's time for a coffee first", 2)]
    assert review.questions_from(small_talk) == []
    assert review.questions_from([older, opinion]) == []
    answered = dict(older, metadata={review.REVIEWED_KEY: {asked[0]["id"]: {"action": "both"}}})
    assert review.questions_from([answered, newer]) == []


def test_a_newer_memory_naming_only_numbers_the_older_names_asks_nothing() -> None:
    older = m("a1", "The build agent for the kiln repo listens on 7311", 0)
    echo = m("b2", "Right, so the kiln build agent is on 7311 now", 2)      # the same value said again
    changed = m("c3", "The kiln build agent is on 7420 now, not the old port", 2)
    assert review.questions_from([older, echo]) == []
    assert [q["members"] for q in review.questions_from([older, changed])] == [["a1", "c3"]]


def test_now_that_says_nothing_changed_and_a_memory_that_only_asks_ask_nothing() -> None:
    older = m("a1", "The pottery class meets in the east annex", 0)
    for text in ("Right now I'm at the pottery class in the east annex, it's lovely",
                 "Is the pottery class still in the east annex now?"):
        assert review.questions_from([older, m("b2", text, 2)]) == [], text
    assert review.questions_from([older, m("c3", "The pottery class now meets in the annex's big hall", 2)])


def test_chinese_cue_words_ask_too() -> None:
    older = m("a1", "周会在三楼的大会议室开", 0)
    newer = m("b2", "周会现在在五楼的小会议室开", 2)
    assert [q["members"] for q in review.questions_from([older, newer])] == [["a1", "b2"]]
    # 目前 (currently) says what holds, not that it changed
    assert review.questions_from([older, m("c3", "周会目前在五楼的小会议室开", 2)]) == []



def test_one_line_taken_in_twice_is_asked_of_once() -> None:
    """A note's line and the transcript's same line (a speaker's label, another case) are one statement: the newer
    memory asks of it once, and of the next older statement it shares words with."""
    note = m("a1", "The harbour ferry to Vell leaves from pier 4", 0)
    said = m("a2", "Osric: the harbour ferry to Vell leaves from pier 4", 0)
    other = m("a3", "The harbour ferry to Vell used the old pier last winter", 1)
    newer = m("b2", "The harbour ferry to Vell now leaves from the north quay", 3)
    asked = [q["members"][0] for q in review.questions_from([note, said, other, newer])]
    assert len(asked) == 2 and "a3" in asked and len({"a1", "a2"} & set(asked)) == 1

def test_questions_are_queued_once_capped_and_the_file_is_private(config) -> None:
    ids = [store(config, f"Probe unit {i} reports to the valley station", T0 + i) for i in range(3)]
    mem = mem_at(config, T0 + 10)
    asked = [{"kind": "same_thing", "ids": [ids[0], ids[1]], "why": "test"},
             {"kind": "confirm", "ids": [ids[1], ids[2]], "why": "test"},
             {"kind": "evidence", "ids": [ids[0], "gone"], "why": "a forgotten member: skipped"}]
    added = review.add_questions(mem, asked)
    assert len(added) == 2 and review.add_questions(mem, asked) == []
    path = mem.dir / review.FILE
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert "valley" not in path.read_text()  # ids only: a forget leaves no text here
    listed = review.open_questions(mem)
    assert [q["id"] for q in listed] == added
    assert listed[0]["members"][0]["text"].startswith("Probe unit 0") and listed[0]["members"][0]["kind"] == "fact"
    many = [{"kind": "evidence", "ids": [ids[0], f"x{i}"], "why": ""} for i in range(5)]
    assert review.add_questions(mem, many) == []  # unknown members
    monkey = review.MAX_OPEN
    try:
        review.MAX_OPEN = 1
        review.add_questions(mem_at(config, T0 + 20), [{"kind": "same_thing", "ids": [ids[1], ids[2]], "why": ""}])
        assert [q["members"] for q in json.loads(path.read_text())["open"]] == [[ids[1], ids[2]]]  # oldest dropped
    finally:
        review.MAX_OPEN = monkey


def _cold(mem, mid: str) -> dict:
    return mem.archive.get(mem.agent_id, [mid])[0]["metadata"]


@pytest.mark.parametrize("action", ["current", "merge", "both", "dismiss"])
def test_each_answer_writes_metadata_survives_maintain_and_undo_restores_it(config, action: str) -> None:
    old = store(config, "The weather mast on Kell ridge logs every 10 minutes", T0)
    new = store(config, "The weather mast on Kell ridge now logs every minute", T0 + DAY)
    mem = mem_at(config, T0 + 2 * DAY)
    mem.archive_entries([e for e in mem.snapshot()["warm"]["entries"] if e["id"] == old])  # one member in cold
    mem.change(lambda st, now: st["warm"].update(entries=[e for e in st["warm"]["entries"] if e["id"] != old]), "t")
    maintain(mem)
    (q,) = review.open_questions(mem)
    assert [x["id"] for x in q["members"]] == [old, new] and q["members"][0]["tier"] == "cold"
    before_old, before_new = _cold(mem, old), mem.snapshot()["warm"]["entries"][0]["metadata"]
    review.resolve(mem, q["id"], action)
    assert review.open_questions(mem) == []
    maintain(mem)  # the rules leave a person's answer alone
    meta_old = _cold(mem, old)
    meta_new = next(e for e in mem.snapshot()["warm"]["entries"] if e["id"] == new)["metadata"]
    assert meta_old[review.REVIEWED_KEY][q["id"]]["action"] == action
    if action in ("current", "merge"):
        assert (meta_old["superseded_by"], meta_old["superseded_how"]) == (new, "review")
        assert meta_new["supersedes"] == [old]
        assert (action == "merge") == any(s["id"] == old for s in meta_new.get("sources") or [])
    else:
        assert "superseded_by" not in meta_old
    assert not review.add_questions(mem, [{"kind": "same_thing", "ids": [old, new], "why": "again"}])
    log = [r for r in mem.knowledge_rows() if r.get("question") == q["id"]]
    assert {r["id"] for r in log} == {old, new}
    review.undo(mem, q["id"])
    assert _cold(mem, old) == before_old
    assert next(e for e in mem.snapshot()["warm"]["entries"] if e["id"] == new)["metadata"] == before_new
    assert [x["id"] for x in review.open_questions(mem)] == [q["id"]]
    with pytest.raises(UsageError, match="no answered review question"):
        review.undo(mem, q["id"])


def test_bad_answers_are_refused(config) -> None:
    mem = mem_at(config, T0)
    with pytest.raises(UsageError, match="unknown review action"):
        review.resolve(mem, "abc", "maybe")
    with pytest.raises(UsageError, match="no open review question"):
        review.resolve(mem, "abc", "both")


def test_the_agent_supersedes_by_hand_and_maintain_keeps_it(config) -> None:
    old = store(config, "Quill's vet is Dr Amsel on Brook Road", T0)
    mem = mem_at(config, T0 + DAY)
    with pytest.raises(UsageError, match="no memory with id 'nope'"):
        review.check_held(mem, [old, "nope"])
    new = mem.store("Quill sees the clinic by the station", "notes", 0.5)["id"]
    assert review.supersede_by_agent(mem, new, [old]) == [old]
    maintain(mem)
    by_id = {e["id"]: e["metadata"] for e in mem.snapshot()["warm"]["entries"]}
    assert (by_id[old]["superseded_by"], by_id[old]["superseded_how"], by_id[new]["supersedes"]) == (new, "agent", [old])
    row = next(r for r in mem.knowledge_rows() if r["kind"] == "supersede")
    assert (row["id"], row["by"], row["how"]) == (old, new, "agent")


def test_a_question_decided_meanwhile_is_no_longer_asked(config) -> None:
    old = store(config, "The bell ringers practise in the north tower", T0)
    new = store(config, "The bell ringers now practise in the vestry", T0 + DAY)
    mem = mem_at(config, T0 + 2 * DAY)
    maintain(mem)
    (q,) = review.open_questions(mem)
    review.supersede_by_agent(mem, new, [old])  # the agent decided it at a later store
    assert review.open_questions(mem) == []
    with pytest.raises(UsageError, match="meanwhile"):
        review.resolve(mem, q["id"], "both")
    assert json.loads((mem.dir / review.FILE).read_text())["open"] == []


def test_a_newer_memory_saying_again_what_the_older_says_after_its_word_of_change_asks_nothing() -> None:
    """`now delivers on Fridays` after `… now delivers on Fridays from the depot`: every word the newer says after its
    word of change is in the older, so it states the same value again; a number only the older names (`every 10
    minutes`, then `every minute`) keeps the question."""
    older = m("a1", "Right, Quillon's van now delivers on Fridays from the depot on Arne Street", 0)
    newer = m("b2", "Quillon now delivers on Fridays", 3)
    assert review.questions_from([older, newer]) == []
    timed = m("c3", "The tide gauge at Orrin quay logs every 10 minutes", 0)
    faster = m("d4", "The tide gauge at Orrin quay now logs every minute", 3)
    assert [q["members"] for q in review.questions_from([timed, faster])] == [["c3", "d4"]]
