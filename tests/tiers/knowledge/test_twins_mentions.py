"""Twins and mentions on the real local index: the same sentence said later with another number where its value
stands supersedes the earlier one (and a list said at one moment does not); a memory naming a fact's value in
passing is listed under the fact (`mentioned_by`) instead of beside it."""
from __future__ import annotations

import pytest

from memoryd.tiers.knowledge.claims import statement_of
from memoryd.tiers.knowledge.maintain import derive
from memoryd.tiers.knowledge.mentions import mentions
from memoryd.tiers.knowledge.twins import twin_groups, twin_key, twins
from memoryd.tiers.memory.agent import AgentMemory
from memoryd.tiers.retrieval.filters import Filters

T0 = 1_780_000_000.0


def note(mid: str, text: str, day: int) -> dict:
    return {"id": mid, "text": text, "category": "notes", "importance": 0.6, "created_at": int(T0 - (30 - day) * 86400),
            "metadata": {"date": f"2026-05-{day:02d}"}}


@pytest.fixture
def mem(config, archive) -> AgentMemory:
    return AgentMemory(config, "main", archive=archive, clock=lambda: T0)


@pytest.mark.parametrize("a,b,expected", [
    ("orion-web uses Node 20", "orion-web uses Node 22", True),
    ("It's June 3 now for the offsite", "It's June 17 now for the offsite", True),
    ("车库密码改成了2208", "车库密码改成了9931", True),
    ("orion-web uses Node 20", "orion-web uses Node 20", False),        # the same numbers: a restatement
    ("Invoice 2231 is paid", "Invoice 2232 is paid", False),            # the number names the subject
    ("a-note-5-0: shipped the build", "a-note-6-0: shipped the build", False),  # inside an identifier
    ("Ran 5 km today", "Ran 8 km today", False),                        # no value place before it
])
def test_twins_need_a_number_where_the_value_stands(a: str, b: str, expected: bool) -> None:
    assert twins(a, b) is expected


def test_twins_said_at_one_moment_are_a_list() -> None:
    at = {"f1": "2026-05-02", "f2": "2026-05-02", "f3": "2026-05-02"}
    listed = [{"id": k, "text": f"@Peter: fact {n} about the launch plan"} for n, k in enumerate(at, 1)]
    assert twin_key(listed[0]["text"]) is not None
    assert twin_groups(listed, lambda m: at[m["id"]]) == {}
    later = listed + [{"id": "f4", "text": "@Peter: fact 9 about the launch plan"}]
    at["f4"] = "2026-05-09"
    assert twin_groups(later, lambda m: at[m["id"]]) == {}  # the listed ones stay out; one alone is no change
    two_days = [{"id": "g1", "text": "The gate code is 4411 since the landlord visit"},
                {"id": "g2", "text": "The gate code is 7302 since the landlord visit"}]
    days = {"g1": "2026-05-01", "g2": "2026-05-08"}
    assert list(twin_groups(two_days, lambda m: days[m["id"]]).values()) == [["g1", "g2"]]


def test_a_newer_twin_supersedes_on_the_index_and_in_maintain(mem, archive) -> None:
    archive.put("main", [
        note("t1", "Backup window starts at 02:30 for the NAS", 3),
        note("t2", "Backup window starts at 04:15 for the NAS", 18),
        note("t3", "The NAS sits in the hall closet", 4),
    ])
    found = mem.retrieve("when does the NAS backup window start now", limit=5)
    ids = [r["id"] for r in found]
    assert ids[0] == "t2" and "t1" not in ids
    past = {r["id"]: r.get("superseded_by") for r in
            mem.retrieve("NAS backup window", limit=10, filters=Filters(history=True))}
    assert past["t1"] == "t2" and past["t2"] is None
    wanted, rows = derive([note("t1", "Backup window starts at 02:30 for the NAS", 3),
                           note("t2", "Backup window starts at 04:15 for the NAS", 18)])
    assert wanted["t1"]["superseded_by"] == "t2" and [r["why"] for r in rows if r["id"] == "t1"]


def test_a_list_in_one_note_supersedes_nothing(mem, archive) -> None:
    archive.put("main", [note(f"l{n}", f"@Peter: fact {n} about the launch plan", 5) for n in range(1, 6)])
    found = mem.retrieve("Peter launch plan fact", limit=10)
    assert sorted(r["id"] for r in found) == [f"l{n}" for n in range(1, 6)]
    wanted, _ = derive([note(f"l{n}", f"@Peter: fact {n} about the launch plan", 5) for n in range(1, 6)])
    assert not any("superseded_by" in w for w in wanted.values())


def test_a_mention_in_passing_is_listed_under_the_statement(mem, archive) -> None:
    held = statement_of("Bob Martinez is allergic to peanuts")
    assert held is not None
    assert mentions(held, "Ordered lunch for Bob, no peanuts because of his allergy")
    assert not mentions(held, "Ordered lunch for Carol, no peanuts please")   # another person
    assert not mentions(held, "Bought peanutsauce for the team")              # not the value as a word
    port = statement_of("Our Grafana dashboard is on port 8089.")
    assert port is not None and not mentions(
        port, "Ugh, port 8089 collided with the printer's web page, so our Grafana dashboard lives on 6443 now.")
    archive.put("main", [
        note("m1", "Bob Martinez is allergic to peanuts", 2),
        note("m2", "Ordered lunch for Bob, no peanuts because of his allergy", 6),
    ])
    found = mem.retrieve("what is Bob allergic to", limit=5)
    assert found[0]["id"] == "m1" and found[0]["mentioned_by"] == ["m2"]
    assert "m2" not in [r["id"] for r in found]


