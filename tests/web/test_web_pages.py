"""Each page of the web view over a real home, through http.client against the real server."""
from __future__ import annotations

import re
import time

from webhelp import dispatch, FACTS, text_of


def _get(web, path: str) -> str:
    _, s = web
    if s.cookie is None:
        s.login()
    status, headers, body = s.get(path)
    assert status == 200, body
    assert headers["content-type"] == "text/html; charset=utf-8"
    return body


def test_overview_shows_tiers_against_limits_runs_sync_and_the_per_day_plot(web) -> None:
    body = _get(web, "/")
    text = text_of(body)
    assert re.search(r"Hot bytes .* / 5,120", text) and re.search(r"Warm bytes .* / 51,200", text)
    assert "Tree nodes" in text and "/ 50" in text
    assert "Cold: 120 in the local index" in text
    assert "Consolidation runs" in text and "quick" in text and "never" in text
    assert "This device" in text and "not synced yet" in text
    assert '<svg class="plot"' in body and 'role="img"' in body
    assert body.count('<rect class="cold"') >= 59  # 120 cold rows spread over 60 days: one bar per day
    assert "Warnings" in text and "None." in text


def test_overview_counts_cold_memories_per_day_by_sql(web, seeded) -> None:
    body = _get(web, "/?days=30")
    shown = {d: int(c) for d, c in re.findall(r"<tr><td>(\d{4}-\d\d-\d\d)</td><td>[\d,]+</td><td>([\d,]+)</td></tr>", body)
             if int(c)}  # a day with warm facts only shows cold 0
    since = time.strftime("%Y-%m-%d", time.gmtime(time.time() - 30 * 86400))
    expected: dict[str, int] = {}
    for row in seeded["cold"]:
        day = time.strftime("%Y-%m-%d", time.gmtime(row["created_at"]))
        if day >= since:
            expected[day] = expected.get(day, 0) + 1
    assert shown == expected and sum(shown.values()) >= 58


def test_overview_warns_when_a_run_failed(web, kw_config) -> None:
    from memoryd.tiers.base.atomic import atomic_write_json, read_json

    path = kw_config.agent_dir("default") / "metrics.json"
    metrics = read_json(path, dict)
    metrics.setdefault("runs", {})["daily"] = {"last_start": 1, "last_end": 2, "ok": False, "error": "disk full"}
    atomic_write_json(path, metrics)
    assert "the last daily consolidation failed: disk full" in text_of(_get(web, "/"))


def test_hot_shows_the_rendered_memory_and_each_items_importance(web) -> None:
    body = _get(web, "/hot")
    text = text_of(body)
    assert "Always run the tests before pushing" in text and "0.80" in text
    assert "name: Ada" in text and "1.00" in text
    assert '<pre class="rendered">' in body and "# " in body  # MEMORY.md as the agent reads it
    assert 'method="post"' not in body  # read-only: no edit forms


def test_warm_lists_score_decay_and_the_day_each_leaves(web) -> None:
    body = _get(web, "/warm")
    text = text_of(body)
    for fact, _, _ in FACTS:
        assert fact.replace("'", "&#x27;") in body or fact in text
    assert body.count('<svg class="decay"') == len(FACTS)
    assert "Leaves warm" in text and re.search(r"\d{4}-\d\d-\d\d \(in \d+ days\)", text)
    low = text.index("The CI cache")  # importance 0.4: the first to go
    assert low < text.index("The deploy script")


def test_warm_filters_by_category_and_paginates(web, kw_config) -> None:
    body = _get(web, "/warm?category=people")
    assert "Alice prefers" in body and "Bob" in body and "deploy script" not in body
    for n in range(60):
        dispatch(kw_config, "store", {"agent_id": "default", "text": f"Filler fact number {n} about lunch",
                                      "category": "misc", "importance": 0.5})
    first = _get(web, "/warm?category=misc")
    assert "Page 1 of 2" in first and 'rel="next"' in first and first.count('<svg class="decay"') == 50
    second = _get(web, "/warm?category=misc&page=2")
    assert "Page 2 of 2" in second and second.count('<svg class="decay"') == 10


def test_search_shows_tier_date_score_terms_and_ranking(web) -> None:
    body = _get(web, "/search?q=deploy+script")
    text = text_of(body)
    assert "Results, keyword mode" in text
    first_row = body.split("<tbody>", 1)[1].split("</tr>", 1)[0]
    assert "deploy script" in first_row and "warm" in first_row
    assert re.search(r"deploy \d\.\d\d", text_of(first_row)) and "bm25" in first_row and "prior" in first_row
    assert re.search(r"\d{4}-\d\d-\d\d", first_row)


def test_search_finds_cold_memories_without_loading_them_all(web) -> None:
    body = _get(web, "/search?q=quarterly+budget")
    rows = body.split("<tbody>", 1)[1].split("</tbody>", 1)[0]
    assert rows.count("<tr>") == 20 and "cold" in rows


def test_search_without_a_query_shows_the_form(web) -> None:
    body = _get(web, "/search")
    assert 'role="search"' in body and '<label for="q">' in body and "Results" not in body


def test_tree_shows_warm_and_cold_counts(web) -> None:
    text = text_of(_get(web, "/tree"))
    assert re.search(r"infra .*warm 2 · cold 60", text)
    assert re.search(r"people .*warm 2 · cold 0", text)
    assert "All memories: warm 4 · cold 120" in text


def test_evictions_are_searchable_and_paginated(web, kw_config) -> None:
    for n in range(55):
        dispatch(kw_config, "forget", {"agent_id": "default", "id": f"cold{n:05d}"})
    body = _get(web, "/evictions")
    assert "Page 1 of 2" in body and "forgotten by request" in body
    found = _get(web, "/evictions?q=cold00042")
    assert "cold00042" in found and "cold00041" not in found and "1 in all" in text_of(found)
    assert "No eviction matches" in _get(web, "/evictions?q=nothing-like-this")


def test_pages_have_landmarks_labels_and_keyboard_links(web) -> None:
    for path in ("/", "/hot", "/warm", "/search?q=tea", "/tree", "/evictions"):
        body = _get(web, path)
        assert '<html lang="en">' in body and "<main" in body and '<nav aria-label="Pages">' in body
        assert 'href="#main"' in body and body.count("<h1>") == 1
        for field in re.findall(r'<(?:input|select)[^>]*\bid="([^"]+)"', body):
            assert f'<label for="{field}"' in body, (path, field)
        assert 'aria-current="page"' in body


def test_an_unknown_agent_is_a_clear_page_and_a_bad_id_is_refused(web) -> None:
    _, s = web
    s.login()
    status, _, body = s.get("/hot?agent=ghost")
    assert status == 400 and "no agent &#x27;ghost&#x27;" in body
    assert s.get("/hot?agent=../x")[0] == 400


def test_the_agent_picker_lists_every_agent(web, kw_config) -> None:
    dispatch(kw_config, "store", {"agent_id": "second", "text": "Second agent fact about kites", "category": "misc"})
    body = _get(web, "/warm?agent=second")
    assert "kites" in body and "Alice" not in body
    assert '<select id="agent-pick" name="agent">' in body and 'value="second" selected' in body


def test_static_files_come_from_the_package(web) -> None:
    _, s = web
    s.login()
    for path, kind in (("/static/app.css", "text/css"), ("/static/app.js", "text/javascript")):
        status, headers, body = s.get(path)
        assert status == 200 and headers["content-type"].startswith(kind) and body
    assert s.get("/static/../data.py")[0] == 404
