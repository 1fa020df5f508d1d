"""For a question about now, the newest of the first results nearly as relevant as the best comes first; nothing
else moves, nothing leaves, and under a question naming an exact value only lines holding it move."""
from __future__ import annotations

from pathlib import Path

import pytest

from memhelp import memory_with_said

SAID = [("greenhouse watering rota: Monday and Thursday", "2025-06-02"),
        ("watering rota: Tuesdays and Fridays now", "2025-07-14")]
OTHER = ["Ines: lunch at noon on the terrace", "the shed key is under the blue pot", "Deven paid the water bill",
         "compost goes out on Saturdays", "the tomatoes need staking", "Ines fixed the greenhouse door hinge"]


@pytest.fixture
def mem(home: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("MEMORYD_RETRIEVAL_MODE", "keyword")
    mem = memory_with_said(SAID + [(t, "2025-05-01") for t in OTHER])
    yield mem
    mem.archive.close()


def test_a_question_about_now_puts_the_newer_of_two_near_equals_first(mem) -> None:
    plain = [r["text"] for r in mem.retrieve("greenhouse watering rota", 5)]
    assert plain[0] == SAID[0][0]                             # no question about now: more of the words first
    now = mem.retrieve("What is the greenhouse watering rota now?", 5)
    assert [r["text"] for r in now][:2] == [SAID[1][0], SAID[0][0]]
    assert any(s["stage"] == "latest" for s in now[0].get("stages") or [])


def test_a_question_naming_an_exact_value_keeps_the_words_order(mem) -> None:
    found = mem.retrieve("Is the greenhouse watering rota on 2 days now?", 5)
    assert found[0]["text"] == SAID[0][0]


def _first(said: list[tuple[str, str]], question: str) -> str:
    """The first result's text for `question` over `said` and the other lines (keyword mode, set by the caller)."""
    mem = memory_with_said(said + [(t, "2025-05-01") for t in OTHER])
    try:
        return mem.retrieve(question, 5)[0]["text"]
    finally:
        mem.archive.close()


@pytest.mark.parametrize("said, question", [
    # a newer line that says no value stays below the one that does
    ([("the allotment's new landlord is Tarrant Estates, rent paid quarterly", "2025-06-02"),
      ("a landlord who brings cake is a keeper", "2025-07-14")], "Who is the allotment's landlord now?"),
    # who said a line is not what it is about: the question's name must be in what the newer line says
    ([("Orla now rides a blue Brompton, the old Raleigh was stolen", "2025-06-02"),
      ("Orla: Keelan's knee is still not fit for riding, Dr Ahern says another 6 weeks of physio before the club "
       "run, and the insurance form is still sitting on the hall table", "2025-07-14")], "What bike does Orla ride now?"),
    # a question of when: a newer line holding no day or time answers none
    ([("the boiler's annual service is booked for 12 March", "2025-02-20"),
      ("boiler service done, Tomasz the engineer was happy with it", "2025-03-12")],
     "When is the boiler's annual service now?"),
    # a question of one day's value: a newer line of another day's is about another value
    ([("the pool's weekday opening hours are 6am to 9pm from June", "2025-06-02"),
      ("the pool's Sunday opening hours are 8am to noon", "2025-07-14")], "What are the pool's weekday opening hours now?"),
    # the name a question asks of (`<name>'s`), said alone in a newer line, is no value that line holds
    ([("Orla's bike is serviced at Pedalworks on Quay Street", "2025-06-02"),
      ("glad the bike is back, Orla, enjoy the ride", "2025-07-14")], "Where is Orla's bike serviced now?"),
])
def test_a_newer_line_that_does_not_answer_is_not_moved_above(home: Path, monkeypatch: pytest.MonkeyPatch,
                                                              said: list, question: str) -> None:
    monkeypatch.setenv("MEMORYD_RETRIEVAL_MODE", "keyword")
    assert _first(said, question) == said[0][0]


@pytest.mark.parametrize("wish", [
    "Ines asked if the watering rota could go back to Monday and Thursday in August, we'll see",
    "the watering rota would be Monday and Thursday if Deven took the weekends",
])
def test_a_newer_line_of_a_wish_moves_up_above_nothing(home: Path, monkeypatch: pytest.MonkeyPatch, wish: str) -> None:
    """What someone asks for or what would be holds no value now: it moves above no line said to hold, and a
    line said to hold moves above it."""
    monkeypatch.setenv("MEMORYD_RETRIEVAL_MODE", "keyword")
    said = [("greenhouse watering rota: Tuesdays and Fridays now", "2025-06-02"), (wish, "2025-07-14")]
    assert _first(said, "What is the greenhouse watering rota now?") == said[0][0]


def test_a_newer_line_holding_only_a_number_is_not_moved_above_under_a_question_of_who(
        home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMORYD_RETRIEVAL_MODE", "keyword")
    said = [("Orsolya took over from Deven as the allotment society's treasurer", "2025-06-02"),
            ("the allotment society has 14 plots free now", "2025-07-14")]
    assert _first(said, "Who is the allotment society's treasurer now?") == said[0][0]
    said[1] = ("the allotment society has Maelis as its treasurer now", "2025-07-14")
    assert _first(said, "Who is the allotment society's treasurer now?") == said[1][0]  # a name moves up


def test_a_newer_line_holding_only_a_number_is_not_moved_above_a_first_answering_with_names(
        home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMORYD_RETRIEVAL_MODE", "keyword")
    said = [("the allotment society moved its bookings from Plotter to Sowsmart", "2025-06-02"),
            ("the allotment society has 14 plots free now", "2025-07-14")]
    question = "Which app does the allotment society take bookings through now?"
    assert _first(said, question) == said[0][0]
    said[1] = ("the allotment society has 14 plots free now, Maelis says", "2025-07-14")  # a name: it may answer
    assert _first(said, question) == said[1][0]


def test_a_newer_line_holding_a_day_is_moved_above_under_a_question_of_when(home: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMORYD_RETRIEVAL_MODE", "keyword")
    said = [("the boiler's annual service is booked for 12 March", "2025-02-20"),
            ("the boiler engineer can only come on 19 March for the annual service", "2025-03-01")]
    assert _first(said, "When is the boiler's annual service now?") == said[1][0]


def test_a_summary_is_not_moved_above_by_the_last_day_it_spans(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A summary is dated by its last day; what it says may be weeks older than the line said after it."""
    monkeypatch.setenv("MEMORYD_RETRIEVAL_MODE", "keyword")
    said = [("watering rota for the greenhouse: Tuesdays and Fridays from now on", "2025-07-14"),
            ("[summary of 40 memories, 2025-06-01 to 2025-08-01] greenhouse watering rota Monday and Thursday; "
             "the shed roof leaks", "2025-08-01", {"memory_kind": "summary", "span": ["2025-06-01", "2025-08-01"]})]
    assert _first(said, "What is the greenhouse watering rota now?") == said[0][0]
    # a summary of one day is dated right: it moves up like any line said later
    said[1] = (said[1][0], "2025-08-01", {"memory_kind": "summary", "span": ["2025-08-01", "2025-08-01"]})
    assert _first(said, "What is the greenhouse watering rota now?") == said[1][0]


def test_a_summary_found_first_moves_below_a_line_said_after_its_last_day(home: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """Everything a summary says is at most as new as its last day: a line said after it is newer than all of it."""
    monkeypatch.setenv("MEMORYD_RETRIEVAL_MODE", "keyword")
    said = [("[summary of 30 memories, 2025-06-01 to 2025-07-01] greenhouse watering rota: the greenhouse watering "
             "rota is Monday and Thursday", "2025-07-01", {"memory_kind": "summary", "span": ["2025-06-01", "2025-07-01"]}),
            ("watering rota: Tuesdays and Fridays now", "2025-07-14")]
    assert _first(said, "What is the greenhouse watering rota now?") == said[1][0]


@pytest.mark.parametrize("newer, moved", [
    ("the Year 7 hockey fixtures are on Thursdays now", False),     # another year's: it does not hold the number
    ("the Year 8 hockey fixtures moved to Thursdays", True),       # it holds the number asked: the newer first
])
def test_a_question_naming_a_number_moves_up_only_a_line_holding_it(home: Path, monkeypatch: pytest.MonkeyPatch,
                                                                     newer: str, moved: bool) -> None:
    monkeypatch.setenv("MEMORYD_RETRIEVAL_MODE", "keyword")
    mem = memory_with_said([("the Year 8 hockey fixtures day is Wednesday, Year 8 hockey fixtures at the leisure "
                             "centre", "2025-06-02"), (newer, "2025-07-14")]
                           + [(t, "2025-05-01") for t in OTHER])
    try:
        found = mem.retrieve("On which day are the Year 8 hockey fixtures now?", 5)
    finally:
        mem.archive.close()
    lifted = any(s["stage"] == "latest" for r in found if r["text"] == newer for s in r.get("stages") or [])
    assert (lifted and found[0]["text"] == newer) is moved


@pytest.mark.parametrize("newer, moved", [
    ("澄河钢材QX30报价改为每吨4180元", True),     # the code asked, written against Han characters, is held
    ("澄河钢材QX31报价改为每吨4180元", False),    # another code's
])
def test_a_chinese_question_naming_a_code_moves_up_a_line_holding_it(home: Path, monkeypatch: pytest.MonkeyPatch,
                                                                     newer: str, moved: bool) -> None:
    monkeypatch.setenv("MEMORYD_RETRIEVAL_MODE", "keyword")
    said = [("@澄河钢材: 澄河钢材QX30冷轧板报价每吨4100元，含税到厂", "2025-06-02"), (newer, "2025-07-14")]
    assert (_first(said, "澄河那边QX30冷轧板现在每吨报多少钱？") == newer) is moved


@pytest.mark.parametrize("query, tokens", [
    ("澄河那边QX-30冷轧板现在每吨多少钱？", {"qx-30"}),   # a code ends where the Han characters begin
    ("网店的5斤装现在卖多少钱？", {"5"}),
    ("is port 8013 or v0.10.1 open?", {"8013", "v0.10.1"}),
])
def test_the_exact_tokens_of_a_question_end_at_a_han_character(query: str, tokens: set) -> None:
    from memoryd.tiers.retrieval.current import exact_tokens

    assert exact_tokens(query) == tokens


@pytest.mark.parametrize("older, newer, question, moved", [
    ("greenhouse watering rota: Monday and Thursday", "watering rota: which days was it again, Tuesdays?",
     "What is the greenhouse watering rota now?", False),                                  # it asks
    ("温室的浇水排班：阿岚负责", "温室浇水排班是哪个同事来着", "温室的浇水排班现在归谁？", False),  # it asks, no mark
    ("greenhouse watering rota: Monday and Thursday", "watering rota is Tuesdays and Fridays now. Does that suit "
     "Ines?", "What is the greenhouse watering rota now?", True),                          # it says, then asks
])
def test_a_newer_line_that_only_asks_is_not_moved_above(home: Path, monkeypatch: pytest.MonkeyPatch, older: str,
                                                        newer: str, question: str, moved: bool) -> None:
    monkeypatch.setenv("MEMORYD_RETRIEVAL_MODE", "keyword")
    mem = memory_with_said([(older, "2025-06-02"), (newer, "2025-07-14")] + [(t, "2025-05-01") for t in OTHER])
    try:
        found = mem.retrieve(question, 5)
    finally:
        mem.archive.close()
    lifted = [r["text"] for r in found if any(s["stage"] == "latest" for s in r.get("stages") or [])]
    assert (lifted[:1] == [newer] and found[0]["text"] == newer) is moved


@pytest.mark.parametrize("question, now", [
    ("温室的浇水排班归谁管？", True),        # Chinese has no tense: a question with no word of another time asks of now
    ("溫室的澆水排班現在歸誰管？", True),      # traditional characters
    ("温室的浇水排班以前归谁管？", False),      # a word of the past: what was
    ("温室的浇水排班", False),                 # no question
])
def test_a_chinese_question_asks_of_now_unless_it_names_another_time(question: str, now: bool) -> None:
    from memoryd.tiers.retrieval.time_rule import time_rule

    rule = time_rule(question, None)
    assert bool(rule and rule.of_now) is now


def test_a_chinese_question_of_now_puts_the_newer_of_two_near_equals_first(home: Path,
                                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMORYD_RETRIEVAL_MODE", "keyword")
    said = [("温室的浇水排班归阿岚管，周一周四", "2025-06-02"), ("温室的浇水排班改了，归阿楠管", "2025-07-14")]
    assert _first(said, "温室的浇水排班归谁管？") == said[1][0]


@pytest.mark.parametrize("said, question, first", [
    # whose a Chinese question asks of (before its 的 or word of now): a newer line about another is not moved above
    ([("阿岚的浇水排班是周一周四", "2025-06-02"), ("温室的浇水排班改成周二周五了", "2025-07-14")],
     "阿岚现在的浇水排班是哪天？", 0),
    ([("苏禾公司的开户行是澄河银行", "2025-06-02"), ("隔壁那家店开户行换成了澄溪银行", "2025-07-14")],
     "苏禾公司的开户行现在是哪家？", 0),
    # a familiar name (阿岚) says its given name's character; the full name (林岚) in the newer line is whose too
    ([("阿岚的浇水排班是周一周四", "2025-06-02"), ("林岚浇水排班改成周二周五了", "2025-07-14")],
     "阿岚现在的浇水排班是哪天？", 1),
    # kept under one entity's label: the newer speaks of the first's shop, though it does not say whose it is
    ([("@溪口面馆: 阿岚爸妈的面馆周一公休，早上六点开门", "2025-06-02"), ("@溪口面馆: 面馆公休改在周三了", "2025-07-14")],
     "阿岚爸妈的面馆现在哪天公休？", 1),
    ([("@溪口面馆: 阿岚爸妈的面馆周一公休，早上六点开门", "2025-06-02"), ("@河西面馆: 面馆公休改在周三了", "2025-07-14")],
     "阿岚爸妈的面馆现在哪天公休？", 0),
])
def test_a_chinese_question_moves_up_only_a_newer_line_of_whose_it_asks(home: Path, monkeypatch: pytest.MonkeyPatch,
                                                                        said: list, question: str, first: int) -> None:
    monkeypatch.setenv("MEMORYD_RETRIEVAL_MODE", "keyword")
    assert _first(said, question) == said[first][0]



def test_a_city_the_question_names_need_not_be_said_again() -> None:
    """`Vienna` says where, not whose: a newer line naming whose it is (Tamsin's) and the day may move above."""
    from memoryd.tiers.retrieval.latest import _named_in

    first = "Tamsin's parents arrive in Vienna on 18 March, flying in from Bergen"
    assert _named_in(first, "On what date do Tamsin's parents arrive in Vienna?") == {"tamsin"}


def test_the_days_a_line_speaks_of_meet_the_days_a_question_asks_of() -> None:
    from memoryd.tiers.retrieval.answer_shape import day_kinds

    assert day_kinds("weekday opening hours") & day_kinds("we open at 7 on Mondays")      # a Monday is a weekday
    assert not day_kinds("weekday opening hours") & day_kinds("Saturdays 9 to 1")
    assert day_kinds("周末几点关门？") & day_kinds("禮拜六八點關門")                           # the weekend's Saturday
    assert not day_kinds("the pool's opening hours")                                    # no day: no check


def _ranked(text: str, day: str, fused: float, words: float):
    """A hybrid result: its fused rank and its words' own score (BM25) apart."""
    from dataclasses import replace

    from memoryd.tiers.retrieval.candidate import Candidate, Ranking, Score

    cand = Candidate.of({"id": str(abs(hash(text))), "text": text, "category": "notes", "tier": "cold", "path": "", "score": 0.5,
                         "day": day})
    score = Score(words, (), 0.0, 1.0, None, None, 0.0, None, 1.0)
    return replace(cand, ranking=Ranking(fused, fused, score))


@pytest.mark.parametrize("newer, words, moved", [
    ("the ferry timetable for the island run is the 7:40 now", 2.0, True),    # the words found it too
    ("the ferry timetable for the island run is the 7:40 now", 0.5, False),   # only its meaning was near
    ("the island boat goes at 7:40 from Monday", 2.0, True),   # the change in other words: says the island of it
    ("7:40 now, the skipper says", 2.0, False),                              # says nothing of what is asked
])
def test_in_hybrid_mode_the_band_is_what_the_words_found_and_says_what_the_first_says(newer: str, words: float,
                                                                                     moved: bool) -> None:
    """Fused scores sit close together: the band is measured by the words' own score, and a newer line moves up only
    saying something of what the first says of what is asked."""
    from memoryd.tiers.retrieval.latest import latest_first
    from memoryd.tiers.retrieval.time_rule import time_rule

    first = _ranked("the ferry timetable for the island run is the 8:10 sailing", "2025-06-02", 1.0, 2.4)
    later = _ranked(newer, "2025-07-14", 0.95, words)
    rule = time_rule("What is the ferry timetable for the island run now?", None)
    out = latest_first([first, later], rule, "What is the ferry timetable for the island run now?", words_only=True)
    assert (out[0].text == newer) is moved


_SEED = [("the allotment society buys its seed from Kingfold Seeds, the seed order goes in every January", "2025-03-02"),
         ("the allotment society has a new seed catalogue shelf", "2025-01-14"),
         ("allotment society seed potatoes are chitting in the shed", "2025-01-12"),
         ("the allotment society seed swap is in the village hall", "2025-01-10")]


@pytest.mark.parametrize("newer, moved", [
    ("the society seed order goes to Sutton Growers now", True),                  # a change of the seed order
    ("the society seed order was rebooked with Sutton Growers", True),            # a value set again
    ("the society seed order actually goes to Sutton Growers", True),             # a correction
    ("the society seed order is back with Sutton Growers", True),                 # back to an earlier one
    ("the society seed catalogue came, and the tap Dervla fixed now works", False),  # its change is of the tap
    ("Sutton Growers sent the seed invoice. does the society seed order go to them now?", False),  # it asks
])
def test_a_newer_line_lower_down_joins_the_band_said_as_a_change_of_what_is_asked(
        home: Path, monkeypatch: pytest.MonkeyPatch, newer: str, moved: bool) -> None:
    """Found fifth, below three older lines of the same society: a clause saying a change of a word of what is
    asked that the first says too lets it join; the first then stands directly under it."""
    monkeypatch.setenv("MEMORYD_RETRIEVAL_MODE", "keyword")
    mem = memory_with_said(_SEED + [(newer, "2025-07-14")] + [(t, "2025-05-01") for t in OTHER])
    try:
        found = [r["text"] for r in mem.retrieve("Which seed supplier does the allotment society use now?", 6)]
    finally:
        mem.archive.close()
    assert found[:2] == ([newer, _SEED[0][0]] if moved else [_SEED[0][0], _SEED[1][0]])


_CODES = [("the garden shed door code is 4417", "2025-03-02"), ("the garden gate code is 1203", "2025-03-01"),
          ("the garden bike lock code is 8810", "2025-03-01"), ("the alarm code is 5562", "2025-03-01")]


@pytest.mark.parametrize("newer, moved", [
    ("the garden shed door code changed to 9034", True),
    ("the garden gate code changed to 7730", False),      # another code's change: it shares only common words
])
def test_a_change_of_another_thing_sharing_a_common_word_does_not_join(home: Path, monkeypatch: pytest.MonkeyPatch,
                                                                      newer: str, moved: bool) -> None:
    monkeypatch.setenv("MEMORYD_RETRIEVAL_MODE", "keyword")
    assert (_first(_CODES + [(newer, "2025-07-14")], "what is the garden shed door code now") == newer) is moved


def test_a_chinese_speakers_label_is_not_what_a_change_is_of(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`林岚：真的要搬了` tells a move of house; it shares only the speaker's name (a full-width colon, no space after
    it) with the question, so it does not join the band above the line of what is asked."""
    monkeypatch.setenv("MEMORYD_RETRIEVAL_MODE", "keyword")
    said = [("林岚：我报了社区中心的水彩课！每周四晚上。", "2025-06-02"), ("林岚：我在努力多喝水。你那边有什么新鲜事吗？", "2025-05-02"),
            ("林岚：真的要搬了，我们要搬去海城，今天上午签的合同。", "2025-07-14")]
    assert _first(said, "送林岚一套专业水彩颜料合适吗？") == said[0][0]
