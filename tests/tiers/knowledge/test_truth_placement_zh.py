"""Placements of a current value under Chinese questions and of changes said in Chinese (split from
test_truth_store.py): a placement only where the question's words say the change is what is asked."""
from __future__ import annotations

import pytest

from test_truth_store import DAY, _first_over, _followed, _placed, clock, mem, warm  # noqa: F401  (clock, mem: fixtures)


def test_a_chinese_question_of_another_fact_before_its_word_of_now_gets_no_placement(keyword_mode, mem,
                                                                                      clock) -> None:
    """`<whose>现在<what>`: the characters before 现在 say whose, what follows what is asked; a change of another
    fact of the same company is no answer to it."""
    old = mem.store("@苏禾: 苏禾公司的报关行是恒信报关，出口走赤湾港。", "trade", 0.6)
    clock.t += DAY
    new = mem.store("苏禾的报关行从恒信报关换成了捷通报关。", "trade", 0.6)
    assert _followed(mem, old, new)
    assert _first_over(mem.retrieve("苏禾公司现在的报关行是哪家？"), new["id"], old["id"])
    assert not _placed(mem.retrieve("苏禾公司现在在哪家银行开户？"), new["id"])


@pytest.mark.parametrize("question, placed", [
    ("When does Rosalind's contract end?", False),   # its words cannot meet the memories': nothing says it is asked
    ("Rosalind的合同什么时候到期？", False),            # the memories' script: they speak of no contract
    ("Rosalind哪天放假？", True),                      # what changed is what is asked
])
def test_an_english_question_of_a_change_said_in_chinese_gets_no_placement(question: str, placed: bool) -> None:
    """A day off's change, found by a name alone under a question of a contract's end (both days): a question
    whose words cannot meet the memories' says nothing of which fact it asks, so nothing is placed (right or
    silent)."""
    from memoryd.tiers.retrieval.candidate import Candidate
    from memoryd.tiers.retrieval.current import successors

    def row(id_: str, text: str, **meta: str) -> dict:
        return {"id": id_, "text": text, "category": "home", "tier": "warm", "path": "", "score": 1.0,
                "metadata": meta}
    found = Candidate.of(row("a", "Odile: 我家阿姨 Rosalind 都是礼拜日放", superseded_by="b"))
    newer = Candidate.of(row("b", "明白, Rosalind 由礼拜日改为礼拜六放假。"))
    out = successors([found], lambda ids: [newer] if "b" in ids else [], question)
    assert ([c.id for c in out] == ["b", "a"]) is placed


def test_a_fact_left_in_a_voice_typed_line_is_updated_in_part_and_its_question_gets_no_placement(
        keyword_mode, mem, clock) -> None:
    """Chinese typed by voice leaves out the commas: a space between two Han characters ends a clause, so the
    line's other facts stay current; a follow-up question in the newer line naming whose it is says nothing."""
    old = mem.store("每周三下午三点半下课 阿楠去接 他在码头上夜班 白天睡觉", "family", 0.6)
    clock.t += DAY
    new = mem.store("下课从三点半改到四点了。阿楠那边接得上吗？", "family", 0.6)
    meta = warm(mem)[old["id"]]["metadata"]
    assert meta.get("updated_by") == new["id"] and not meta.get("superseded_by")
    assert not _placed(mem.retrieve("阿楠在哪里上班？"), new["id"])



@pytest.mark.parametrize("newer_text, question, placed", [
    # the change names its thing (a brand), the question another named beside it: no answer to it
    ("岳峰从 2600 降到 2380，跟 Kelvar 的 4100 差得更多了。", "Kelvar 的电机多少钱一台？", False),
    ("岳峰从 2600 降到 2380，跟 Kelvar 的 4100 差得更多了。", "岳峰的电机多少钱一台？", True),
    # the thing asked of is the one whose change it is, named in the cue's own part
    ("Kelvar 从 4100 降到 3900 了，岳峰还是 2600。", "Kelvar 的电机多少钱一台？", True),
    # nothing of the question said outside the cue's part: the change may be of what is asked
    ("电机从 2600 降到 2380 了。", "Kelvar 的电机多少钱一台？", True),
])
def test_a_change_of_a_thing_named_beside_the_one_asked_of_gets_no_placement(newer_text: str, question: str,
                                                                             placed: bool) -> None:
    """Two brands' prices in one memory, one of them changed later in a line that names the other beside it: the
    change is placed only under a question of the brand it names."""
    from memoryd.tiers.retrieval.candidate import Candidate
    from memoryd.tiers.retrieval.current import successors

    found = Candidate.of({"id": "a", "text": "岳峰 6312 电机报 2600 一台，比 Kelvar 的 4100 便宜不少。",
                          "category": "parts", "tier": "warm", "path": "", "score": 1.0,
                          "metadata": {"superseded_by": "b"}})
    newer = Candidate.of({"id": "b", "text": newer_text, "category": "parts", "tier": "warm", "path": "",
                          "score": 1.0, "metadata": {}})
    out = successors([found], lambda ids: [newer] if "b" in ids else [], question)
    assert ([c.id for c in out] == ["b", "a"]) is placed


