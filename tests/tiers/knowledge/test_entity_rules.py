"""Entity rules (seed 000): each type found in English and Chinese text, and no person from a capital letter alone."""
from __future__ import annotations

import json

import pytest

from memoryd.tiers.knowledge.entity_llm import parse, prompt
from memoryd.tiers.knowledge.entity_rules import extract


def found(text: str, **meta: object) -> set[tuple[str, str]]:
    return {(e.type, e.name) for e in extract(text, meta or None)}


def test_every_type_in_english() -> None:
    got = found("We decided to use Postgres for the warelay project with Alice, see https://github.com/acme/warelay "
                "and https://www.Example.com/docs; v1.2.3 ships 2026-05-19 for $1,200 (Bob said €40 more)")
    assert {("repo", "acme/warelay"), ("url", "example.com"), ("version", "v1.2.3"), ("date", "2026-05-19"),
            ("amount", "$1,200"), ("amount", "€40"), ("project", "warelay"), ("person", "Alice"),
            ("person", "Bob")} <= got
    assert ("url", "github.com") not in got  # a repo URL names the repo, not GitHub
    assert ("person", "Postgres") not in got


@pytest.mark.parametrize("text, want", [
    ("老王说预算是300元,下周一和小李开会", {("person", "老王"), ("person", "小李"), ("amount", "300元")}),
    ("张伟说 yinmei 项目预算 5万元,2026年9月15日前完成", {("person", "张伟"), ("project", "yinmei"),
                                                      ("amount", "5万元"), ("date", "2026-09-15")}),
    ("周末和王芳一起吃饭", {("person", "王芳")}),
])
def test_chinese(text: str, want: set[tuple[str, str]]) -> None:
    assert want <= found(text)


@pytest.mark.parametrize("text", [
    "Monday was great. The team shipped it. Deploy went fine.",
    "Then Docker crashed. Python and Go work. Moved to Berlin with Docker.",
    "The project is late, this project too.",
    "周末说好了，马上就走。",
    "IP 10.1.2.3.4 and 2026-13-45 are not a version nor a date",
])
def test_precision_nothing_from_capitals_or_common_words(text: str) -> None:
    assert not {e for e in found(text) if e[0] in ("person", "project", "date", "version")}


def test_handles_camel_case_quotes_and_retain_tags() -> None:
    got = found("OpenClaw and \"Blue Harbor\" with @carol; Andy's birthday is March 3, 2026",
                entities=["Peter", "warelay", "The-Castle"])
    assert {("project", "OpenClaw"), ("project", "Blue Harbor"), ("person", "carol"), ("person", "Andy"),
            ("date", "2026-03-03"), ("person", "Peter"), ("project", "warelay"), ("project", "The-Castle")} <= got


def test_llm_answer_checked_against_the_text() -> None:
    texts = ["Lunch with Marguerite at Chez Panisse", "nothing here"]
    answer = "sure! " + json.dumps({"1": [{"name": "Marguerite", "type": "person"},
                                          {"name": "Chez Panisse", "type": "project"},
                                          {"name": "Invented", "type": "person"}, {"name": "x", "type": "alien"}],
                                    "2": [{"name": "2026-01-02", "type": "date"}, {"name": "soon", "type": "date"}]})
    out = parse(answer, texts)
    assert {(e.type, e.name) for e in out[0]} == {("person", "Marguerite"), ("project", "Chez Panisse")}
    assert [(e.type, e.name) for e in out[1]] == [("date", "2026-01-02")]
    assert parse("not json", texts) == [[], []]
    assert "1. Lunch with Marguerite" in prompt(texts)
