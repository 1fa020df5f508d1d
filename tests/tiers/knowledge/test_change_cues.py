"""A change read from how it is said (tiers/knowledge/change.py, split from test_truth_store.py): the value it
replaces and the new one, and whether an older memory states the value replaced."""
from __future__ import annotations

import pytest

from memoryd.tiers.knowledge import change


@pytest.mark.parametrize("text,old,new", [
    ("We moved the nightly backups from Hetzner to Backblaze last week.", "Hetzner", "Backblaze"),
    ("The cabin's wifi password is spruce-77 instead of larch-21 now", "larch-21", "spruce-77"),
    ("Selim no longer works at Quorvale", "Quorvale", ""),
    ("sorry, the recital is on Thursday, not Tuesday", "Tuesday", "Thursday"),
    ("Replaced the old Brother printer with an Epson ET-2850", "Brother printer", "Epson ET-2850"),
    ("\u5bbd\u5e26\u4ece\u7535\u4fe1\u6362\u6210\u4e86\u8054\u901a", "\u7535\u4fe1", "\u8054\u901a"),
    ("\u6211\u4eec\u4e0d\u518d\u7528\u9489\u9489\u4e86", "\u9489\u9489", ""),
    ("Mira: switched the ferry booking from Tuesday 7:40 to Friday 9:15", "Tuesday 7:40", "Friday 9:15"),
    ("好，库存系统从阿里云迁到了 Hetzner（德国）。", "阿里云", "Hetzner"),   # 了 and a space before the new value
    ("The shop site moved from Linode to Fly.io Sydney on 3 May.", "Linode", "Fly.io Sydney"),  # a dot inside a value;
    ("We bumped the SDK from 4.5 to 5.0 last week.", "4.5", "5.0"),                          # the day it happened
    ("the launch is on March 3, not March 10", "March 10", "March 3"),  # a new value said first is the day itself
    ("Orla's swim class moves from Tuesday to Friday.", "Tuesday", "Friday"),  # a verb's every form
    ("Pavel is relocating from Leeds to Bristol in June.", "Leeds", "Bristol"),
    ("即係 the audit 由 Mar 3 改咗做 Mar 10。", "Mar 3", "Mar 10"),           # Cantonese, a day written in English
    ("年审由 Nov 2 再推到 Nov 9，又要改机票", "Nov 2", "Nov 9"),              # moved again
    ("值日從週一換到週四了", "週一", "週四"),                                   # Traditional characters
    ("预发环境因为插件不兼容从v3.2回退到v3.1", "v3.2", "v3.1"),                 # a rollback: back to an older one
    ("活动一结束，快递费从8块回到10块", "8块", "10块"),                           # a return to what it was
    # a number's thousands comma, decimal point or clock colon is inside the value, not its end
    ("the rent went from 2,380 to 2,290, paid monthly", "2,380", "2,290"),
    ("rent is 2,290 instead of 2,380 now", "2,380", "2,290"),
    ("standup is at 9:00 instead of 9:30", "9:30", "9:00"),
    ("the loan came through at 6.4%, not 6.9", "6.9", "6.4%"),
    ("月租从2,380涨到2,590了", "2,380", "2,590"),
])
def test_a_change_is_read_with_the_value_it_replaces(text: str, old: str, new: str) -> None:
    [cue] = change.cues(text)
    assert (cue.old, cue.new) == (old, new)


@pytest.mark.parametrize("text", [
    "The ferry from Tuesday to Friday was lovely",          # from X to Y without a change word: a trip, not a change
    "Did you switch from Hetzner to Backblaze?",            # a question tells nothing
    "The meeting is at 10 now",                             # a change that does not name what it replaces: silent
    "Thanks!",
    "Mira: we went from one thing to another",              # nothing precise enough to find
    "这学期从浮力讲到大气压强，又到摩擦力",                    # 从X到Y with no change verb: a span, not a change
    "从下周起周会改到周三",                                      # 从 a day to come: when it starts, no old value
])
def test_no_cue_is_read_where_the_words_do_not_name_a_replaced_value(text: str) -> None:
    assert change.cues(text) == ()


@pytest.mark.parametrize("older, same", [
    ("Got it: the Quenby launch moves from 14 February to 8 March, still at the Quay Hall.", True),  # said already
    ("The Quenby launch is on 14 February at the Quay Hall.", False),
])
def test_a_change_said_again_with_more_words_is_no_change_of_the_first_telling(older: str, same: bool) -> None:
    [cue] = change.cues("The Quenby launch moved from 14 February to 8 March 2027 on the printer's advice.")
    assert (change.states(older, cue) is None) is same


@pytest.mark.parametrize("older, states", [
    ("So the booking site now lives on Fly.io in Sydney, no longer on Linode.", False),  # the old value as history
    ("big news: the booking site is leaving Linode for a host nearer the customers", False),  # said ahead
    ("The booking site runs on a Linode box in Frankfurt.", True),
])
def test_a_memory_that_itself_says_the_old_value_was_replaced_does_not_state_it(older: str, states: bool) -> None:
    [cue] = change.cues("The booking site moved from Linode to Fly.io Sydney on 3 May; it still uses MariaDB.")
    assert (change.states(older, cue) is not None) is states


@pytest.mark.parametrize("older, states", [
    ("thinking about the reunion already. every year we go to my aunt in Hexham, she lives alone", False),  # two
    ("The reunion is in Hexham again, at my aunt's.", True),                 # sentences: the aunt's town is no reunion's
    ("开店预算：人工一年38万4，设备8万。", False),                             # 38万 is no 38 (a cue of a price)
    ("机房温度 18度太冷了 又改成22度了", False),                             # it says the new value already, a Han
])                                                                          # character right before it
def test_the_old_value_is_stated_of_the_thing_in_one_sentence_and_a_value_beside_han_is_read(older: str,
                                                                                            states: bool) -> None:
    said = "机房温度从18度调到22度" if "机房" in older else "The reunion moves from Hexham to Alnwick." if "reunion" in \
        older else "人工从38涨到41，一天多3块。"
    [cue] = change.cues(said)
    assert (change.states(older, cue) is not None) is states


