"""HOT tier: identity, owner profile, active context and critical lessons; pruning and MEMORY.md."""
from __future__ import annotations

import re
import time
from typing import TYPE_CHECKING, Any, Callable, Mapping

from memoryd.tiers.base.atomic import dumps
from memoryd.tiers.base.errors import UsageError
from memoryd.tiers.memory.model import (HOT_MAX_BYTES, MAX_EVENTS, MAX_LESSON_CHARS, MAX_LESSONS, MAX_PENDING_TASKS, check_category, check_field, check_importance, check_key, check_text, content_id, preview)

if TYPE_CHECKING:
    from memoryd.tiers.memory.types import Event, Eviction, HotState, Lesson, Project, Task
    Hot = HotState  # the name this module's signatures use



def empty_hot() -> Hot:
    return {"identity": {}, "owner_profile": {},
            "active_context": {"projects": [], "events": [], "tasks": []},
            "critical_lessons": []}


_ITEM_FIELDS: dict[str, dict[str, type | tuple[type, ...]]] = {  # field → accepted types of the fields read
    "projects": {"id": str, "name": str, "description": str, "status": str},
    "events": {"id": str, "text": str, "timestamp": (int, float)},
    "tasks": {"id": str, "text": str, "status": str, "timestamp": (int, float)},
    "critical_lessons": {"id": str, "text": str, "category": str, "importance": (int, float),
                         "timestamp": (int, float)},
}


def _check_items(items: Any, name: str) -> None:
    if not isinstance(items, list):
        raise TypeError(f"{name} is not a list")
    for item in items:
        if not isinstance(item, dict) or any(not isinstance(item.get(k), t) for k, t in _ITEM_FIELDS[name].items()):
            raise TypeError(f"malformed item in {name}")


def validate_hot(obj: Any) -> None:
    """Shape check used when loading; raises TypeError/KeyError on a malformed file."""
    if not isinstance(obj, dict):
        raise TypeError("hot state is not an object")
    for section in ("identity", "owner_profile"):
        if not isinstance(obj[section], dict) or not all(isinstance(v, (str, int, float, list)) for v in obj[section].values()):
            raise TypeError(section)
    for key in ("projects", "events", "tasks"):
        _check_items(obj["active_context"][key], key)
    _check_items(obj["critical_lessons"], "critical_lessons")


def hot_size(hot: Hot) -> int:
    return len(dumps(hot))


# --- changes (each returns the item it wrote) ---------------------------------------------

def _field(value: str, what: str) -> str:
    """A checked one-line field with secrets replaced: hot is synced and always in context."""
    from memoryd.tiers.distillation.redact import redact

    return redact(check_field(value, what))[0]


def set_identity(hot: Hot, key: str, value: str) -> dict[str, Any]:
    key = check_key(key)
    hot["identity"][key] = _field(value, "value")
    return {"key": key, "value": hot["identity"][key]}


def set_profile(hot: Hot, key: str, value: str) -> dict[str, Any]:
    key = check_key(key)
    hot["owner_profile"][key] = _field(value, "value")
    return {"key": key, "value": hot["owner_profile"][key]}


def upsert_project(hot: Hot, name: str, description: str | None, status: str | None, now: float) -> Project:
    name = _field(name, "project name")
    pid = content_id("project", name)
    projects = hot["active_context"]["projects"]
    item = next((p for p in projects if p["id"] == pid), None)
    if item is None:
        item = {"id": pid, "name": name, "description": "", "status": "active"}
        projects.append(item)
    if description is not None:
        item["description"] = _field(description, "description")
    if status is not None:
        item["status"] = _field(status, "status")
    item["updated_at"] = int(now)
    return item


def add_event(hot: Hot, text: str, now: float) -> Event:
    text = _field(text, "event")
    eid = content_id("event", text, str(int(now)))
    existing = next((e for e in hot["active_context"]["events"] if e["id"] == eid), None)
    if existing is not None:  # the same event twice in one second is one event
        return existing
    item: Event = {"id": eid, "text": text, "timestamp": int(now)}
    hot["active_context"]["events"].append(item)
    return item


def upsert_task(hot: Hot, text: str, status: str | None, now: float) -> Task:
    text = _field(text, "task")
    tid = content_id("task", text)
    tasks = hot["active_context"]["tasks"]
    item = next((t for t in tasks if t["id"] == tid), None)
    if item is None:
        item = {"id": tid, "text": text, "status": "pending", "timestamp": int(now)}
        tasks.append(item)
    if status is not None:
        item["status"] = _field(status, "status")
    return item


