"""A question that asks for an amount, a clock time, a duration, a number or a day ranks a memory holding one above a
memory that only names the topic; nothing is dropped."""
from __future__ import annotations

from pathlib import Path

import pytest

from memhelp import memory_with_said
from memoryd.tiers.retrieval.answer_shape import asked, holds_any


@pytest.mark.parametrize("question, holding, naming", [
    ("How much is the greenhouse budget now?", "greenhouse budget went up to 3,200", "greenhouse budget, the roof, the drains"),
    ("温室的预算是多少？", "温室预算改成三万五了", "温室预算的事下周再说"),
    ("菜园的番茄现在几块钱一斤？", "菜园番茄涨到6块一斤", "菜园番茄的事下周再说"),   # 几块: how many yuan
    ("What time does the choir meet?", "choir meets at 7:30 from now on", "choir meeting was fun"),
    ("合唱团几点集合？", "合唱团改到七点半集合", "合唱团集合的事别忘了"),
    ("How long is the drive to the cabin?", "the drive to the cabin took forty minutes", "the drive to the cabin was pretty"),
    ("车程多久？", "车程大概两个小时", "车程太远了"),
    ("Which version is the scanner on?", "scanner upgraded to 4.2", "scanner upgrade went fine"),
    ("On which day is choir practice now?", "choir practice moved to Thursdays", "no choir practice this week"),
    ("When is the boiler service?", "boiler service booked for 14 March", "the boiler service guy was nice"),
    ("When is the boiler service?", "boiler service booked for 14 May", "you may want the boiler service guy"),
    ("体检是哪天？", "体检改到12月12号", "体检的事别忘了"),
    ("合唱团周几排练？", "合唱团改成周四排练", "合唱团排练好累"),
    ("What is the bakery's address?", "the bakery is at 14 Larch Mill Road, next to the bus stop", "the bakery is shut on Mondays"),
    ("面包店的地址是什么？", "面包店在澄溪区长河路188号", "面包店周一休息"),
    ("合唱团几点集合？", "合唱团改到7点半集合", "合唱团集合的事别忘了"),      # a clock time written with a digit
    ("體檢是哪一天？", "體檢改到12月12號", "體檢的事別忘了"),              # traditional characters
    ("合唱團幾點集合？", "合唱團改到七點半集合", "合唱團集合的事別忘了"),
    ("合唱團禮拜幾排練？", "合唱團改成禮拜四排練", "合唱團排練好累"),
    # a day or a clock time is no amount and no version: a newer line naming only when holds neither
    ("小屋的月租是多少？", "小屋月租改成2650了", "小屋的搬家日期改为10月10日"),
    ("How much is the allotment rent now?", "allotment rent is £185 a year now", "allotment rent talk moved to 8 March"),
    ("How much is the allotment rent now?", "allotment rent is £185 a year now", "allotment rent meeting at 7:30, 2026-05-18"),
    ("Which version is the scanner on?", "scanner upgraded to v4.2.1", "scanner upgrade planned for 11月, or the 21st"),
    # `at 8` is a clock time when the clause ends or goes on with and, again, tonight …; a count or a rate is not
    ("How much does the quartet get per wedding now?", "the quartet gets 400 a wedding now", "the quartet rehearses at 8 again"),
    ("How much is a pottery class now?", "pottery class is at 35 a head now", "pottery class starts at 7 tonight, Thursdays"),
    ("How many riders fit on the minibus now?", "minibus capped at 14 riders", "minibus leaves at 9, then at 11."),
    # `which evening` before a block, a slot or a window asks a clock time, not a day: a date is no answer to it
    ("In which evening block is the cottage's water off now?", "the cottage's water is off 19:45-21:15 now",
     "the cottage's water cuts stopped on 4 June"),
    ("What evening does the book club meet now?", "book club moved to Tuesdays", "book club picked a long one"),
    # how often asks a frequency: a line naming the thing and a day holds none
    ("How often does the piano tuner come out now?", "the piano tuner comes every six weeks now",
     "piano tuner comes out on Sunday, can you believe it"),
    ("How often does the book club meet?", "book club meets twice a month", "book club met on 4 June"),
    ("钢琴调音师多久来一次？", "钢琴调音师改成每两个月来一次", "钢琴调音师周日来"),
    ("读书会一个月几次？ 频率是多少？", "读书会一月两次", "读书会6月4号见"),
])
def test_the_shape_a_question_asks_for(question: str, holding: str, naming: str) -> None:
    shapes = asked(question)
    assert shapes and holds_any(holding, shapes) and not holds_any(naming, shapes)


@pytest.mark.parametrize("question", ["Who is the greenhouse contractor?", "Where does Deven live now?",
                                      "What is the IP address of the test rig?",
                                      "How long ago did we meet?", "谁负责温室？",
                                      "Which evening shift does Ana work now?"])
def test_a_question_that_names_no_shape_asks_for_none(question: str) -> None:
    assert asked(question) == ()


def test_for_a_question_of_an_amount_the_memory_holding_one_ranks_first(
        home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMORYD_RETRIEVAL_MODE", "keyword")  # the words' order alone, so the shape decides
    said = [("Deven: greenhouse budget, the glazing and the spring start", "2025-06-02"),
            ("Deven: the greenhouse budget ends up at 3,200 euros with the glazing", "2025-06-02")]
    mem = memory_with_said(said)
    try:
        plain = [r["text"] for r in mem.retrieve("greenhouse budget", 5)]
        assert plain[0] == said[0][0]                  # not a question: the plain BM25 order
        found = mem.retrieve("What is the greenhouse budget?", 5)
        assert [r["text"] for r in found] == [said[1][0], said[0][0]]   # the amount first, both kept
    finally:
        mem.archive.close()
