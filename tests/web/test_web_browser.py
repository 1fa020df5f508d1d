"""The web view in a real browser: chromium (tests/browser.py finds or installs it), headless, driven by
Playwright, over a home with real data."""
from __future__ import annotations

import base64
import os
from pathlib import Path
from typing import Any, Iterator

import pytest

from memoryd.daemon.web.server import WebServer
from memoryd.tiers.base.config import load_config
from browser import NoBrowser, chromium
from webhelp import seed

ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--no-first-run", "--disable-sync",
        "--host-resolver-rules=MAP evil.test 127.0.0.1"]  # a foreign site name that resolves to this machine
PAGES = [("/", "Overview"), ("/hot", "Hot memory"), ("/warm", "Warm memory"), ("/search", "Search"),
         ("/tree", "Tree"), ("/evictions", "Evictions")]
# Counts the distinct colours of a PNG in a canvas (the browser decodes it: no imaging library needed).
DISTINCT = """async (data) => {
  const img = new Image(); img.src = "data:image/png;base64," + data; await img.decode();
  const c = document.createElement("canvas"); c.width = img.width; c.height = img.height;
  const g = c.getContext("2d"); g.drawImage(img, 0, 0);
  const px = g.getImageData(0, 0, c.width, c.height).data; const seen = new Set();
  for (let i = 0; i < px.length; i += 4) seen.add((px[i] << 16) | (px[i + 1] << 8) | px[i + 2]);
  return seen.size;
}"""


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    from playwright import sync_api  # the test extra installs it

    try:
        executable, missing = chromium(), ""
    except NoBrowser as exc:
        executable, missing = "", str(exc)
    if missing:  # a failure, not a skip: the web view is tested in a real browser or not at all
        pytest.fail(missing, pytrace=False)
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=executable, args=ARGS)
        yield b
        b.close()


@pytest.fixture(scope="module")
def view(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebServer]:
    """One seeded home for the module (hybrid retrieval when the embed extra is installed: seeding embeds every
    memory once), edits allowed; the test that forgets comes after those that read."""
    root = tmp_path_factory.mktemp("browser")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("MEMORYD_HOME", str(root / "home"))
        mp.setenv("MEMORYD_WORKSPACE", str(root / "workspace"))
        mp.setenv("OPENCLAW_STATE_DIR", str(root / "openclaw"))
        (root / "openclaw").mkdir()  # a healthy home: a configured OpenClaw folder that is missing is a warning
        for var in ("MEMORYD_DB_URL", "MEMORYD_DB_TOKEN", "MEMORYD_KEY", "MEMORYD_SOCKET", "MEMORYD_LLM_ENDPOINT",
                    "MEMORYD_RETRIEVAL_MODE"):
            mp.delenv(var, raising=False)
        config = load_config(dict(os.environ))
        seed(config)
        server = WebServer(config, 0, allow_edits=True).start()
        yield server
        server.stop()


def _not_blank(page: Any, path: Path) -> int:
    page.screenshot(path=str(path), full_page=True)
    blank = page.context.new_page()
    try:
        return blank.evaluate(DISTINCT, base64.b64encode(path.read_bytes()).decode())
    finally:
        blank.close()


def test_every_page_loads_with_real_data_and_screenshots_are_not_blank(browser, view, tmp_path: Path) -> None:
    page = browser.new_context(viewport={"width": 1200, "height": 900}).new_page()
    response = page.goto(view.url)
    assert response.ok and page.url == f"http://127.0.0.1:{view.port}/"  # the token left the address bar
    for path, title in PAGES:
        page.goto(f"http://127.0.0.1:{view.port}{path}")
        assert page.locator("h1").inner_text() == title
        assert page.title() == f"{title} · memoryd"
        colours = _not_blank(page, tmp_path / f"page{path.replace('/', '-') or '-'}.png")
        assert colours >= 16, (path, colours)
    page.goto(f"http://127.0.0.1:{view.port}/warm")
    assert "Alice prefers green tea" in page.locator("main table").inner_text()
    page.goto(f"http://127.0.0.1:{view.port}/tree")
    assert "warm 2 · cold 60" in page.locator("nav.tree").inner_text()


def test_typing_a_query_shows_ranked_results_in_each_mode(browser, view, tmp_path: Path) -> None:
    page = browser.new_context().new_page()
    page.goto(view.url)
    page.get_by_role("link", name="Search").click()
    page.get_by_label("Query").press_sequentially("green tea")
    modes = page.locator("#mode option").all_inner_texts()
    if modes:
        assert modes == ["keyword", "hybrid", "both"]
        page.get_by_label("Mode").select_option("both")
    page.get_by_label("Query").press("Enter")
    page.wait_for_selector("main table")
    sections = page.locator("main section")
    assert sections.count() == (2 if modes else 1)
    for i in range(sections.count()):
        first = sections.nth(i).locator("tbody tr").first.inner_text()
        assert "Alice prefers green tea" in first and "warm" in first
        assert "tea" in first and "prior" in first
    assert _not_blank(page, tmp_path / "search.png") >= 16


def test_no_token_a_foreign_host_or_a_foreign_origin_is_refused(browser, view) -> None:
    fresh = browser.new_context().new_page()
    assert fresh.goto(f"http://127.0.0.1:{view.port}/").status == 403
    assert "Refused" in fresh.locator("h1").inner_text()
    assert fresh.goto(f"http://evil.test:{view.port}/?token={view.guard.token}").status == 403  # DNS rebinding
    page = browser.new_context().new_page()
    page.goto(view.url)  # logged in: the cookie is set
    target = f"http://127.0.0.1:{view.port}/forget"
    evil = (f'<form method="post" action="{target}"><input name="id" value="cold00001">'
            f'<input name="csrf" value="guess"><button>go</button></form>')
    page.route("http://evil.test/**", lambda route: route.fulfill(body=evil, content_type="text/html"))
    page.goto("http://evil.test/")
    with page.expect_navigation() as nav:
        page.click("button")
    assert nav.value.status == 403 and "other sites" in page.inner_text("main")  # refused on its Origin
    evil += f'<a href="http://127.0.0.1:{view.port}/hot">the view</a>'
    page.goto("http://evil.test/")
    with page.expect_navigation() as nav:
        page.click("a")
    assert nav.value.status == 403  # a link from another site: refused (and its cookie is not even sent)


def test_the_keyboard_reaches_the_content_and_a_forget_works(browser, view) -> None:
    page = browser.new_context().new_page()
    page.goto(view.url + "&agent=default")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.textContent") == "Skip to the content"
    page.keyboard.press("Enter")
    assert page.evaluate("document.activeElement.id") == "main"
    page.goto(f"http://127.0.0.1:{view.port}/warm")
    row = page.locator("tbody tr", has_text="birthday")
    page.once("dialog", lambda dialog: dialog.accept())
    row.get_by_role("button", name="Forget").focus()
    page.keyboard.press("Enter")
    page.wait_for_selector("p.message")
    assert page.locator("p.message").inner_text().startswith("Forgot ")
    assert "birthday" not in page.locator("main").inner_text()