def add_lesson(hot: Hot, text: str, category: str, importance: float | None, now: float,
               keep_head: bool = False) -> Lesson:
    """A lesson over MAX_LESSON_CHARS is refused like an over-long event, unless `keep_head`: a fact promoted
    by consolidation or distillation (already stored whole in warm) keeps its head in hot."""
    from memoryd.tiers.distillation.redact import redact

    text = " ".join(redact(check_text(text, "lesson"))[0].split())
    if len(text) > MAX_LESSON_CHARS:
        if not keep_head:
            raise UsageError(f"lesson is {len(text)} characters; the maximum is {MAX_LESSON_CHARS}")
        text = text[: MAX_LESSON_CHARS - 1] + "…"
    category = check_category(category)
    imp = check_importance(importance)
    lid = content_id("lesson", text)
    lessons = hot["critical_lessons"]
    item = next((x for x in lessons if x["id"] == lid), None)
    if item is None:
        item = {"id": lid, "text": text, "category": category, "importance": 0.8 if imp is None else imp,
                "timestamp": int(now)}
        lessons.append(item)
    else:
        item["importance"] = max(item["importance"], 0.8 if imp is None else imp)
        item["timestamp"] = int(now)
    return item


def remove_ids(hot: Hot, ids: set[str]) -> int:
    """Drop hot items with these ids (forget); returns how many went.

    Identity and profile entries go by the ids retrieve shows for them: identity:KEY, profile:KEY.
    """
    removed = 0
    for prefix, values in (("identity:", hot["identity"]), ("profile:", hot["owner_profile"])):
        for i in ids:
            if i.startswith(prefix) and values.pop(i[len(prefix):], None) is not None:
                removed += 1
    ctx = hot["active_context"]
    before = len(ctx["projects"]) + len(ctx["events"]) + len(ctx["tasks"]) + len(hot["critical_lessons"])
    ctx["projects"] = [i for i in ctx["projects"] if i["id"] not in ids]
    ctx["events"] = [i for i in ctx["events"] if i["id"] not in ids]
    ctx["tasks"] = [i for i in ctx["tasks"] if i["id"] not in ids]
    hot["critical_lessons"] = [i for i in hot["critical_lessons"] if i["id"] not in ids and i.get("source_id") not in ids]
    return removed + before - (len(ctx["projects"]) + len(ctx["events"]) + len(ctx["tasks"])
                               + len(hot["critical_lessons"]))


# --- pruning (pure, deterministic) --------------------------------------------------------

def _evicted(kind: str, item: Mapping[str, Any], why: str) -> Eviction:
    return {"tier": "hot", "kind": kind, "id": item.get("id", item.get("key", "")),
            "what": preview(str(item.get("text") or item.get("name") or item.get("value", ""))), "why": why}


DAY_SAID = re.compile(r"\s*\((\d{4}-\d{2}-\d{2})\)\s*$")   # " (YYYY-MM-DD)" hot adds: the day an event or task is about
TASK_GRACE_DAYS = 14   # a dated task this long past its day was done or dropped: out of what the agent always reads


def day_of(text: str) -> str | None:
    """The day (YYYY-MM-DD) a hot event or task is about, as hot wrote it at the end of its text."""
    m = DAY_SAID.search(text)
    return m.group(1) if m else None


def expire_passed(hot: Hot, now: float) -> list[Eviction]:
    """Events whose day has passed, and pending tasks TASK_GRACE_DAYS past theirs, leave hot (their memories
    stay in warm and the local index): hot is what is active, and a past gig's date is no longer news."""
    today = time.strftime("%Y-%m-%d", time.gmtime(now))
    grace = time.strftime("%Y-%m-%d", time.gmtime(now - TASK_GRACE_DAYS * 86400))
    ctx = hot["active_context"]
    out: list[Eviction] = []
    for kind, items, before in (("event", ctx["events"], today), ("task", ctx["tasks"], grace)):
        for item in list(items):
            day = day_of(str(item.get("text", "")))
            if day and day < before and item.get("status", "pending") == "pending":
                items.remove(item)
                out.append(_evicted(kind, item, f"its day {day} has passed"))
    return out


def expire_let_go(hot: Hot, in_warm: set[str]) -> list[Eviction]:
    """Pending tasks with no day of their own whose memory warm has let go (its score decayed below keeping: said
    long ago and not asked about since) leave hot with it: "I need to pay the florist" from six weeks ago is done
    or dropped, and its words may name what has changed since. The memory stays in the local index."""
    out: list[Eviction] = []
    tasks = hot["active_context"]["tasks"]
    for task in list(tasks):
        source = task.get("source_id")
        if (source and source not in in_warm and task.get("status", "pending") == "pending"
                and not DAY_SAID.search(str(task.get("text", "")))):
            tasks.remove(task)
            out.append(_evicted("task", task, "its memory has aged out of warm"))
    return out


