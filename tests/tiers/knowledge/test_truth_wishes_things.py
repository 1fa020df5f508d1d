"""Changes said as someone's wish, Chinese things said in a shorter form, and a question of who under a change of
a day (split from test_truth_store.py): each acts only where what the words say makes it right."""
from __future__ import annotations

import pytest

from memoryd.tiers.knowledge import change
from test_truth_store import DAY, _followed, _placed, clock, mem  # noqa: F401  (clock, mem: fixtures)


@pytest.mark.parametrize("text, act", [
    ("the landlord wants to move the deposit from Halvern Bank to Corrie Mutual", False),
    ("my manager asked me to switch the report from Monday to Friday", False),
    ("we moved the deposit from Halvern Bank to Corrie Mutual this morning", True),
])
def test_a_change_someone_wants_made_only_asks(text: str, act: bool) -> None:
    """`he wants to move X from A to B` says a wish, not that it moved: the cue is read (a review may ask of it) but
    acts on nothing."""
    [cue] = change.cues(text)
    assert cue.old and cue.new and cue.act is act


@pytest.mark.parametrize("older, states", [
    ("要是价钱谈到九百，这次订货就订三批", False),                  # what would hold under a condition
    ("if the hall's free, we'll take three tables for the fair", False),
    ("要是这次订货的三批再出问题，就换供应商", True),   # named inside the condition: what holds now
    ("这次订货订了三批，价钱九百", True),
    ("we took three tables for the fair, the hall was free", True),
])
def test_a_value_said_under_a_condition_is_not_stated(older: str, states: bool) -> None:
    """`如果…就<value>` or `if …, <value>` in an older memory says what would hold: a later change of that value
    replaces nothing in it."""
    [cue] = [c for c in change.cues("这次订货从三批加到四批" if "批" in older else "we went from three tables to four")]
    assert (change.states(older, cue) is not None) is states


@pytest.mark.parametrize("text, act", [
    ("So you're moving from Tamsworth to Ottery Row: a bigger kitchen at last.", False),   # under way
    ("Ossian is relocating from Dunmore to Calder Bay on 20 May for the new job.", False),
    ("The move from Quarry Lane to Heddon Yard is set for 16 March, chargers and all.", False),  # its date set
    ("Our move from Dunmore to Calder Bay is booked with Gannet Movers for Saturday 9th May.", False),  # booked
    ("The transfer from Ashgrove to Kelling is booked in for the 3rd.", False),
    ("the launch moved from 3 May to 10 May, so it is set for a Monday now", True),          # done, then its day
    ("we moved the gym night from Tuesday to Thursday", True),
    ("听说仓库要搬，从西郊搬到南港物流园，说是下个月", False),                                  # to come
    ("对方说返点从8%涨到12%，老板还没决定。", False),                                          # an offer, open
    ("主要供应商从东川换成了北岭。", True),                                                    # 主要 is no plan
    ("客户要求交货日从周三改到周五。", True),                                                   # 要求: a requirement
])
def test_a_change_said_as_under_way_or_to_come_only_asks(text: str, act: bool) -> None:
    """A from-to said as a plan (`you're moving from`, `is set for <day>`, 要从…, 还没决定) is taken by writers for
    a change as often as not: it asks; a change said as done acts."""
    cues = change.cues(text)
    assert cues and all(c.act is act for c in cues)


@pytest.mark.parametrize("older, states", [
    ("面馆目前早上七点开门、周二公休。", True),        # 公休日 said as 公休: the same thing without its last character
    ("面馆周二进货，下午才开门。", False),              # the same day of another thing
])
def test_a_chinese_thing_said_without_its_last_character_is_the_same_thing(older: str, states: bool) -> None:
    [cue] = change.cues("面馆下个月起改七点开门，公休日从周二改成周三。")
    assert cue.act and (change.states(older, cue) is not None) is states


def test_a_longer_chinese_thing_is_not_met_by_its_tail_or_by_one_word_of_it() -> None:
    [cue] = change.cues("停车场收费标准从周一改到周三。")
    assert change.states("周一收费员休息。", cue) is None     # a word of the thing's end alone names another thing


