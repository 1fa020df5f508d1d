"""The Review page: open questions with one button per answer only when edits are allowed (CSRF and token as for
every edit), an answer and its undo through the handler, and the whole round in headless chromium."""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Iterator
from urllib.parse import parse_qs, urlsplit

import pytest

from memoryd.daemon.engine import Engine
from memoryd.daemon.web.server import WebServer
from memoryd.tiers.base.config import Config, load_config
from memoryd.tiers.knowledge.maintain import maintain
from webhelp import text_of

try:  # the browser fixture lives in test_web_browser until tests/web/conftest.py provides it
    from test_web_browser import browser  # noqa: F401
except ImportError:
    pass

OLD, NEW = "The kiln in studio B fires on Thursdays", "The kiln in studio B now fires on Mondays"


def ask(config: Config) -> tuple[str, str]:
    """Two memories a rule cannot decide between, and the maintain pass that queues the question."""
    ids = []
    for text, at in ((OLD, 1_790_000_000.0), (NEW, 1_790_200_000.0)):
        with Engine(config).memory("default", clock=lambda at=at: at) as mem:
            ids.append(mem.store(text, "studio", 0.5)["id"])
    with Engine(config).memory("default") as mem:
        maintain(mem)
    return ids[0], ids[1]


def _post(session: Any, **fields: str) -> dict[str, list[str]]:
    status, headers, _ = session.post("/review/answer", {"csrf": session.csrf("/review"), "agent": "default",
                                                          "back": "/review", **fields})
    assert status == 303, status
    return parse_qs(urlsplit(headers["location"]).query)


def test_read_only_shows_the_question_without_buttons_and_refuses_answers(web, kw_config: Config) -> None:
    server, s = web
    ask(kw_config)
    s.login()
    status, _, body = s.get("/review")
    assert status == 200 and NEW in text_of(body) and "Newer replaces older" not in body
    assert "allow_edits = true" in text_of(body)
    status, _, body = s.post("/review/answer", {"csrf": server.guard.csrf, "agent": "default", "id": "x",
                                                "action": "both"})
    assert status == 403 and "read-only" in body


def test_an_answer_and_its_undo_through_the_page(web_edit, kw_config: Config) -> None:
    _, s = web_edit
    old, new = ask(kw_config)
    s.login()
    _, _, body = s.get("/review")
    qid = body.split('id="q-', 1)[1].split('"', 1)[0]
    for label in ("Newer replaces older", "Both stay true", "Same thing, merge", "Dismiss"):
        assert label in body
    assert _post(s, id=qid, action="merge")["msg"] == [f"Answered {qid}: merge."]
    _, _, body = s.get("/review")
    assert NEW not in text_of(body) and "Answered on this device" in body
    assert "no open review question" in _post(s, id=qid, action="both")["error"][0]
    assert "unknown answer" in _post(s, id=qid, action="maybe")["error"][0]
    status, _, _ = s.post("/review/answer", {"csrf": "0" * 32, "agent": "default", "id": qid, "action": "both"})
    assert status == 403
    assert _post(s, id=qid, action="undo")["msg"][0].startswith(f"Undid the answer 'merge' to {qid}")
    _, _, body = s.get("/review")
    assert NEW in text_of(body)


@pytest.fixture
def review_view(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[WebServer]:
    for var in ("MEMORYD_DB_URL", "MEMORYD_DB_TOKEN", "MEMORYD_KEY", "MEMORYD_SOCKET", "MEMORYD_LLM_ENDPOINT"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("MEMORYD_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("MEMORYD_WORKSPACE", str(tmp_path / "workspace"))
    monkeypatch.setenv("OPENCLAW_STATE_DIR", str(tmp_path / "openclaw"))
    monkeypatch.setenv("MEMORYD_RETRIEVAL_MODE", "keyword")
    (tmp_path / "openclaw").mkdir()
    config = load_config(dict(os.environ))
    ask(config)
    server = WebServer(config, 0, allow_edits=True).start()
    yield server
    server.stop()


def test_the_review_page_in_chromium(browser, review_view: WebServer) -> None:  # noqa: F811
    page = browser.new_context(viewport={"width": 1100, "height": 800}).new_page()
    page.goto(review_view.url)
    page.get_by_role("link", name="Review").click()
    assert page.locator("h1").inner_text() == "Review"
    question = page.locator("section.question")
    assert question.count() == 1 and NEW in question.inner_text() and OLD in question.inner_text()
    question.get_by_role("button", name="Newer replaces older").click()
    page.wait_for_selector("p.message")
    assert page.locator("p.message").inner_text().endswith(": current.")
    assert page.locator("section.question").count() == 0
    page.get_by_role("button", name="Undo").click()
    page.wait_for_selector("p.message")
    assert "open again" in page.locator("p.message").inner_text()
    assert page.locator("section.question").count() == 1