def prune_hot(hot: Hot) -> list[Eviction]:
    """Apply count limits, then shrink progressively until the JSON is ≤ 5 KB."""
    out: list[Eviction] = []
    ctx = hot["active_context"]
    ctx["events"].sort(key=lambda e: (e["timestamp"], e["id"]))
    while len(ctx["events"]) > MAX_EVENTS:
        out.append(_evicted("event", ctx["events"].pop(0), f"keeps the last {MAX_EVENTS} events"))
    hot["critical_lessons"].sort(key=lambda x: (-x["importance"], -x["timestamp"], x["id"]))
    while len(hot["critical_lessons"]) > MAX_LESSONS:
        out.append(_evicted("lesson", hot["critical_lessons"].pop(), f"over {MAX_LESSONS} lessons, lowest importance"))
    ctx["tasks"].sort(key=lambda t: (t["timestamp"], t["id"]))
    pending = [t for t in ctx["tasks"] if t["status"] == "pending"]
    for task in pending[: max(0, len(pending) - MAX_PENDING_TASKS)]:
        ctx["tasks"].remove(task)
        out.append(_evicted("task", task, f"over {MAX_PENDING_TASKS} pending tasks, oldest"))
    ctx["projects"].sort(key=lambda p: (p.get("updated_at", 0), p["id"]))
    if hot_size(hot) > HOT_MAX_BYTES:
        out.extend(_shrink(hot))
    return out


def _shrink(hot: Hot) -> list[Eviction]:
    out: list[Eviction] = []
    ctx = hot["active_context"]
    why = f"hot state over {HOT_MAX_BYTES} bytes"
    oldest = lambda items: items[0]  # noqa: E731 - lists are kept sorted oldest first
    order: list[tuple[str, list[Any], Callable[[list[Any]], Any]]] = [  # least valuable first; lessons: most important first
        ("event", ctx["events"], oldest),
        ("task", ctx["tasks"], lambda items: next((t for t in items if t["status"] != "pending"), None)),
        ("lesson", hot["critical_lessons"], lambda items: items[-1]),
        ("task", ctx["tasks"], oldest),
        ("project", ctx["projects"], oldest),
    ]
    for kind, items, pick in order:
        while items and hot_size(hot) > HOT_MAX_BYTES:
            item = pick(items)
            if item is None:
                break
            items.remove(item)
            out.append(_evicted(kind, item, why))
    for section in ("owner_profile", "identity"):
        for key in sorted(hot[section], reverse=True):
            if hot_size(hot) <= HOT_MAX_BYTES:
                break
            out.append(_evicted(section, {"key": key, "value": hot[section].pop(key)}, why))
    return out


# --- MEMORY.md ------------------------------------------------------------------------------

def render_markdown(hot: Hot, agent_id: str) -> str:
    lines = [f"# MEMORY — agent {agent_id}", "", "_Generated by memoryd from hot memory; edits are overwritten._", ""]
    for title, items in hot_sections(hot):
        lines += [f"## {title}", ""] + items + [""]
    return "\n".join(lines)


def hot_sections(hot: Hot) -> list[tuple[str, list[str]]]:
    """(title, markdown list lines) of each non-empty hot section, in reading order."""
    ctx = hot["active_context"]
    sections = [
        ("Identity", [f"- {k}: {v}" for k, v in sorted(hot["identity"].items())]),
        ("Owner profile", [f"- {k}: {v}" for k, v in sorted(hot["owner_profile"].items())]),
        ("Active projects", [f"- **{p['name']}**" + (f" — {p['description']}" if p.get("description") else "")
                             + f" ({p.get('status', 'active')})" for p in ctx["projects"]]),
        ("Tasks", [f"- [{'x' if t['status'] == 'done' else ' '}] {t['text']}"
                   + ("" if t["status"] in ("pending", "done") else f" ({t['status']})") for t in ctx["tasks"]]),
        ("Recent events", [f"- {e['text']}" for e in ctx["events"]]),
        ("Critical lessons", [f"- {x['text']} _({x['category']}, {x['importance']:.2f})_"
                              for x in hot["critical_lessons"]]),
    ]
    return [(title, items) for title, items in sections if items]
