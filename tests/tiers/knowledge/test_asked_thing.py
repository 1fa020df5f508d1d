"""The asked-thing prior on the real local index: a memory stating the attribute a question asks for, of the thing
it names, leads; one stating another attribute of that thing gives way; another thing's memory is left alone."""
from __future__ import annotations

import pytest

from memoryd.tiers.knowledge.asked_thing import answers
from memoryd.tiers.memory.agent import AgentMemory

T0 = 1_780_000_000.0


def cold(mid: str, text: str, day: int, importance: float = 0.5) -> dict:
    return {"id": mid, "text": text, "category": "notes", "importance": importance,
            "created_at": int(T0 - (30 - day) * 86400), "metadata": {"date": f"2026-05-{day:02d}"}}


@pytest.fixture
def mem(config, archive) -> AgentMemory:
    return AgentMemory(config, "main", archive=archive, clock=lambda: T0)


@pytest.mark.parametrize("query,text,verdict", [
    ("Which CI does atlas-api use now?", "Moved the atlas-api pipeline over to CircleCI yesterday.", 1),
    ("Which CI does atlas-api use now?", "The atlas-api repo is github.com/acme/atlas-api.", -1),
    ("Where is Priya Natarajan based now?", "Priya Natarajan relocated to Pune.", 1),
    ("Where is Priya Natarajan based now?", "Priya Natarajan's birthday is 14 August.", -1),
    ("Which Postgres version does Atlas run now?", "Atlas database is Postgres 16.", 1),  # the value's name asked
    ("Which CI does atlas-api use now?", "Okay, the repo is github.com/acme/atlas-api.", 0),  # a URL naming it
    ("What is Alice Chen's role now?", "Alice Chen prefers async updates in Slack.", -1),  # another relation
    ("What is Bob's phone number?", "Alice's phone: 555-0101", 0),          # another person
    ("What is Bob's phone number?", "Bob moved to the data team", 0),        # no attribute: no verdict
    ("Tell me about atlas-api", "The atlas-api repo is github.com/acme/atlas-api.", 0),  # nothing asked
])
def test_what_a_question_asks_and_what_a_memory_states(query: str, text: str, verdict: int) -> None:
    assert answers(query, text) == verdict


def test_the_memory_stating_what_is_asked_leads(mem, archive) -> None:
    archive.put("main", [
        cold("r1", "@atlas-api: The atlas-api repo is github.com/acme/atlas-api.", 8, 0.8),
        cold("c1", "Moved the atlas-api pipeline over to CircleCI yesterday, so far so good.", 9),
        cold("p1", "Don't forget: Priya Natarajan's birthday is 14 August.", 15, 0.9),
        cold("p2", "Priya Natarajan relocated to Pune.", 14),
        cold("n1", "Noted, orion-web uses Node 22.", 9),
        cold("e1", "As I said before: My editor is Zed.", 14),
    ])
    assert mem.retrieve("Which CI does atlas-api use now?", limit=3)[0]["id"] == "c1"
    assert mem.retrieve("Where is Priya Natarajan based now?", limit=3)[0]["id"] == "p2"
    found = mem.retrieve("Which editor do I use now?", limit=3)
    assert found[0]["id"] == "e1" and "states what is asked" in found[0]["reason"]
    plain = mem.retrieve("atlas-api", limit=3)  # nothing asked: words alone
    assert plain[0]["id"] == "r1" and "asked" not in plain[0]["reason"]


def test_an_opinion_gives_way_to_the_value_asked_for(mem, archive) -> None:
    opinion = cold("o1", "@brightline: Brightline Accounting is reliable but slow to answer.", 19, 0.6)
    opinion["metadata"].update(memory_kind="opinion", confidence=0.8)
    archive.put("main", [opinion, cold("f1", "Brightline fee: €220 a month", 20, 0.8)])
    found = mem.retrieve("How much does Brightline Accounting charge now?", limit=2)
    assert [r["id"] for r in found] == ["f1", "o1"] and "not what is asked" in found[1]["reason"]
    assert mem.retrieve("Is Brightline Accounting reliable?", limit=2)[0]["id"] == "o1"  # nothing asked: words


def test_preferences_are_many_valued(mem, archive) -> None:
    archive.put("main", [cold("t1", "Ada prefers green tea", 2), cold("t2", "Ada prefers async updates in Slack", 9)])
    found = {r["id"]: r for r in mem.retrieve("what does Ada prefer", limit=5)}
    assert set(found) == {"t1", "t2"} and not any(r.get("superseded_by") for r in found.values())
