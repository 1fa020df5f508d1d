"""The claim grammar (tiers/knowledge/claims.py) and the things it groups (tiers/knowledge/things.py): one thing
across wordings, other things kept apart, the newest value current; English and Chinese."""
from __future__ import annotations

import pytest

from memoryd.tiers.knowledge.claims import statement_of
from memoryd.tiers.knowledge.things import Things


@pytest.mark.parametrize("text,subject,rel,value", [
    ("Staging DB host: db2.internal", {"stage", "db", "host"}, "is", "db2.internal"),
    ("The standup moved from 9:30 to 10:15 starting Monday.", {"standup"}, "is", "10:15"),
    ("We migrated the docs site over to Netlify last week, works fine", {"document", "site"}, "is", "netlify"),
    ("Heads up: the VPN gateway is now vpn-eu.corp.net", {"vpn", "gateway"}, "is", "vpn-eu.corp.net"),
    ("Our payroll runs on Gusto these days.", {"payrol"}, "is", "gusto"),
    ("the mobile app uses React Native", {"mobil", "app"}, "uses", "react native"),
    ("We went with Redis for the session cache.", {"session", "cach"}, "is", "redis"),
    ("Ines is based in Porto.", {"ine", "citi"}, "is", "porto"),      # where someone is: their city
    ("Priya Natarajan relocated to Pune.", {"priya", "natarajan", "citi"}, "is", "pune"),
    ("Marco is allergic to shellfish.", {"marco"}, "allerg", "shellfish"),
    ("Finished the Atlas database upgrade to Postgres 16, no downtime.", {"atlas", "databas", "upgrad"}, "is",
     "postgres 16"),
    ("Alice Chen prefers async updates in Slack.", {"alic", "chen"}, "prefers", "async updates in slack"),
    ("Alice said again she likes async updates in Slack better than meetings.", {"alic"}, "prefers",
     "async updates in slack"),
    ("Bob mentioned that he's based in Oslo now.", {"bob", "citi"}, "is", "oslo"),
    ("Alice got promoted, she is head of platform as of today.", {"alic", "role"}, "is", "head of platform"),
    ("Bob starts with the billing team on Monday.", {"bob", "team"}, "is", "billing team"),
    ("Ana joined the data team last week", {"ana", "team"}, "is", "data team"),
    ("The quarterly review is about hiring.", {"quarter", "review"}, "about", "hiring"),
    ("W @lab: Lab door PIN is 2580.", {"lab", "door", "pin"}, "is", "2580"),
    ("Sure — dentist appointment on June 9", {"dentist", "appoint"}, "is", "june 9"),
    ("backup window → Sundays at 02:00", {"backup", "window"}, "is", "sundays at 02:00"),
    ("付款方式：支付宝", {"付款方式"}, "is", "支付宝"),
    ("小刘下个月开始在成都上班。", {"小刘"}, "is", "成都"),
    ("陈静现在负责数据平台。", {"陈静"}, "负责", "数据平台"),
    ("数据平台这周开始由陈静接手了", None, None, None),
])
def test_statements_read_the_thing_and_its_value(text, subject, rel, value) -> None:
    s = statement_of(text)
    if subject is None:
        assert s is None or s.value != "数据平台"
        return
    assert s is not None and (set(s.subject), s.rel, s.value) == (subject, rel, value)


@pytest.mark.parametrize("text", ["Which CI do we use now?", "Had lunch with Marco, nice chat.",
                                  "Long day, talk later.", "我们明天讨论吧？", "It is what it is.",
                                  "Ana: Ten days went way too fast.", "Tomas: Sounds like the move went fine."])
def test_questions_small_talk_and_pronouns_state_nothing(text: str) -> None:
    assert statement_of(text) is None


def test_a_speakers_line_is_not_a_value_of_the_speaker() -> None:
    said = statement_of("Ana: The staging server listens on port 8089")
    assert said is not None and said.value == "8089" and "ana" not in said.subject
    assert statement_of("Maya: nurse").subject == frozenset({"maya"})  # a short value stays a value


def things(*texts: str) -> tuple[Things, list[str]]:
    ids = [f"m{i}" for i in range(len(texts))]
    found = {i: s for i, t in zip(ids, texts) if (s := statement_of(t)) is not None}
    assert len(found) == len(texts), [t for i, t in zip(ids, texts) if i not in found]
    return Things(found), ids


def test_one_thing_across_wordings_and_attribute_words() -> None:
    t, ids = things("Payroll provider: Gusto", "We moved payroll to Deel.", "Our payroll runs on Deel now",
                    "Noted, payroll is on Gusto.")
    assert len({t.thing(i) for i in ids}) == 1
    assert t.same_value("m1", "m2") and t.same_value("m0", "m3") and not t.same_value("m0", "m1")


def test_a_shared_value_ties_two_wordings_of_one_thing() -> None:
    t, ids = things("billing-svc CI: Jenkins", "billing-svc builds run on Jenkins", "billing-svc builds run on Drone")
    assert t.thing("m0") == t.thing("m1") == t.thing("m2")


