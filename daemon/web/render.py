"""HTML for the web view: the page layout (string.Template), and small escaped building blocks."""
from __future__ import annotations

import functools
import html
import time
from dataclasses import dataclass, field
from pathlib import Path
from string import Template
from typing import Any, Iterable, Sequence
from urllib.parse import urlencode

HERE = Path(__file__).parent
PAGES = (("/", "Overview"), ("/hot", "Hot"), ("/warm", "Warm"), ("/search", "Search"), ("/tree", "Tree"),
         ("/evictions", "Evictions"), ("/review", "Review"))


@dataclass
class View:
    """One request as the pages see it."""

    path: str
    query: dict[str, str]
    agent: str
    agents: list[str]
    data: Any  # daemon/web/data.WebData
    csrf: str
    edits: bool
    now: float = field(default_factory=time.time)

    def arg(self, name: str, default: str = "") -> str:
        return self.query.get(name, default)

    def int_arg(self, name: str, default: int, lo: int, hi: int) -> int:
        try:
            return max(lo, min(hi, int(self.query.get(name, default))))
        except ValueError:
            return default


@functools.lru_cache(maxsize=None)
def template(name: str) -> Template:
    return Template((HERE / "templates" / name).read_text(encoding="utf-8"))


def esc(value: Any) -> str:
    return html.escape(str(value), quote=True)


def href(view: View, path: str, **params: Any) -> str:
    """A link inside the view, for the current agent; empty params are left out."""
    query = {"agent": view.agent, **{k: v for k, v in params.items() if v not in (None, "")}}
    return esc(f"{path}?{urlencode(query)}")


def day(ts: float | None) -> str:
    return time.strftime("%Y-%m-%d", time.gmtime(float(ts))) if ts else "—"


def date(ts: float | None) -> str:
    """A day as a <time> element (HTML)."""
    return f'<time datetime="{day(ts)}">{day(ts)}</time>' if ts else "—"


def stamp(ts: float | None) -> str:
    return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(float(ts))) if ts else "never"


def num(value: Any, digits: int = 3) -> str:
    return "—" if value is None else f"{float(value):.{digits}f}"


def table(caption: str, headers: Sequence[str], rows: Iterable[Sequence[str]], empty: str = "Nothing here.") -> str:
    """A table whose cells are HTML already (escape text with esc())."""
    body = "".join("<tr>" + "".join(f"<td>{cell}</td>" for cell in row) + "</tr>" for row in rows)
    if not body:
        return f'<p class="empty">{esc(empty)}</p>'
    head = "".join(f'<th scope="col">{esc(h)}</th>' for h in headers)
    return f"<table><caption>{esc(caption)}</caption><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def meter(label: str, value: float, high: float) -> str:
    """A labelled meter: value against its limit."""
    share = 0 if not high else value / high
    return (f'<div class="meter"><span>{esc(label)}</span> <meter min="0" max="{high}" high="{0.9 * high}" '
            f'value="{value}" aria-label="{esc(label)}">{share:.0%}</meter> '
            f'<span>{value:,} / {high:,} ({share:.0%})</span></div>')


def pager(view: View, page: int, pages: int, total: int, **params: Any) -> str:
    """Previous / next links and where we are; nothing when one page holds everything."""
    if pages <= 1:
        return f'<p class="count">{total:,} in all.</p>'
    prev = (f'<a rel="prev" href="{href(view, view.path, page=page - 1, **params)}">← Previous</a>'
            if page > 1 else "")
    nxt = (f'<a rel="next" href="{href(view, view.path, page=page + 1, **params)}">Next →</a>'
           if page < pages else "")
    return (f'<nav class="pager" aria-label="Pages of results">{prev} <span>Page {page} of {pages} '
            f'({total:,} in all)</span> {nxt}</nav>')


def paginate(items: Sequence[Any], page: int, per_page: int) -> tuple[Sequence[Any], int, int]:
    """(this page's items, the page actually shown, the number of pages)."""
    pages = max(1, -(-len(items) // per_page))
    page = max(1, min(page, pages))
    return items[(page - 1) * per_page: page * per_page], page, pages


def post_button(view: View, action: str, label: str, fields: dict[str, str], confirm: str = "") -> str:
    """A one-button form that changes something (POST, with the CSRF token)."""
    hidden = "".join(f'<input type="hidden" name="{esc(k)}" value="{esc(v)}">' for k, v in fields.items())
    ask = f' data-confirm="{esc(confirm)}"' if confirm else ""
    return (f'<form class="inline" method="post" action="{esc(action)}"{ask}>{csrf_fields(view)}{hidden}'
            f'<button type="submit">{esc(label)}</button></form>')


def csrf_fields(view: View) -> str:
    back = f"{view.path}?{urlencode({k: v for k, v in view.query.items() if k not in ('msg', 'error')})}"
    return (f'<input type="hidden" name="csrf" value="{esc(view.csrf)}">'
            f'<input type="hidden" name="agent" value="{esc(view.agent)}">'
            f'<input type="hidden" name="back" value="{esc(back)}">')


def page(view: View, title: str, body: str) -> str:
    nav = "".join(
        f'<li><a href="{href(view, path)}"' + (' aria-current="page"' if path == view.path else "") + f">{esc(name)}</a></li>"
        for path, name in PAGES)
    message = ""
    if view.arg("msg"):
        message = f'<p class="message" role="status">{esc(view.arg("msg"))}</p>'
    if view.arg("error"):
        message += f'<p class="error" role="alert">{esc(view.arg("error"))}</p>'
    mode = "edits allowed ([web] allow_edits = true)" if view.edits else "read-only ([web] allow_edits = false)"
    return template("page.html").substitute(
        title=esc(title), agent=esc(view.agent), nav=nav, agents=agent_form(view), message=message, body=body,
        footer=f"memoryd web view · {esc(mode)} · {esc(stamp(view.now))}")


def agent_form(view: View) -> str:
    if len(view.agents) < 2:
        return ""
    options = "".join(f'<option value="{esc(a)}"' + (" selected" if a == view.agent else "") + f">{esc(a)}</option>"
                      for a in view.agents)
    return (f'<form class="agents" method="get" action="{esc(view.path)}"><label for="agent-pick">Agent</label> '
            f'<select id="agent-pick" name="agent">{options}</select> <button type="submit">Show</button></form>')


def refused(reason: str) -> str:
    return template("refused.html").substitute(reason=esc(reason))
