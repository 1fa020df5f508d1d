"""A real MCP session (the official SDK's stdio client against `memoryd mcp`): a store answers with the closest
memories, a store with `supersedes` replaces one of them, an unknown id stores nothing, and a review question is
listed, answered and undone with memory_review."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from mcp.client.session import ClientSession

from clihelp import snapshot
from memoryd.daemon.engine import Engine
from memoryd.tiers.base.config import load_config
from memoryd.tiers.knowledge.maintain import maintain
from test_mcp import call, env, error, session  # noqa: F401 - env is test_mcp's fixture (a home, memoryd init)


@pytest.fixture(autouse=True)
def _keyword(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMORYD_RETRIEVAL_MODE", "keyword")  # before env copies the environment


def test_store_answers_with_the_closest_and_supersedes_what_the_agent_names(env: dict[str, str], home: Path) -> None:
    async def body(client: ClientSession) -> dict[str, Any]:
        first = await call(client, "memory_store", text="The allotment key hangs in the blue tin by the gate",
                           category="garden")
        await call(client, "memory_store", text="Tomatoes on the allotment need water every evening", category="garden")
        second = await call(client, "memory_store", text="The allotment key is now with Mrs Peel at number 9",
                            category="garden")
        closest = {c["id"]: c for c in second["closest"]}
        assert first["entry"]["id"] in closest and second["entry"]["id"] not in closest
        assert set(closest[first["entry"]["id"]]) >= {"id", "text", "date", "kind"}
        # the agent read the closest memories and says what the new one replaces: the same text again, merged
        third = await call(client, "memory_store", text="The allotment key is now with Mrs Peel at number 9",
                           category="garden", supersedes=[first["entry"]["id"]])
        assert third["entry"]["id"] == second["entry"]["id"]
        bad = await error(client, "memory_store", text="Something new", category="garden", supersedes=["nope00"])
        wrong = await error(client, "memory_store", text="Something new", supersedes="abc")
        found = await call(client, "memory_search", query="allotment key blue tin", history=True)
        return {"first": first, "third": third, "bad": bad, "wrong": wrong, "found": found}

    seen = session(env, body)
    first_id = seen["first"]["entry"]["id"]
    assert seen["third"]["entry"]["superseded"] == [first_id] and "it replaces" in seen["third"]["summary"]
    assert "no memory with id 'nope00'" in seen["bad"] and "'supersedes'" in seen["wrong"]
    old = next(r for r in seen["found"]["results"] if r["id"] == first_id)
    assert old["superseded_by"] == seen["third"]["entry"]["id"]
    texts = {r["text"] for r in seen["found"]["results"]}
    assert "Something new" not in texts


def test_an_unknown_superseded_id_changes_nothing(env: dict[str, str], home: Path) -> None:
    async def first(client: ClientSession) -> None:
        await call(client, "memory_store", text="The loft ladder is in the garage", category="house")
    session(env, first)
    before = snapshot(home / "agents")

    async def body(client: ClientSession) -> str:
        return await error(client, "memory_store", text="The loft ladder moved", supersedes=["0000dead"])
    assert "0000dead" in session(env, body)
    assert snapshot(home / "agents") == before


def test_a_review_question_answered_and_undone_over_mcp(env: dict[str, str], home: Path) -> None:
    config = load_config(env)
    for text, at in (("The choir rehearses in St Bede's hall on Tuesdays", 1_790_000_000.0),
                     ("The choir now rehearses in the school gym on Tuesdays", 1_790_100_000.0)):
        with Engine(config).memory("default", clock=lambda at=at: at) as mem:
            mem.store(text, "choir", 0.5)
    with Engine(config).memory("default") as mem:
        maintain(mem)

    async def body(client: ClientSession) -> dict[str, Any]:
        listed = await call(client, "memory_review")
        (q,) = listed["questions"]
        answered = await call(client, "memory_review", action="current", id=q["id"])
        after = await call(client, "memory_review", action="list")
        missing = await error(client, "memory_review", action="both")
        found = await call(client, "memory_search", query="choir rehearses", history=True)
        undone = await call(client, "memory_review", action="undo", id=q["id"])
        again = await call(client, "memory_review")
        return {"q": q, "answered": answered, "after": after, "missing": missing, "found": found, "undone": undone,
                "again": again}

    seen = session(env, body)
    old, new = (m["id"] for m in seen["q"]["members"])
    assert seen["answered"]["action"] == "current" and seen["after"]["questions"] == []
    assert "'id'" in seen["missing"]
    ranked = seen["found"]["results"]
    assert [r["id"] for r in ranked] == [new, old] and ranked[1]["superseded_by"] == new
    assert seen["undone"]["undone"] == "current" and [q["id"] for q in seen["again"]["questions"]] == [seen["q"]["id"]]