@pytest.mark.parametrize("newer, older, states", [
    ("阿柔工作室9月初从柳巷搬到西河路，月租六千。", "阿柔的工作室8月初从槐街搬到柳巷。", True),  # when, and 的
    ("阿柔工作室9月初从柳巷搬到西河路。", "阿柔的仓库在柳巷。", False),                    # another thing
    ("阿柔今天从柳巷搬到西河路。", "阿柔一直住柳巷。", True),                             # a name alone: its clause
    ("阿柔今天从柳巷搬到西河路。", "老葛继续住柳巷，帮阿柔搬完家。", False),               # another's, beside it
    ("we moved the rehearsal last week from Tolley Barn to Kestle Hall", "the rehearsal is at Tolley Barn", True),
    ("we moved the rehearsal last week from Tolley Barn to Kestle Hall", "the tractor sleeps in Tolley Barn", False),
])
def test_when_a_change_happened_is_not_what_changed(newer: str, older: str, states: bool) -> None:
    """`X 9月初从A搬到B`, `moved X last week from A to B`: the words of when are not the thing, so an older statement
    of X without them (or with 的 between X's words) states the old value; another thing at A still does not."""
    [cue] = change.cues(newer)
    assert cue.act and (change.states(older, cue) is not None) is states


@pytest.mark.parametrize("newer, older, states", [
    ("Got it: pottery with Brisa moves from Thursdays to Fridays going forward.",
     "My pottery class with Brisa moved from Monday to Thursday.", True),          # a day in the plural is that day
    ("Pottery with Brisa moved from Monday to Friday evenings, in the annex.",
     "we're moving pottery with Brisa to Fridays, Monday is taken", False),      # says the new day already
])
def test_a_day_of_the_week_is_the_same_value_in_the_plural(newer: str, older: str, states: bool) -> None:
    [cue] = change.cues(newer)
    assert cue.act and (change.states(older, cue) is not None) is states


@pytest.mark.parametrize("older, states", [
    ("@Tollbridge: Model review sign-off moved from Mar 3 to Mar 17.", True),    # kept under what it speaks of
    ("W @Tollbridge: Model review sign-off moved from Mar 3 to Mar 17.", True),
    ("Tollbridge: Model review sign-off moved from Mar 3 to Mar 17.", False),    # a speaker is not the subject
])
def test_the_entity_a_memory_is_kept_under_names_its_thing(older: str, states: bool) -> None:
    [cue] = change.cues("A: 唉, Tollbridge review 由 Mar 17 再推到 Mar 31。")
    assert cue.act and (change.states(older, cue) is not None) is states


def test_a_question_of_who_gets_no_placement_of_a_changed_day(keyword_mode, mem, clock) -> None:
    """The coach is said in both memories; what changed is the day: under `who coaches …?` the older one stands
    as found, under a question of the day the newer one comes first."""
    old = mem.store("Coach Verrall coaches Lysander at fencing; the fencing lessons with Coach Verrall are on Tuesday "
                    "nights.", "family", 0.6)
    clock.t += DAY
    new = mem.store("Lysander's fencing with Coach Verrall moves from Tuesday nights to Saturday mornings.", "family",
                    0.6)
    assert _followed(mem, old, new)
    who = mem.retrieve("Who coaches Lysander at fencing?")
    assert who[0]["id"] == old["id"] and not _placed(who, new["id"])
    assert mem.retrieve("On which day is Lysander's fencing now?")[0]["id"] == new["id"]


def test_a_change_of_a_value_named_with_what_is_asked_is_placed_only_for_whom_it_changed(keyword_mode, mem,
                                                                                          clock) -> None:
    """`Larchfield` written `Larchfield Primary School`: a question of which school is a question of that value,
    though the newer memory names only the new school; the clause telling the change names one child, so a
    question of the other child gets what the words found."""
    old = mem.store("So Benedek is in year 5 and Orsolya in year 2, both at Larchfield Primary School.", "family", 0.6)
    clock.t += DAY
    new = mem.store("So Benedek moves from Larchfield to Kestrel Academy in April, and Orsolya stays on at Larchfield.",
                    "family", 0.6)
    assert _followed(mem, old, new)
    assert _placed(mem.retrieve("Which school does Benedek go to now?"), new["id"])
    assert not _placed(mem.retrieve("Which school does Orsolya go to?"), new["id"])


@pytest.mark.parametrize("text, old, new", [
    ("豆粕已从东岭换为北川饲料。", "东岭", "北川饲料"),           # a thing replaced
    ("日预算从3000提到5000，先跑一周看看", "3000", "5000"),      # an amount raised or cut
    ("月租由4800砍到4500了", "4800", "4500"),
])
def test_chinese_verbs_of_replacing_and_of_raising_or_cutting_an_amount(text: str, old: str, new: str) -> None:
    [cue] = change.cues(text)
    assert (cue.old, cue.new, cue.act) == (old, new, True)


@pytest.mark.parametrize("text", ["他从来没提到过这件事。", "从小到大都住在这条街上", "从没降到这么低过"])
def test_never_since_childhood_and_formerly_open_no_old_value(text: str) -> None:
    assert not change.cues(text)