def test_other_things_stay_apart() -> None:
    t, _ = things("The billing-svc repo is gitlab.com/acme/billing-svc", "billing-svc CI: Jenkins",
                  "Marco is allergic to shellfish.", "Marco moved to the payments team.",
                  "Ines's team: growth", "Marco's team: growth", "The garage code is 4417", "The garage door code is 9931")
    assert t.thing("m0") != t.thing("m1")          # a URL is no new value of the CI
    assert t.thing("m2") != t.thing("m3")          # allergic to ≠ on a team
    assert t.thing("m4") != t.thing("m5")          # only the attribute word in common
    assert t.thing("m6") != t.thing("m7")          # "door" is not an attribute word: left to the LLM


def test_a_bare_subject_between_two_attributes_joins_neither() -> None:
    t, _ = things("Ines moved to Lisbon.", "Ines's city: Porto", "Ines's manager: Carla")
    assert t.thing("m1") != t.thing("m2") and t.thing("m0") not in (t.thing("m1"), t.thing("m2"))
    t, _ = things("Ines moved to Lisbon.", "Ines's city: Porto")
    assert t.thing("m0") == t.thing("m1")


def test_chinese_subjects_with_attribute_words() -> None:
    t, _ = things("小刘所在城市：成都", "小刘搬到重庆了。", "小刘负责：支付网关", "小刘这周开始接手支付网关了")
    assert t.thing("m0") == t.thing("m1") and t.thing("m2") == t.thing("m3") != t.thing("m0")
    assert t.same_value("m2", "m3")


def test_a_hobby_is_many_valued() -> None:
    first, second = statement_of("New hobby: calligraphy, classes on Fridays"), statement_of("New hobby: watercolour")
    assert first is not None and second is not None and first.rel == second.rel == "has"
    assert statement_of("郭晓雯：新爱好：书法，下周开始每周五晚上上课。").rel == "has"


def test_a_preference_is_many_valued_and_one_value_said_twice_is_one_fact() -> None:
    from memoryd.tiers.knowledge.things import said_twice

    tea, slack = statement_of("Ada prefers green tea"), statement_of("Ada prefers async updates in Slack")
    assert tea is not None and slack is not None and tea.rel == slack.rel == "prefers"
    texts = ("atlas-api repository: github.com/acme/atlas-api", "Okay, the repo is github.com/acme/atlas-api.",
             "Kestrel Cleaning schedule: Monday evenings", "Kestrel asked to switch the cleaning to Monday evenings.",
             "Garage code: 4417", "Locker code: 4417")
    a, b, c, d, e, f = (statement_of(t) for t in texts)
    assert said_twice(a, b, texts[0], texts[1])          # one URL, whatever it is called
    assert said_twice(c, d, texts[2], texts[3])          # "Kestrel" names the subject of one in the other
    assert not said_twice(e, f, texts[4], texts[5])      # one code of two things is two facts
    assert not said_twice(a, c, texts[0], texts[2])


def test_a_first_name_is_its_full_name_when_the_pool_knows_one() -> None:
    from memoryd.tiers.knowledge.things import of_memories

    said = [{"id": "a", "text": "Priya Natarajan location: Pune"},
            {"id": "b", "text": "Priya is working from Bangalore from now on."},
            {"id": "c", "text": "Priya Natarajan's birthday is on 14 August."}]
    one = of_memories(said)
    assert one.thing("a") == one.thing("b") and one.thing("c") != one.thing("a")
    two = of_memories(said + [{"id": "d", "text": "Priya Sharma lives in Delhi"}])  # which Priya? neither
    assert len({two.thing("a"), two.thing("b"), two.thing("d")}) == 3
    lower = of_memories([{"id": "e", "text": "Orion hosting: Fly.io"},
                         {"id": "f", "text": "Orion frontend hosting: Vercel"}])  # a part, not a surname
    assert lower.thing("e") != lower.thing("f")


def test_codes_of_one_shape_are_values_of_one_thing() -> None:
    from memoryd.tiers.knowledge.things import of_memories

    t = of_memories([{"id": "a", "text": "Orion prod region: us-east-2"},
                     {"id": "b", "text": "We finished the Orion migration to ap-southeast-1 last night."},
                     {"id": "c", "text": "Orion repo: github.com/acme/orion"}])
    assert t.thing("a") == t.thing("b") and t.thing("c") != t.thing("a")
    days = of_memories([{"id": "d", "text": "Trip day 3 hotel: kyoto-inn-2"},
                        {"id": "e", "text": "Trip day 4 hotel: osaka-stay-5"}])  # two days, two hotels
    assert days.thing("d") != days.thing("e")


@pytest.mark.parametrize("text", ["李娜：迟到的生日快乐！", "李娜：周婷，我前天攀岩时手腕拉伤了，真是老了。", "周婷：你们能搬去哪儿啊，李娜？"])
def test_a_chinese_speakers_line_is_no_value_of_the_speaker(text: str) -> None:
    said = statement_of(text)
    assert said is None or "李娜" not in said.subject and "周婷" not in said.subject


def test_chinese_values_after_a_colon_stay_values() -> None:
    assert statement_of("付款方式：支付宝").value == "支付宝"
    assert statement_of("王芳：上海").value == "上海"