def test_a_summary_supersedes_nothing_and_a_pointer_to_one_is_cleared() -> None:
    summary = note("s1", "[L1 summary of 13 memories, 2025-05-02 to 2025-05-02, kb-1] Just a reminder: Kestrel "
                         "Cleaning visits on Friday afternoons. The Atlas launch review is on June 3.", 25)
    summary["metadata"]["memory_kind"] = "summary"
    july = note("j1", "Atlas launch review date: July 1", 13)
    wanted, _ = derive([july, summary])
    assert "j1" not in wanted
    july["metadata"]["superseded_by"] = "s1"                   # what an earlier maintain wrote
    wanted, _ = derive([july, summary])
    assert wanted["j1"] == {"superseded_by": None}
    june = note("u1", "Atlas launch review date: June 3", 2)   # a real older value still gives way to July 1
    wanted, _ = derive([june, july, summary])
    assert wanted["u1"]["superseded_by"] == "j1" and wanted["j1"] == {"superseded_by": None, "supersedes": ["u1"]}


def test_a_fact_stored_after_a_seal_is_not_superseded_by_the_summary(config, archive) -> None:
    summary = note("s2", "[L1 summary of 13 memories, 2026-05-02 to 2026-05-02, kb-1] Nice work. "
                         "The Atlas launch review is on June 3.", 2)
    summary["created_at"] = int(T0)                              # sealed today: newer than anything said
    summary["metadata"] = {"memory_kind": "summary"}            # a summary has no date of its own
    archive.put("main", [summary])
    mem = AgentMemory(config, "main", archive=archive, clock=lambda: T0 + 60)
    stored = mem.store("Atlas launch review date: July 1", "projects", 0.55, {"date": "2026-05-13"})
    [entry] = [e for e in mem.read_state()["warm"]["entries"] if e["id"] == stored["id"]]
    assert "superseded_by" not in entry["metadata"]
    found = {r["id"]: r for r in mem.retrieve("when is the Atlas launch review now", limit=5)}
    assert stored["id"] in found and found[stored["id"]].get("superseded_by") is None


def test_a_statement_takes_the_place_of_a_higher_mention_and_an_echo_folds(mem, archive) -> None:
    mention = note("h1", "Hannah Okafor from Brightline emailed about the VAT return, Brightline handles it.", 9)
    mention["importance"] = 0.9
    archive.put("main", [mention, note("h2", "Brightline contact person: Hannah Okafor", 8)])
    found = mem.retrieve("Brightline Hannah Okafor VAT", limit=5)
    assert [r["id"] for r in found] == ["h2"] and found[0]["mentioned_by"] == ["h1"]
    said = note("v1", "Spent the evening tuning my VS Code config.", 12)
    echoed = note("v2", "Nice, VS Code it is.", 12)
    echoed["metadata"]["role"] = "assistant"
    archive.put("main", [said, echoed])
    found = mem.retrieve("VS Code", limit=5)
    assert found[0]["id"] == "v1" and found[0]["restated_by"] == ["v2"] and "v2" not in [r["id"] for r in found]


def test_a_profile_sentence_in_hot_folds_with_the_same_preference_said_in_chat(mem, archive) -> None:
    from memoryd.tiers.memory import hot as hot_tier

    mem.change(lambda st, now: hot_tier.set_profile(st["hot"], "alice chen alice",
                                                   "@alice-chen: Alice Chen prefers async updates in Slack."), "profile")
    archive.put("main", [note("p1", "Alice said again she likes async updates in Slack better than meetings.", 9)])
    found = mem.retrieve("How does Alice Chen like to get updates?", limit=5)
    holding = [r for r in found if "async updates" in r["text"]]
    assert len(holding) == 1 and holding[0]["restated_by"]


def test_a_versioned_use_is_replaced_by_a_newer_version_not_by_another_product(mem, archive) -> None:
    archive.put("main", [note("n1", "Noted, orion-web uses Node 20.", 3), note("n2", "@orion-web: orion-web runs on Node 22.", 9),
                         note("n3", "orion-web uses Postgres 16", 10)])
    found = {r["id"]: r for r in mem.retrieve("which Node version does orion-web use now", limit=5, filters=Filters(history=True))}
    assert found["n1"].get("superseded_by") == "n2"
    assert found["n2"].get("superseded_by") is None and found["n3"].get("superseded_by") is None
    wanted, _ = derive([note("n1", "Noted, orion-web uses Node 20.", 3), note("n2", "orion-web runs on Node 22.", 9),
                        note("n3", "orion-web uses Postgres 16", 10)])
    assert wanted["n1"]["superseded_by"] == "n2" and wanted["n2"] == {"supersedes": ["n1"]} and "n3" not in wanted


def test_a_stale_memory_the_words_find_gives_its_place_to_the_current_value(mem, archive) -> None:
    from memoryd.tiers.knowledge.maintain import maintain

    archive.put("main", [note("e1", "Editor of choice: Neovim", 3), note("e2", "My editor is Helix", 9),
                         note("e3", "Spent the evening tuning the Helix keymap", 9)])
    archive.put("main", [note("e4", "Editor of choice: Zed", 20)])  # the current value, in words the query lacks
    maintain(mem)
    assert {e["id"]: e["metadata"].get("superseded_by") for e in archive.iter_entries("main")}["e1"] == "e4"
    found = mem.retrieve("Neovim", limit=3)
    assert [r["id"] for r in found][:1] == ["e4"] and "the current value of e1" in found[0]["reason"]
    assert "e1" not in [r["id"] for r in found]
    past = {r["id"]: r for r in mem.retrieve("Neovim", limit=5, filters=Filters(history=True))}
    assert past["e1"]["superseded_by"] == "e4"                    # --history: what the words found, as it was