def _row(id_: str, text: str, day: str, **meta: str) -> dict:
    return {"id": id_, "text": text, "category": "boats", "tier": "warm", "path": "", "score": 1.0,
            "metadata": {"date": day, **meta}}


def _order(found: list, newer: list, question: str) -> list[str]:
    from memoryd.tiers.retrieval.current import successors

    by_id = {c.id: c for c in newer}
    return [c.id for c in successors(found, lambda ids: [by_id[i] for i in ids if i in by_id], question)]


def test_a_day_moved_again_in_an_unlinked_line_leaves_the_first_move_unplaced() -> None:
    """A day changed twice: the first move is linked, the second ("又改期了，改到…", no old day) only asks. Under a
    question of when, the first move is no known current day while the words also find the later move; under a
    question of something else, the later move says nothing of it."""
    from memoryd.tiers.retrieval.candidate import Candidate

    old = Candidate.of(_row("a", "渔K7731的船检约在3月5号，在东澳码头做。", "2026-02-20", updated_by="b"))
    mid = Candidate.of(_row("b", "@渔K7731: 渔K7731船检由3月5号改到3月12号。", "2026-02-27"))
    again = Candidate.of(_row("c", "渔K7731船检又改期了，改到3月20号。", "2026-03-10"))
    assert _order([old], [mid], "渔K7731的船检约在哪天？") == ["b", "a"]
    assert _order([old, again], [mid], "渔K7731的船检约在哪天？") == ["a", "c"]
    early = Candidate.of(_row("c", "渔K7731船检又改期了，改到3月20号。", "2026-02-24"))  # said before the first move
    assert _order([old, early], [mid], "渔K7731的船检约在哪天？") == ["b", "a", "c"]
    summary = Candidate.of(_row("s", "[L1 summary of 12 memories] 渔K7731船检改到3月20号，" + "网补好了，冰也订了。" * 40,
                                "2026-03-10"))  # a summary names many days of many things: no move of this one
    assert _order([old, summary], [mid], "渔K7731的船检约在哪天？") == ["b", "a", "s"]


def test_a_day_given_again_without_a_word_of_moving_leaves_the_first_move_unplaced() -> None:
    """The second move said with no word of moving (`starting … now, not the 4th`): a later memory giving the thing
    the question asks of a day the first move does not name; under another question it says nothing."""
    from memoryd.tiers.retrieval.candidate import Candidate

    old = Candidate.of(_row("a", "The porch repaint starts on 14 September, shut for a week.", "2026-08-20",
                            updated_by="b"))
    mid = Candidate.of(_row("b", "So the porch repaint has moved from 14 September to 4 October.", "2026-09-01"))
    again = Candidate.of(_row("c", "The porch repaint is starting on 11 October now, not the 4th.", "2026-09-25"))
    assert _order([old], [mid], "When does the porch repaint start?") == ["b", "a"]
    assert _order([old, again], [mid], "When does the porch repaint start?") == ["a", "c"]
    other = Candidate.of(_row("c", "The boiler service is on 11 October.", "2026-09-25"))  # another thing's day
    assert _order([old, other], [mid], "When does the porch repaint start?") == ["b", "a", "c"]
    whose = Candidate.of(_row("c", "Quillane's porch repaint starts on 11 October.", "2026-09-25"))  # another's
    old_named = Candidate.of(_row("a", "Odile's porch repaint starts on 14 September.", "2026-08-20", updated_by="b"))
    assert _order([old_named, whose], [mid], "When does Odile's porch repaint start?") == ["b", "a", "c"]


