"""Edits through the web view ([web] allow_edits = true): the CLI's operations, recorded in the eviction log."""
from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

from memoryd.tiers.memory.agent import AgentMemory
from webhelp import dispatch, text_of


def _post(web_edit, action: str, back: str = "/hot", **fields: str) -> dict[str, list[str]]:
    _, s = web_edit
    if s.cookie is None:
        s.login()
    status, headers, _ = s.post(action, {"csrf": s.csrf(), "agent": "default", "back": back, **fields})
    assert status == 303
    location = urlsplit(headers["location"])
    assert location.path == urlsplit(back).path
    return parse_qs(location.query)


def _log(config) -> list[dict]:
    return AgentMemory(config, "default").evictions.rows()


def test_forget_removes_a_memory_everywhere_and_logs_it(web_edit, kw_config, seeded) -> None:
    victim = seeded["warm_ids"][0]
    outcome = _post(web_edit, "/forget", back="/warm", id=victim)
    assert outcome["msg"] == [f"Forgot {victim} (warm 1)."]
    state = AgentMemory(kw_config, "default").read_state()
    assert victim not in {e["id"] for e in state["warm"]["entries"]}
    assert any(r["id"] == victim and r["kind"] == "forget" for r in _log(kw_config))
    _post(web_edit, "/forget", back="/search?q=budget", id="cold00003")
    assert dispatch(kw_config, "status", {"agent_id": "default"})["agents"][0]["cold"]["count"] == 119


def test_forget_of_an_unknown_id_comes_back_as_an_error(web_edit) -> None:
    outcome = _post(web_edit, "/forget", id="no-such-id")
    assert "no memory with id" in outcome["error"][0]


def test_a_hot_lesson_is_added_through_the_hot_operation_and_logged(web_edit, kw_config) -> None:
    outcome = _post(web_edit, "/hot/add", kind="lesson", text="Never deploy on Fridays", category="ops",
                    importance="0.9")
    assert outcome["msg"][0].startswith("Saved the lesson")
    hot = dispatch(kw_config, "hot_show", {"agent_id": "default"})
    lesson = next(x for x in hot["hot"]["critical_lessons"] if x["text"] == "Never deploy on Fridays")
    assert lesson["importance"] == 0.9 and lesson["category"] == "ops"
    assert "Never deploy on Fridays" in hot["markdown"]
    row = _log(kw_config)[-1]
    assert row["tier"] == "hot" and row["kind"] == "edit" and row["id"] == lesson["id"] and row["reason"] == "web"
    _, s = web_edit
    assert "Never deploy on Fridays" in text_of(s.get("/hot")[2])


def test_bad_hot_input_is_reported_not_stored(web_edit, kw_config) -> None:
    assert "importance" in _post(web_edit, "/hot/add", kind="lesson", text="x y", importance="2")["error"][0]
    assert "unknown hot item kind" in _post(web_edit, "/hot/add", kind="nope", text="x")["error"][0]
    assert all(r["kind"] != "edit" for r in _log(kw_config))


def test_identity_task_and_project_forms_work(web_edit, kw_config) -> None:
    _post(web_edit, "/hot/add", kind="identity", key="role", value="assistant")
    _post(web_edit, "/hot/add", kind="task", text="Renew the certificate", status="pending")
    _post(web_edit, "/hot/add", kind="project", name="Kites", description="Build a kite", status="active")
    hot = dispatch(kw_config, "hot_show", {"agent_id": "default"})["hot"]
    assert hot["identity"]["role"] == "assistant"
    assert hot["active_context"]["tasks"][0]["text"] == "Renew the certificate"
    assert hot["active_context"]["projects"][0]["name"] == "Kites"


def test_tree_add_and_remove_are_logged(web_edit, kw_config) -> None:
    assert _post(web_edit, "/tree/add", back="/tree", path="hobbies/kites", description="kite flying")["msg"] == [
        "Added hobbies, hobbies/kites."]
    nodes = AgentMemory(kw_config, "default").read_state()["tree"]["nodes"]
    assert nodes["hobbies/kites"][0] == "kite flying"
    _, s = web_edit
    page = s.get("/tree")[2]
    assert 'name="path" value="hobbies/kites"' in page  # a remove button for the empty leaf
    assert 'name="path" value="people/alice"' not in page  # none for a node that holds memories
    assert _post(web_edit, "/tree/remove", back="/tree", path="hobbies/kites")["msg"] == ["Removed hobbies/kites."]
    assert "hobbies/kites" not in AgentMemory(kw_config, "default").read_state()["tree"]["nodes"]
    assert "still holds memories" in _post(web_edit, "/tree/remove", back="/tree", path="people/alice")["error"][0]
    rows = [r for r in _log(kw_config) if r["tier"] == "tree"]
    assert [r["why"].split(":")[0] for r in rows] == ["node added", "node removed"]


def test_edit_forms_are_shown_only_when_edits_are_allowed(web_edit) -> None:
    _, s = web_edit
    s.login()
    hot = s.get("/hot")[2]
    for kind in ("lesson", "event", "task", "project", "identity", "profile"):
        assert f'value="{kind}"' in hot
    assert "Forget" in s.get("/warm")[2] and "Forget" in s.get("/search?q=tea")[2]


def test_back_never_leaves_the_view(web_edit) -> None:
    _, s = web_edit
    s.login()
    for back in ("//evil.example/x", "http://evil.example/", "\\\\evil"):
        status, headers, _ = s.post("/forget", {"csrf": s.csrf(), "agent": "default", "back": back, "id": "x"})
        assert status == 303 and headers["location"].startswith("/?")


def test_an_edit_never_creates_an_agent(web_edit, kw_config) -> None:
    _, s = web_edit
    s.login()
    status, headers, _ = s.post("/hot/add", {"csrf": s.csrf(), "agent": "newcomer", "back": "/hot", "kind": "event",
                                             "text": "hello"})
    assert status == 303 and "no+agent" in headers["location"]
    assert not kw_config.agent_dir("newcomer").exists()


def test_pin_puts_a_warm_or_cold_memory_into_hot_and_logs_it(web_edit, kw_config, seeded) -> None:
    warm_id = seeded["warm_ids"][1]
    entry = next(e for e in AgentMemory(kw_config, "default").read_state()["warm"]["entries"] if e["id"] == warm_id)
    outcome = _post(web_edit, "/pin", back="/warm", id=warm_id)
    assert outcome["msg"][0].startswith(f"Pinned {warm_id}")
    hot = dispatch(kw_config, "hot_show", {"agent_id": "default"})
    lesson = next(x for x in hot["hot"]["critical_lessons"] if x["text"] == entry["text"])
    assert lesson["category"] == entry["category"] and lesson["importance"] >= 0.8
    assert entry["text"] in hot["markdown"]
    row = _log(kw_config)[-1]
    assert row["tier"] == "hot" and row["kind"] == "edit" and row["id"] == warm_id and row["reason"] == "web"
    _post(web_edit, "/pin", back="/search?q=budget", id="cold00003")
    lessons = dispatch(kw_config, "hot_show", {"agent_id": "default"})["hot"]["critical_lessons"]
    assert len(lessons) == len(hot["hot"]["critical_lessons"]) + 1
    assert "no memory with id" in _post(web_edit, "/pin", id="no-such-id")["error"][0]
    _, s = web_edit
    assert "Pin to hot" in text_of(s.get("/warm")[2])