@pytest.mark.parametrize("text, old", [("值班从小闫换成小闵了。", "小闫"), ("收件从前台改到三楼收发室。", "前台")])
def test_a_familiar_name_or_a_front_desk_after_cong_is_an_old_value(text: str, old: str) -> None:
    [cue] = change.cues(text)
    assert cue.old == old and cue.act


def test_a_chinese_clause_saying_more_than_the_change_is_updated_in_part() -> None:
    """The older line tells the order's quantity and who inspects it: a change of the quantity leaves the
    inspection true, so the line is updated in part, not superseded."""
    [cue] = change.cues("好，Brantley 的单从3000件减到2600件，多付的定金下次抵。")
    assert change.states("助手: 好，Brantley 3000件这批交给老薛验货。", cue) == change.PART
    assert change.states("Brantley 的单 3000件", cue) == change.WHOLE


@pytest.mark.parametrize("text", ["没办法，从这个月起保洁费都涨到四百", "由本周开始晨会改到周二傍晚", "從這學期開始校車改成七點"])
def test_from_a_time_on_is_no_from_to(text: str) -> None:
    """从<a time>起 / 开始 says when a change starts; the time is no old value (the change may name none)."""
    assert all(not cue.act for cue in change.cues(text))


@pytest.mark.parametrize("text, old, new", [
    ("ok so that settles it. dropped the Ossery quote, going with Pellman", "Ossery quote", "Pellman"),
    ("We ditched Zentro and went with Quill from today.", "Zentro", "Quill"),
])
def test_dropping_one_and_going_with_another_is_a_switch(text: str, old: str, new: str) -> None:
    [cue] = change.cues(text)
    assert (cue.old, cue.new, cue.act) == (old, new, True)


@pytest.mark.parametrize("text", ["dropped the twins at the pool, went with Ines for coffee",
                                  "dropped Yusra off, going with her brother to the fair"])
def test_a_drop_off_is_no_switch(text: str) -> None:
    assert not change.cues(text)


def test_one_replacing_another_as_a_role_changes_who_holds_the_role_and_nothing_else_of_them() -> None:
    """`<new> replaced <old> as <role>`: the role, said after the cue, is the changed thing; a line naming the old
    holder with the role is stated, one naming them with another fact of theirs is not."""
    [cue] = change.cues("Ilse Quarne has replaced Obeda Tallis as the choir's secretary.")
    assert (cue.old, cue.new, cue.act) == ("Obeda Tallis", "Ilse Quarne", True)
    assert change.states("Obeda Tallis is the choir secretary, send her the rota.", cue)
    assert not change.states("Obeda Tallis lives out past the ring road.", cue)
    assert not change.cues("she replaced the fuse as a test") and not change.cues("He replaced Ruskin as captain")


@pytest.mark.parametrize("text, old, new", [
    ("So Orrin Tebb takes over the Tuesday run from tonight, replacing Beck.", "Beck", "Orrin Tebb"),
    ("Tamsett Joinery is now your fitter, replacing Corrie Holt who retires.", "Corrie Holt", "Tamsett Joinery"),
])
def test_a_name_said_before_replacing_is_the_new_holder_kept_whole_and_the_cue_only_asks(text: str, old: str,
                                                                                         new: str) -> None:
    """`<Name> …, replacing <old>`: the name the sentence opens with is the new value, every word of it (not cut to
    the old one's length); over the corpus such sentences also name the old holder in older lines that only tell a
    story of them (0.85 right), so the cue asks."""
    [cue] = change.cues(text)
    assert (cue.old, cue.new, cue.act) == (old, new, False)
    assert not change.cues("We spent Sunday at the market, replacing the old shelves.")  # no name opens it


@pytest.mark.parametrize("older, states", [
    ("Reema's niece started swimming lessons at Larkspur Academy, the pool is lovely", False),  # only names it
    ("kal Larkspur Academy ka open day tha, Reema ne photos bheje", False),
    ("Nilo got her seat at Larkspur Academy, enrolment done", True),       # a word of the change beside the name
    ("The Somfy hub for the garage door sits in the shed", True),          # a tail of the old value with its thing
])
def test_an_old_value_that_is_one_name_needs_a_word_of_the_change_beside_it(older: str, states: bool) -> None:
    """A change back from `<Name> Academy` (which names no thing of its own: its values say what it is) replaces what a
    memory says of the thing changed, not every line that names the academy: the words cut off a tail of the old value
    (`Academy`) are the name itself, no anchor of the thing."""
    back = "Nilo's enrolment switched back from Larkspur Academy to Brackenford School."
    [cue] = change.cues(back if "hub" not in older else "Swapped the garage door's Somfy hub for a Tuya bridge.")
    assert (change.states(older, cue) is not None) is states