def test_a_weekday_changed_again_in_an_unlinked_line_leaves_the_first_change_unplaced() -> None:
    """A day off changed twice, the second said as `改礼拜五` (the old day not named, the first change's new day
    named for another thing): the first change is no known current day; a week's plan restating the days is none."""
    from memoryd.tiers.retrieval.candidate import Candidate

    old = Candidate.of(_row("a", "阿岚每周一休息，周一别排她的班。", "2026-02-20", updated_by="b"))
    mid = Candidate.of(_row("b", "好，阿岚的休息日从周一改到周三。", "2026-02-27"))
    again = Candidate.of(_row("c", "阿岚休息改礼拜五，礼拜三要盘点", "2026-03-10"))
    plan = Candidate.of(_row("c", "下周安排：阿岚周三休息，周五盘点，周日开会", "2026-03-10"))
    assert _order([old], [mid], "阿岚现在每周哪天休息？") == ["b", "a"]
    assert _order([old, again], [mid], "阿岚现在每周哪天休息？") == ["a", "c"]
    assert _order([old, plan], [mid], "阿岚现在每周哪天休息？") == ["b", "a", "c"]


def test_a_question_of_someone_called_by_a_familiar_name_gets_no_placement_of_anothers_change() -> None:
    """`阿蘅…` asks of 阿蘅: a shop's day off changing, in memories naming another 阿-name, answers nothing of it."""
    from memoryd.tiers.retrieval.candidate import Candidate

    old = Candidate.of(_row("a", "@柏记: 柏记的铺子每周一休息，表姐阿岚帮忙看店。", "2026-02-20", superseded_by="b"))
    new = Candidate.of(_row("b", "@柏记: 铺子由阿岚帮忙，休息日从周一改为周三。", "2026-02-27"))
    assert _order([old], [new], "柏记的铺子每周哪天休息？") == ["b", "a"]
    assert _order([old], [new], "阿岚帮忙的铺子每周哪天休息？") == ["b", "a"]
    assert _order([old], [new], "阿岚每周哪天看店？") == ["a"]  # the change names its thing (休息日), not this one
    assert _order([old], [new], "阿蘅每周哪天休息？") == ["a"]


def test_a_question_naming_another_number_gets_no_placement() -> None:
    """`渔K5520是谁当船长？`: a number the question names, held by neither memory (their boat is 渔K5510), says they are
    of another thing; the boat they name, inside Chinese text, is found."""
    from memoryd.tiers.retrieval.candidate import Candidate

    old = Candidate.of(_row("a", "@渔K5510: 5510的船长是林阿福，船上8人。", "2026-02-20", updated_by="b"))
    new = Candidate.of(_row("b", "渔K5510的船长由林阿福换成陈永年。", "2026-02-27"))
    assert _order([old], [new], "5510这条船现在谁当船长？") == ["b", "a"]
    assert _order([old], [new], "5520这条船现在谁当船长？") == ["a"]


def test_a_change_of_a_day_is_placed_under_a_question_of_which_day_of_the_week() -> None:
    """`which day of the week …?`: the found one's `weekly` says `week`, the newer one none of the question's words
    but a day; the day replaced is the shape asked, so the change is of what is asked."""
    from memoryd.tiers.retrieval.candidate import Candidate

    old = Candidate.of(_row("a", "My weekly pottery with Brisa moved from Monday to Thursday.", "2026-02-20",
                            updated_by="b"))
    new = Candidate.of(_row("b", "Got it: pottery with Brisa moves from Thursdays to Fridays going forward.",
                            "2026-02-27"))
    assert _order([old], [new], "Which day of the week is my standing session with Brisa now?") == ["b", "a"]
    assert _order([old], [new], "Who teaches my weekly pottery class now?") == ["a"]


def test_the_entity_memories_are_kept_under_says_whose_not_what() -> None:
    """Found by meaning under a question of another fact of the same person (where she lives, not her studio): the
    entity the two memories are kept under (`@X: …`) says whose they are, so nothing else of the question meets them
    and no current value is placed."""
    from memoryd.tiers.retrieval.candidate import Candidate

    old = Candidate.of(_row("a", "@江若棠: 若棠的画室5月初从东街搬到西塘，月租八千。", "2026-05-02", updated_by="b"))
    new = Candidate.of(_row("b", "@江若棠: 若棠画室7月初从西塘搬到北湖，楼下有停车场。", "2026-07-02"))
    assert _order([old], [new], "若棠现在的画室在哪个片区？") == ["b", "a"]
    assert _order([old], [new], "若棠住在城里哪个片区？") == ["a"]


