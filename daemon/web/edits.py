"""The web view's changes (POST only, CSRF-checked by the server): each returns the message shown after it."""
from __future__ import annotations

from typing import Callable

from memoryd.daemon.web.render import View
from memoryd.daemon.web.review_page import answer as review_answer
from memoryd.daemon.web.tier_pages import HOT_FORMS
from memoryd.tiers.base.errors import UsageError

Form = dict[str, str]


def forget(view: View, form: Form) -> str:
    memory_id = form.get("id", "").strip()
    result = view.data.forget(view.agent, memory_id)
    removed = ", ".join(f"{tier} {n}" for tier, n in (result.get("removed") or {}).items() if n)
    return f"Forgot {memory_id}" + (f" ({removed})." if removed else ".")


def pin(view: View, form: Form) -> str:
    memory_id = form.get("id", "").strip()
    view.data.pin(view.agent, memory_id)
    return f"Pinned {memory_id} to hot memory (a critical lesson the agent always sees)."


def hot_add(view: View, form: Form) -> str:
    kind = form.get("kind", "")
    if kind not in HOT_FORMS:
        raise UsageError(f"unknown hot item kind {kind!r}")
    fields: dict[str, object] = {name: form[name] for name, _, _ in HOT_FORMS[kind] if form.get(name, "").strip()}
    if "importance" in fields:
        try:
            fields["importance"] = float(str(fields["importance"]))
        except ValueError:
            raise UsageError("importance must be a number from 0 to 1") from None
    result = view.data.hot_change(view.agent, kind, fields)
    warned = "; ".join(result.get("warnings") or [])
    return f"Saved the {kind}." + (f" {warned}" if warned else "")


def tree_add(view: View, form: Form) -> str:
    path = form.get("path", "").strip()
    added = view.data.tree_add(view.agent, path, form.get("description", "").strip())
    return f"Added {', '.join(added)}." if added else f"Updated {path}."


def tree_remove(view: View, form: Form) -> str:
    path = form.get("path", "").strip()
    view.data.tree_remove(view.agent, path)
    return f"Removed {path}."


EDITS: dict[str, Callable[[View, Form], str]] = {
    "/forget": forget, "/pin": pin, "/hot/add": hot_add, "/tree/add": tree_add, "/tree/remove": tree_remove,
    "/review/answer": review_answer,
}
