"""Chinese firms (tiers/knowledge/entity_things_zh.py): called without their city where an institution keeps it,
and no firm where the words say a department or a trade; every name invented here."""
from __future__ import annotations

import pytest

from memoryd.tiers.knowledge.entity_rules import extract


def found(text: str) -> set[tuple[str, str]]:
    return {(e.type, e.name) for e in extract(text)}


@pytest.mark.parametrize("text, org", [("她今天第一天在财务部上班", None), ("他调去冲压车间上班了，在冲压车间上班累", None),
                                       ("他在澄睿科技上班", ("org", "澄睿科技"))])
def test_a_department_where_one_works_is_no_organisation(text: str, org: tuple[str, str] | None) -> None:
    orgs = {e for e in found(text) if e[0] == "org"}
    assert orgs == ({org} if org else set())


@pytest.mark.parametrize("text, org", [
    ("M6是湖州澄岭五金的，三年没涨过", ("org", "澄岭五金")),      # a firm is called without its city
    ("台州岑丰紧固件的螺栓又涨了", ("org", "岑丰紧固件")),         # a kind word of industry
    ("湖州银行的贷款批了", ("org", "湖州银行")),                 # a bank keeps its city
    ("湖州一院的床位紧", ("org", "湖州一院")),
])
def test_a_chinese_firm_is_named_without_its_city_and_an_institution_with_it(text: str, org: tuple[str, str]) -> None:
    assert {e for e in found(text) if e[0] == "org"} == {org}


@pytest.mark.parametrize("text", ["找了家做贸易的，人还挺实在", "他家搞物流的，车多"])
def test_a_firm_said_by_its_trade_is_no_name(text: str) -> None:
    assert not {e for e in found(text) if e[0] == "org"}


@pytest.mark.parametrize("text, org", [
    ("他讲就报厦门大学了", "厦门大学"),        # inside a clause: the verb before the city opens it
    ("想看看宁波大学的分数线", "宁波大学"),
    ("孩子考上了绍兴一中", "绍兴一中"),
    ("去芜湖银行办的贷款", "芜湖银行"),
])
def test_a_city_s_own_school_or_bank_is_read_wherever_it_stands(text: str, org: str) -> None:
    orgs = {e.name for e in extract(text) if e.type == "org"}
    assert org in orgs and not any(org in o and o != org for o in orgs)


@pytest.mark.parametrize("text", ["湘潭大学生志愿者来了", "台州银行卡丢了", "住在镇江大学城附近"])
def test_a_student_a_card_or_a_college_town_is_no_organisation(text: str) -> None:
    assert not {e.name for e in extract(text) if e.type == "org"}