@pytest.mark.parametrize("found, newer, question, placed", [
    # a day changed: no answer to a question of where, nor to one of another thing of the same place
    ("摄影展定了：3月8号，在城南图书馆。", "摄影展从3月8号改到3月15号。", "摄影展现在在哪儿办？", False),
    ("The photo show is on 8 March at the Northgate library.", "The photo show moves from 8 March to 15 March.",
     "Where is the photo show now?", False),
    ("摄影展定了：3月8号，在城南图书馆。", "摄影展从3月8号改到3月15号。", "摄影展现在是哪天？", True),
    ("@城西分店: 城西分店开业因装修返工推迟到5月9号。", "城西分店开业从5月9号改到5月17号。", "城西分店装修验收是哪天？", False),
    ("@城西分店: 城西分店开业因装修返工推迟到5月9号。", "城西分店开业从5月9号改到5月17号。", "城西分店哪天开业？", True),
    # a number changed with no word of what (an echo): nothing says which of the found one's numbers it is
    ("健身房月卡一个月180块，年卡1500块。", "从180块涨到210块，一个月多了30块。", "健身房月卡现在一个月多少钱？", False),
])
def test_a_change_is_placed_only_under_a_question_of_what_it_changed(found: str, newer: str, question: str,
                                                                      placed: bool) -> None:
    from memoryd.tiers.retrieval.candidate import Candidate

    old = Candidate.of(_row("a", found, "2026-02-20", updated_by="b"))
    new = Candidate.of(_row("b", newer, "2026-02-27"))
    assert (_order([old], [new], question) == ["b", "a"]) is placed


@pytest.mark.parametrize("question, placed", [
    ("When is Corran's appeal?", True),
    ("When is Maelis's review meeting?", False),           # someone the moving line does not name
    ("When is the appeal about the rota?", True),
])
def test_a_day_moved_by_a_line_naming_no_old_day_is_placed_only_for_what_it_moved(question: str, placed: bool) -> None:
    """An update of a day by the moved-day rule holds for what the line moved: under a question of another of the
    found memory's facts (another person's meeting told beside it) the found one stands as found."""
    from memoryd.tiers.retrieval.candidate import Candidate

    old = Candidate.of(_row("a", "Assistant: Noted, Corran's appeal about the rota is on 9 March and Maelis's review "
                            "meeting on 11 March.", "2026-10-01", updated_by="b", change_rule="moved-day"))
    new = Candidate.of(_row("b", "they've moved Corran's appeal about the rota, it's the 30th of March now",
                            "2026-10-15"))
    assert (_order([old], [new], question) == ["b", "a"]) is placed



@pytest.mark.parametrize("newer_text, placed", [
    ("你每月由1200减到1150了。", False),   # a value further along the owner's chain, not the colleague's
    ("老蔺每月由900涨到1000了。", True),     # the colleague's own change
    ("每月从900涨到1000了。", True),         # his value replaced, his name left to the line before
])
def test_a_question_opening_with_a_familiar_name_gets_only_a_change_that_names_them_or_their_value(
        newer_text: str, placed: bool) -> None:
    """One line holds a colleague's share and the owner's (`老<surname>…，你…`); a newer line changes one of them. Under
    a question opening with the colleague's familiar name, a newer line is placed above only when it names him or
    replaces a value the found line states."""
    from memoryd.tiers.retrieval.candidate import Candidate
    from memoryd.tiers.retrieval.current import successors

    def row(id_: str, text: str, **meta: str) -> dict:
        return {"id": id_, "text": text, "category": "home", "tier": "warm", "path": "", "score": 1.0,
                "metadata": meta}
    found = Candidate.of(row("a", "明白，老蔺每月900，你就1100。", superseded_by="b"))
    newer = Candidate.of(row("b", newer_text))
    out = successors([found], lambda ids: [newer] if "b" in ids else [], "老蔺每月出几多房租？")
    assert ([c.id for c in out] == ["b", "a"]) is placed
