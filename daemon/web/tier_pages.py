"""The Hot, Warm and Tree pages (and their edit forms, shown only when edits are allowed)."""
from __future__ import annotations

from typing import Any

from memoryd.daemon.web import decay, plot
from memoryd.daemon.web.render import View, csrf_fields, date, esc, href, num, pager, paginate, post_button, table
from memoryd.tiers.memory.model import DAY
from memoryd.tiers.memory.said import first_said
from memoryd.tiers.memory.tree import children, counts_by_path

PER_PAGE = 50
HOT_FORMS: dict[str, list[tuple[str, str, str]]] = {  # kind → (field, label, input type)
    "lesson": [("text", "Lesson", "text"), ("category", "Category", "text"), ("importance", "Importance (0 to 1)", "number")],
    "event": [("text", "Event", "text")],
    "task": [("text", "Task", "text"), ("status", "Status", "text")],
    "project": [("name", "Name", "text"), ("description", "Description", "text"), ("status", "Status", "text")],
    "identity": [("key", "Key", "text"), ("value", "Value", "text")],
    "profile": [("key", "Key", "text"), ("value", "Value", "text")],
}
LEGENDS = {"lesson": "Add a lesson", "event": "Add an event", "task": "Add a task or change its status",
           "project": "Add a project or change it", "identity": "Set an identity field",
           "profile": "Set an owner profile field"}


def forget_cell(view: View, memory_id: str, pin: bool = False) -> list[str]:
    """The row's Action cell: Forget (and Pin, for a warm or cold memory), when edits are allowed (else no cell)."""
    if not view.edits:
        return []
    pinned = post_button(view, "/pin", "Pin to hot", {"id": memory_id}) if pin else ""
    return [pinned + post_button(view, "/forget", "Forget", {"id": memory_id},
                                 confirm="Forget this memory on every tier and device?")]


def action(view: View) -> list[str]:
    return ["Action"] if view.edits else []


def hot(view: View) -> tuple[str, str]:
    shown = view.data.hot(view.agent)
    rows = [[esc(i["category"]), esc(i["text"]), esc(num(i["score"], 2)), date(i.get("timestamp"))]
            + forget_cell(view, i["id"]) for i in shown["items"]]
    items = table("Hot items and their importance", ["Kind", "Item", "Importance", "Date"] + action(view), rows,
                  "Hot memory is empty.")
    body = (f'<section aria-labelledby="items-h"><h2 id="items-h">Items</h2>{items}</section>'
            f'<section aria-labelledby="md-h"><h2 id="md-h">As the agent sees it (MEMORY.md)</h2>'
            f'<pre class="rendered">{esc(shown["markdown"])}</pre></section>')
    if view.edits:
        body += _hot_forms(view)
    return "Hot memory", body


def _hot_forms(view: View) -> str:
    forms = []
    for kind, fields in HOT_FORMS.items():
        inputs = "".join(
            f'<p><label for="{kind}-{name}">{esc(label)}</label> '
            f'<input id="{kind}-{name}" name="{name}" type="{typ}"'
            + (' step="0.05" min="0" max="1"' if typ == "number" else "")
            + (' required' if i == 0 else "") + "></p>"
            for i, (name, label, typ) in enumerate(fields))
        forms.append(f'<form method="post" action="/hot/add" class="edit"><fieldset><legend>{LEGENDS[kind]}</legend>'
                     f'{csrf_fields(view)}<input type="hidden" name="kind" value="{kind}">{inputs}'
                     f'<button type="submit">Save {kind}</button></fieldset></form>')
    return (f'<section aria-labelledby="edit-h"><h2 id="edit-h">Change hot memory</h2>'
            f'<div class="forms">{"".join(forms)}</div></section>')


