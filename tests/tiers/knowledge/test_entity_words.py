"""Words that look like names and are not (a weekday, a holiday, a field of study, a phrase with hyphens, a kind of
shop), and names whose first word looks like none (a Retain head with a possessive or a number, `Ah`); every
sentence invented here."""
from __future__ import annotations

import pytest

from memoryd.tiers.knowledge.entity_rules import extract, read


def found(text: str) -> set[tuple[str, str]]:
    return {(e.type, e.name) for e in extract(text)}


def names(text: str) -> set[str]:
    return {e.name for e in extract(text)}


def test_a_chinese_pharmaceutical_firm_is_an_organisation_and_its_fees_are_not() -> None:
    assert ("org", "泰丰医药") in found("这批头孢是从泰丰医药进的")   # 医药: a wholesaler's name ends so, as 药业
    assert not found("这个月去社保报销医药费了")


@pytest.mark.parametrize("text, wrong", [
    ("From March the locum switches to Tue/Thu at Marlow.", "Tue"),          # a weekday abbreviated
    ("Labor Day is on the first Monday, so the shop shuts.", "Labor Day"),     # a holiday
    ("we still owe the AC guy for the compressor", "AC"),                      # air conditioning, no body
    ("Geology's a decent route into mining work.", "Geology"),                 # a subject
    ("She sent it to Quux Proteomics and Metabolomics instead.", "Metabolomics"),
    ("Teodora studies Oncology at Brennick now.", "Oncology"),
])
def test_a_common_capitalised_word_is_no_name(text: str, wrong: str) -> None:
    assert wrong not in names(text)
    assert not any(wrong in n.split() for n in names(text))


def test_a_person_named_beside_a_subject_is_still_found() -> None:
    assert ("person", "Okonkwo") in found("Physics with Dr Okonkwo moved to Thursday.")
    assert ("person", "Felicity") in found("Ask Felicity and Marion about the rota.")  # -ity, -ion: names


@pytest.mark.parametrize("text", [
    "She flew it by-the-book, no drama at all.",
    "his crosswind go-around was rough",
    "the day-to-day stuff is fine with me",
    "we need a state-of-the-art kettle",
])
def test_a_hyphenated_phrase_of_english_is_no_project(text: str) -> None:
    assert not any(t == "project" for t, _ in found(text))


def test_a_hyphenated_repo_name_is_still_a_project() -> None:
    assert ("project", "quill-sync") in found("quill-sync is done, merged this morning.")


@pytest.mark.parametrize("text, whole", [
    ("@Verco's Garage: Verco's wants the MOT slots moved to mornings.", "Verco's Garage"),
    ("@Local 998 Union: Dues go up to 40 a month from spring.", "Local 998 Union"),
    ("@Ah Meng Plumbing: Ah Meng quoted 4,000 for the bathroom.", "Ah Meng Plumbing"),
])
def test_a_retain_head_is_read_whole(text: str, whole: str) -> None:
    tag = text[1:].split("'")[0].split()[0]  # as the note parser gives it: the handle's word characters
    got = {e.name: e.type for e in read(text, {"entities": [tag]}).entities}
    assert whole in got
    assert tag not in got  # `Verco` is the garage's name, no person of its own
    if whole.endswith(("Garage", "Plumbing")):
        assert got[whole] == "org"  # a company's word ends it: the organisation, no project


@pytest.mark.parametrize("text, org", [
    ("We went with Ah Meng Plumbing for the bathroom.", "Ah Meng Plumbing"),
    ("Ah Hock Motors quoted for the clutch.", "Ah Hock Motors"),
])
def test_ah_opens_a_company_name(text: str, org: str) -> None:
    assert ("org", org) in found(text)


def test_ah_as_an_interjection_stays_out() -> None:
    assert ("org", "Meng Plumbing") in found("Ah, Meng Plumbing quoted 4,000.")
    assert ("person", "Hock") in found("Ah, Hock called again about the gate")


@pytest.mark.parametrize("text, person", [
    ("Ah Hock says the carpenter is late again", "Ah Hock"),
    ("Ah Kow's eye check got moved to Friday", "Ah Kow"),
])
def test_ah_before_a_name_is_how_the_person_is_called(text: str, person: str) -> None:
    assert ("person", person) in found(text)
    assert ("person", person.split()[1]) not in found(text)


@pytest.mark.parametrize("text", [
    "他接的活是游戏公司的美术外包",              # a game company: which kind, no name
    "他媳妇在县城饭店上班，做帮厨",              # a restaurant in the county town
])
def test_a_chinese_kind_of_place_is_no_organisation(text: str) -> None:
    assert not any(t == "org" for t, _ in found(text))