@pytest.mark.parametrize("older, states", [
    ("太好了！会员费从300降到250。是只有这个月吗？", True),   # a question after it: what it told still stands
    ("会员费还是250吗？", False),                              # it only asks
])
def test_what_a_memory_asks_after_stating_a_value_leaves_the_value_stated(older: str, states: bool) -> None:
    [cue] = change.cues("会员费从250回到300了。")
    assert (change.states(older, cue) is not None) is states


def test_a_reason_between_the_thing_and_a_chinese_cue_is_not_part_of_the_thing() -> None:
    """`X因<原因>从A回退到B`: the thing is X; the reason's words are not asked of the memory stating A."""
    [cue] = change.cues("缓存集群因内存泄漏问题从6.2回退到6.0。")
    assert change.states("缓存集群已经从6.0升级到6.2了。", cue) is not None


@pytest.mark.parametrize("older", [
    "Weekly releases of the app are not happening with two of us part-time.",  # denies the value, states none
    "March was too busy for the party anyway.",                               # a month alone is no day of it
    "Enjoy a Monday without standup for once.",                               # the day without the thing
])
def test_a_memory_that_denies_a_value_or_names_only_its_month_does_not_state_it(older: str) -> None:
    for cue in change.cues("The app moves from weekly to monthly releases.") + change.cues(
            "The party moves from 14 March to 2 May.") + change.cues("Standup moves from Monday to Wednesday."):
        assert change.states(older, cue) is None
    [cue] = change.cues("Standup moves from Monday to Wednesday.")
    assert change.states("Standup is every Monday at 9, without fail.", cue) is not None  # without what, not standup


@pytest.mark.parametrize("text", [
    "Right, that moves the review from Monday to Friday, which would clash with your flight. Is that OK?",
    "It could go from two shifts to three if the new hire works out.",
    "如果评审从周一改到周五的话，正好撞上你出差。",
])
def test_a_change_said_as_what_it_would_do_only_asks(text: str) -> None:
    [cue] = change.cues(text)
    assert cue.old and cue.new and not cue.act


@pytest.mark.parametrize("text, asks", [
    ("OK, the bacon switches from DPD to DHL. Are the other products switching too?", True),
    ("好的，面粉从老王换成新磨坊。其余的也一起换吗？", True),
    ("OK, the bacon switches from DPD to DHL. Can you tell the packers?", False),
])
def test_a_change_whose_line_asks_if_the_others_change_too_only_asks(text: str, asks: bool) -> None:
    [cue] = change.cues(text)
    assert cue.old and cue.new and cue.act is not asks


@pytest.mark.parametrize("older, states", [
    ("The landlord wants to move the inspection to 12 March, after the holidays.", False),
    ("The landlord asked us to hold the inspection on 12 March instead.", False),
    ("The inspection is on 12 March, the landlord confirmed.", True),
])
def test_a_value_said_only_as_someones_wish_is_not_stated(older: str, states: bool) -> None:
    [cue] = change.cues("The inspection moved from 12 March to 19 March.")
    assert cue.act and (change.states(older, cue) is not None) is states


def test_one_word_of_a_longer_new_value_is_not_that_value() -> None:
    [cue] = change.cues("Our books moved from Ledgerly to Tallysoft Online in mid-December.")
    assert change.states("We moved our books from Tallysoft Desktop to Ledgerly this week.", cue) is not None


@pytest.mark.parametrize("change_said, older", [
    ("Pepper moved from Zyrtec to Allevia tablets; next check at Elm Road Vets on 4 May.",
     "the vet wants Pepper off the Zyrtec and onto Allevia, once a day with food"),
    ("The wiki is moving from Confluence to Notion in spring.",
     "Notion. they said the Confluence licence ends next year, so the wiki goes over to Notion by April"),
])
def test_an_older_memory_already_naming_the_new_value_is_a_restatement(change_said: str, older: str) -> None:
    """A name followed by common words (`Allevia tablets`, `Notion in spring`): the name is the new value."""
    [cue] = change.cues(change_said)
    assert change.states(older, cue) is None


@pytest.mark.parametrize("older, states", [
    ("Dana moved on Sunday! cleared out of Birch House and is now in the flat at Hollowmere", False),
    ("Dana still lives in Birch House, near the ring road.", True),
    ("Dana is in Birch House; if she moves it would be somewhere like Hollowmere", True),  # no change told
])
def test_an_older_memory_telling_the_change_in_its_own_words_is_not_made_stale_by_it(older: str, states: bool) -> None:
    """It names the new value's place with a change word of its own: the later line says the same move."""
    [cue] = change.cues("Dana moved from Birch House into a shared flat in Hollowmere.")
    assert cue.act and (change.states(older, cue) is not None) is states


@pytest.mark.parametrize("text, found", [
    ("平日OT更正为每小时28元", True),    # a Chinese word of change may stand against Latin letters
    ("KPI改到周三", True),
    ("the unmoved stone", False),        # an English one is a whole word
    ("it moved.", True),
])
def test_a_word_of_change_is_a_whole_word_only_where_it_is_latin(text: str, found: bool) -> None:
    from memoryd.tiers.knowledge.lang_words import words_rx

    assert bool(words_rx("reschedule_words").search(text)) is found