def warm(view: View) -> tuple[str, str]:
    state = view.data.state(view.agent)
    entries = state["warm"]["entries"]
    category = view.arg("category")
    shown = [e for e in entries if not category or e["category"] == category or e["category"].startswith(category + "/")]
    leave = {e["id"]: decay.days_left(e, view.now) for e in shown}
    shown.sort(key=lambda e: (leave[e["id"]] if leave[e["id"]] is not None else 10**6, e["id"]))
    rows_page, page, pages = paginate(shown, view.int_arg("page", 1, 1, 10**6), PER_PAGE)
    rows = [_warm_row(view, e, leave[e["id"]]) for e in rows_page]
    headers = ["Memory", "Category", "Importance", "Score now", "Accesses", "Said", "Decay to eviction",
               "Leaves warm"] + action(view)
    listing = table(f"Warm entries{' in ' + category if category else ''}, soonest to leave first", headers, rows,
                    "No warm entries" + (f" in {category}." if category else "."))
    note = ("<p>An entry leaves warm for cold at the first consolidation after its score falls below 0.3 past "
            "30 days, or below 0.05 at any age (the lines in each curve); earlier when warm fills its 50 KB, "
            "lowest score first. Retrieving it raises its score.</p>")
    return "Warm memory", (_category_filter(view, entries, category) + note + listing
                           + pager(view, page, pages, len(shown), category=category))


def _warm_row(view: View, e: dict[str, Any], left: int | None) -> list[str]:
    horizon = left if left is not None else 365
    points = decay.curve(e, view.now, max(horizon, 1))
    svg = plot.decay(points, left, f"decay of {e['id']}")
    if left is None:
        leaves = "not within ten years"
    elif left == 0:
        leaves = "at the next consolidation"
    else:
        leaves = f"{date(view.now + left * DAY)} (in {left} days)"
    return [esc(e["text"]), f'<a href="{href(view, "/warm", category=e["category"])}">{esc(e["category"])}</a>',
            esc(num(e["importance"], 2)), esc(num(points[0][1], 3)), esc(e.get("access_count", 0)),
            date(first_said(e)), svg, leaves] + forget_cell(view, e["id"], pin=True)  # said: what its score ages from


def _category_filter(view: View, entries: list[dict[str, Any]], current: str) -> str:
    cats = sorted({e["category"] for e in entries} | ({current} if current else set()))
    options = '<option value="">All categories</option>' + "".join(
        f'<option value="{esc(c)}"' + (" selected" if c == current else "") + f">{esc(c)}</option>" for c in cats)
    return (f'<form method="get" action="/warm" class="filter"><input type="hidden" name="agent" value="{esc(view.agent)}">'
            f'<label for="category">Category</label> <select id="category" name="category">{options}</select> '
            f'<button type="submit">Filter</button></form>')


def tree(view: View) -> tuple[str, str]:
    state = view.data.state(view.agent)
    nodes = state["tree"]["nodes"]
    counts = counts_by_path(state["warm"]["entries"], view.data.cold_by_category(view.agent))
    total = counts.get("", (0, 0))

    def walk(parent: str) -> str:
        items = []
        for path in children(state["tree"], parent):
            desc, _ = nodes[path]
            w, c = counts.get(path, (0, 0))
            remove = (post_button(view, "/tree/remove", "Remove", {"path": path}, confirm=f"Remove {path}?")
                      if view.edits and not children(state["tree"], path) and not w + c else "")
            items.append(f'<li><a href="{href(view, "/warm", category=path)}">{esc(path.rsplit("/", 1)[-1])}</a>'
                         + (f' <span class="desc">— {esc(desc)}</span>' if desc else "")
                         + f' <span class="counts">warm {w:,} · cold {c:,}</span> {remove}{walk(path)}</li>')
        return f"<ul>{''.join(items)}</ul>" if items else ""

    body = (f'<p>{len(nodes)} of 50 nodes. All memories: warm {total[0]:,} · cold {total[1]:,}.</p>'
            f'<nav aria-label="Category tree" class="tree">{walk("") or "<p>The tree is empty.</p>"}</nav>')
    if view.edits:
        body += (f'<form method="post" action="/tree/add" class="edit"><fieldset><legend>Add a node or set its '
                 f'description</legend>{csrf_fields(view)}<p><label for="tree-path">Path (a/b/c)</label> '
                 f'<input id="tree-path" name="path" required></p><p><label for="tree-desc">Description</label> '
                 f'<input id="tree-desc" name="description"></p><button type="submit">Save node</button>'
                 f"</fieldset></form>")
    return "Tree", body