def test_a_county_is_not_read_across_the_words_of_a_clause() -> None:
    assert not any(n.startswith("她在") for n in names("她在县城饭店上班，做帮厨"))
    assert ("org", "城关镇中心小学") in found("他在城关镇中心小学教书")


def test_a_role_one_is_called_by_is_part_of_the_name() -> None:
    got = found("Teacher Kwek says Teacher Seah can take the Friday class.")
    assert {("person", "Teacher Kwek"), ("person", "Teacher Seah")} <= got
    assert ("person", "Coach Dale") in found("Coach Dale moved practice to Thursdays.")
    assert not names("The teacher said no.")


@pytest.mark.parametrize("text", [
    "店在江岸区凤凰山路88号，店长是兰姐",        # a district before a road: an address
    "我从凤凰山路过去得换乘两次",                # a mountain's name that is a road's first words
    "她姐在超市上班，礼拜天休息",                # a kind of shop alone
])
def test_a_chinese_address_or_kind_word_names_no_place_or_organisation(text: str) -> None:
    assert not found(text)


def test_a_district_before_the_corner_of_a_road_is_still_a_place() -> None:
    assert ("place", "西湖区") in found("他在西湖区路口等我")


def test_a_verb_of_staying_parts_two_places() -> None:
    assert not any("住" in n for n in names("还要去凤岭 住青湖人家"))  # voice-typed: go to one, stay at another
    assert ("org", "住建局") in found("他在住建局上班")                  # a name that opens with it: still whole


@pytest.mark.parametrize("text, org", [
    ("湖边那家晨曦民宿老板人不错", "晨曦民宿"),       # 那家: the shop counted, not its name's first character
    ("这次住松间民宿，离码头近", "松间民宿"),
    ("老街上的悦来客栈挺干净", "悦来客栈"),
])
def test_a_chinese_inn_or_guesthouse_is_an_organisation(text: str, org: str) -> None:
    assert ("org", org) in found(text)
    assert not any(n.startswith("家") for n in names(text))


@pytest.mark.parametrize("text, wrong", [
    ("Tobin's Travo's got a cracked windscreen again", "Travo"),      # what a person owns, no person
    ("Launching Day's the first Friday of June", "Day"),            # a day's own name
    ("Glad it sold. The Zephyra's been a good boat to you.", "Zephyra"),  # an article before it: a thing's name
])
def test_a_thing_owned_or_a_day_named_is_no_person(text: str, wrong: str) -> None:
    assert wrong not in names(text)


def test_a_person_possessed_or_a_possessive_person_still_found() -> None:
    assert ("person", "Oswin") in found("Oswin's the new foreman at the quarry.")
    assert ("person", "Dad") in found("Dad's Odelle's coming Sunday")  # the first of two is still someone


@pytest.mark.parametrize("line, tag, org", [
    ("@Corrin Bay Weaver's Co-op: meets on the first Tuesday now.", "Corrin", "Corrin Bay Weaver's Co-op"),
    ("@Millbrook Growers Co-op: dues went up to 300.", "Millbrook", "Millbrook Growers Co-op"),
])
def test_a_retain_head_with_a_possessive_word_is_the_whole_cooperative(line: str, tag: str, org: str) -> None:
    assert {(e.type, e.name) for e in extract(line, {"entities": [tag]})} == {("org", org)}


@pytest.mark.parametrize("text, org", [
    ("以后澄禾物流那边就是老许对接了", "澄禾物流"),  # a time word opens the clause, not the name
    ("目前澄禾物流还没回话", "澄禾物流"),
])
def test_a_time_word_before_a_chinese_organisation_is_cut(text: str, org: str) -> None:
    assert ("org", org) in found(text)
    assert not any(n != org and n.endswith(org) for n in names(text))


@pytest.mark.parametrize("text", [
    "开个体户或者律所都行",            # 或者 parts two kinds
    "你开的是个体户或者小作坊吗",
    "下午得跑银行",                    # going to the bank: a verb's place
    "那你说，选什么软件好？",              # which software: a question
    "店不开了，注销公司",              # closing a company: a verb and a kind
    "等他毕业了去杭州找学校",          # looking for a school: a verb and a kind
])
def test_a_chinese_verb_or_question_before_a_kind_word_names_no_organisation(text: str) -> None:
    assert not {n for t, n in found(text) if t == "org"}


@pytest.mark.parametrize("text", [
    "听着挺新鲜的，是什么项目？",      # which project: a question
    "老同学调去北岸当项目主管了",      # a post taken (当), no project's name
])
def test_a_question_or_a_post_before_project_names_no_project(text: str) -> None:
    assert not {n for t, n in found(text) if t == "project"}


def test_a_surname_before_an_adverb_names_no_one() -> None:
    assert names("小邝已离职，新来的还没到") == {"小邝"}
