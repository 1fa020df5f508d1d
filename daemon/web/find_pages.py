"""The Search page (retrieve, with its ranking explained) and the Evictions page (the log, searchable)."""
from __future__ import annotations

from typing import Any

from memoryd.daemon.web.render import View, esc, num, pager, stamp, table
from memoryd.daemon.web.tier_pages import action, forget_cell

PER_PAGE = 50
LIMIT = 20


def search(view: View) -> tuple[str, str]:
    modes = view.data.search_modes()
    configured = view.data.config.section("retrieval").get("mode")
    choices = modes + (["both"] if len(modes) > 1 else [])
    mode = view.arg("mode") if view.arg("mode") in choices else (configured if configured in modes else modes[0])
    query = view.arg("q").strip()
    body = _search_form(view, query, mode, choices)
    if query:
        for one in (modes if mode == "both" else [mode]):
            body += _results(view, query, one, view.data.search(view.agent, query, one, LIMIT))
    return "Search", body


def _search_form(view: View, query: str, mode: str, choices: list[str]) -> str:
    select = ""
    if len(choices) > 1:
        options = "".join(f'<option value="{c}"' + (" selected" if c == mode else "") + f">{c}</option>"
                          for c in choices)
        select = f' <label for="mode">Mode</label> <select id="mode" name="mode">{options}</select>'
    return (f'<form method="get" action="/search" role="search" class="search">'
            f'<input type="hidden" name="agent" value="{esc(view.agent)}">'
            f'<label for="q">Query</label> <input id="q" name="q" type="search" value="{esc(query)}" required '
            f'autofocus size="40">{select} <button type="submit">Search</button></form>'
            '<p class="count">Searching here is a retrieve like <code>memoryd retrieve</code>: what it finds counts '
            "as accessed (its score rises).</p>")


def _results(view: View, query: str, mode: str, found: dict[str, Any]) -> str:
    rows = []
    for n, r in enumerate(found.get("results") or [], start=1):
        ranking = r.get("ranking") or {}
        terms = ", ".join(f"{t} {w:.2f}" for t, w in sorted((ranking.get("terms") or {}).items(), key=lambda kv: -kv[1]))
        rows.append([str(n), esc(r.get("text", "")), esc(r.get("tier", "")), f'<time>{esc(r.get("date") or "")}</time>',
                     esc(num(r.get("score"), 3)), esc(num(ranking.get("prior"), 2)), esc(num(r.get("rank"), 4)),
                     esc(terms or "—"), esc(r.get("reason", ""))] + forget_cell(view, r["id"], pin=r.get("tier") != "hot"))
    notes = "".join(f'<p class="warning" role="note">{esc(w)}</p>' for w in found.get("warnings") or [])
    caption = f"{len(rows)} result(s) for “{query}”, {mode} mode"
    listing = table(caption, ["#", "Memory", "Tier", "Date", "Score", "Prior", "Rank", "Matched terms", "Why"] + action(view), rows,
                    f"Nothing found for “{query}” ({mode} mode).")
    return (f'<section aria-labelledby="res-{mode}"><h2 id="res-{mode}">Results, {esc(mode)} mode</h2>'
            f'{notes}{listing}</section>')


def _ids(row: dict) -> str:
    """A row's memory id, or a batch's (an import said long ago: ids only) as its first and a count."""
    ids = row.get("ids") if "id" not in row else None
    if isinstance(ids, list) and ids:
        return f"{ids[0]} … ({len(ids)} memories)" if len(ids) > 1 else str(ids[0])
    return str(row.get("id", ""))


def evictions(view: View) -> tuple[str, str]:
    query = view.arg("q").strip()
    page = view.int_arg("page", 1, 1, 10**6)
    shown, total = view.data.evictions(view.agent, query, (page - 1) * PER_PAGE, PER_PAGE)
    pages = max(1, -(-total // PER_PAGE))
    if page > pages:  # past the end (the log rotated meanwhile): the last page
        page = pages
        shown, total = view.data.evictions(view.agent, query, (page - 1) * PER_PAGE, PER_PAGE)
    cells = [[esc(stamp(r.get("ts"))), esc(r.get("tier", "")), esc(r.get("kind", "")),
              esc(r.get("what") or "(text not kept)"), esc(r.get("why", "")), f'<code>{esc(_ids(r))}</code>',
              esc(r.get("reason", ""))] for r in shown]
    form = (f'<form method="get" action="/evictions" role="search" class="search">'
            f'<input type="hidden" name="agent" value="{esc(view.agent)}">'
            f'<label for="eq">Search the log</label> <input id="eq" name="q" type="search" value="{esc(query)}" size="30"> '
            f'<button type="submit">Search</button></form>')
    listing = table("Evictions, newest first", ["When", "Tier", "Kind", "What", "Why", "Id", "During"], cells,
                    f"No eviction matches “{query}”." if query else "Nothing has been evicted yet.")
    return "Evictions", form + listing + pager(view, page, pages, total, q=query)
