"""The MCP tools of `memoryd mcp`: names, JSON schemas, argument checks, and each tool's operation.

No MCP SDK here (daemon/mcp_server.py wires these to it): a tool call is checked against its schema
(an error names the field), then runs as a memoryd operation through daemon/api.py (the daemon when it
runs, else this process), scoped to the server's one agent.
"""
from __future__ import annotations

import math
import re
import time
from dataclasses import dataclass, field
from typing import Any, Callable

from memoryd.tiers.base.errors import MemorydError, UsageError
from memoryd.tiers.memory.model import LONE_SURROGATE

from memoryd.daemon.api import MemoryApi
from memoryd.daemon.errors import UnknownOperationError
from memoryd.daemon.mcp_lines import REFUSED_TOOL

DATE = {"type": "string", "pattern": r"^\d{4}-\d{2}-\d{2}$", "description": "A day, YYYY-MM-DD."}
KINDS = ("fact", "experience", "belief", "opinion", "summary")  # tiers/knowledge/kinds.py KINDS
KIND = {"type": "string", "enum": list(KINDS), "description": "fact, experience (what happened), belief (held with "
        "a confidence), opinion (with a confidence that moves with evidence) or summary."}
TEXT_MAX = 4096  # tiers/memory/model.py MAX_TEXT_BYTES: one fact
FIELD_MAX = 200  # tiers/memory/model.py MAX_FIELD_CHARS: a hot field (event, task)
LESSON_MAX = 300  # tiers/memory/model.py MAX_LESSON_CHARS
REVIEW_ACTIONS = ("current", "both", "merge", "dismiss")  # tiers/knowledge/review.py ACTIONS
CLOSEST = 5  # memories a store answers with


class ArgumentError(UsageError):
    """A tool argument that does not fit the tool's schema (the message names it)."""


class UnknownTool(UsageError):
    pass


@dataclass(frozen=True)
class Tool:
    name: str
    description: str
    properties: dict[str, dict[str, Any]]
    required: tuple[str, ...] = ()
    hints: dict[str, bool] = field(default_factory=dict)  # MCP tool annotations (readOnlyHint, ...)

    @property
    def input_schema(self) -> dict[str, Any]:
        return {"type": "object", "properties": self.properties, "required": list(self.required),
                "additionalProperties": False}


def _text(what: str, max_len: int) -> dict[str, Any]:
    return {"type": "string", "minLength": 1, "maxLength": max_len, "description": what}


TOOLS = [
    Tool("memory_search", "Search this user's long-term memory (hot, warm and cold) and get the best matches ranked, "
         "each with its tier, date and why it matched; use it before answering anything that may depend on past "
         "work, decisions or preferences.",
         {"query": {"type": "string", "maxLength": 1000, "description": "Words to look for (may be empty when a "
                    "filter is given)."},
          "limit": {"type": "integer", "minimum": 1, "maximum": 50, "default": 10, "description": "At most this "
                    "many results."},
          "since": dict(DATE, description="Only facts dated on or after this day (YYYY-MM-DD)."),
          "until": dict(DATE, description="Only facts dated on or before this day (YYYY-MM-DD)."),
          "entity": {"type": "string", "minLength": 1, "maxLength": 100, "description": "Only facts about this "
                     "person or thing (as @name in notes)."},
          "kind": dict(KIND, description="Only memories of this kind: " + KIND["description"]),
          "history": {"type": "boolean", "default": False, "description": "Also memories a newer one superseded "
                      "(each after the current ones, with superseded_by)."}},
         hints={"readOnlyHint": True}),
    Tool("memory_store", "Save one durable fact (a decision, preference, personal fact or commitment with its date) "
         "to long-term memory; secrets in it are redacted; returns the stored entry and its id, and the closest "
         "memories already held (id, text, date, kind) so you can say which it replaces (supersedes) in a later "
         "store.",
         {"text": _text("The fact, one or two self-contained sentences.", TEXT_MAX),
          "category": {"type": "string", "pattern": r"^[\w.-]+(/[\w.-]+){0,3}$", "maxLength": 131,
                       "default": "notes", "description": "Category path such as projects/billing or people/alice "
                       "(up to 4 levels); reuse the paths of the tree resource."},
          "importance": {"type": "number", "minimum": 0, "maximum": 1, "description": "0..1; derived from the "
                         "text when omitted."},
          "kind": dict(KIND, description="What it is (inferred when omitted: a hedged statement is a belief): "
                       + KIND["description"]),
          "confidence": {"type": "number", "minimum": 0, "maximum": 1, "description": "0..1, for a belief or an "
                         "opinion."},
          "supersedes": {"type": "array", "maxItems": 20, "items": _text("A memory id.", 100),
                         "description": "Ids of memories this one replaces (an older value of the same thing, e.g. "
                         "from the closest memories a previous store answered with); an unknown id stores nothing."}},
         required=("text",)),
    Tool("memory_review", "List the open knowledge questions memoryd's rules could not decide (two memories that "
         "may be two values of one thing; a belief a fact may confirm; an opinion and its evidence), or answer one: "
         "current (the newer replaces the older), both (both stay true), merge (the newer restates the older), "
         "dismiss, or undo an answer.",
         {"action": {"type": "string", "enum": ["list", *REVIEW_ACTIONS, "undo"], "default": "list",
                     "description": "list (the default), an answer (current, both, merge, dismiss) or undo."},
          "id": _text("The question id (from list), for an answer or undo.", 100)},
         hints={"idempotentHint": True}),
    Tool("memory_forget", "Delete one memory by its id (from memory_search) from every tier, the cloud copy "
         "included; says what was removed.",
         {"id": _text("The memory id, e.g. 9566f8bf38f07ba7.", 100)}, required=("id",),
         hints={"destructiveHint": True, "idempotentHint": True}),
    Tool("memory_forget_recent", "Delete every memory created in the last N days from every tier, the cloud copy "
         "included; says how many were removed from each tier.",
         {"days": {"type": "number", "exclusiveMinimum": 0, "maximum": 3650, "description": "How many days back, "
                   "e.g. 1 for the last 24 hours."}}, required=("days",),
         hints={"destructiveHint": True}),
    Tool("memory_hot", "Show the always-in-context hot memory: identity, owner profile, active projects, tasks, "
         "recent events and critical lessons.", {}, hints={"readOnlyHint": True}),
    Tool("memory_lesson", "Add a critical lesson to hot memory (kept in context for every session), e.g. 'Run the "
         "tests before pushing'.",
         {"text": _text("The lesson, one sentence.", LESSON_MAX),
          "category": {"type": "string", "pattern": r"^[\w.-]+(/[\w.-]+){0,3}$", "maxLength": 131,
                       "default": "lessons", "description": "Category path of the lesson."},
          "importance": {"type": "number", "minimum": 0, "maximum": 1, "default": 0.8, "description": "0..1; the "
                         "20 most important lessons are kept."}},
         required=("text",)),
    Tool("memory_task", "Add a task to hot memory, or set the status of an existing one (same text), e.g. "
         "status 'done' when it is finished.",
         {"text": _text("The task, e.g. 'Send the invoice to ACME by Friday'.", FIELD_MAX),
          "status": {"type": "string", "minLength": 1, "maxLength": 40, "description": "pending (the default for "
                     "a new task), done, or another short word."}},
         required=("text",), hints={"idempotentHint": True}),
    Tool("memory_event", "Record a recent event in hot memory (the last 10 are kept), e.g. 'Released v2.1 on "
         "2026-03-02'.", {"text": _text("The event, with its date when known.", FIELD_MAX)}, required=("text",)),
    Tool("memory_status", "Show this agent's memory status: tier sizes and counts, tree, cold archive, "
         "consolidation runs, sync state, and whether the memoryd daemon runs.", {}, hints={"readOnlyHint": True}),
    Tool("memory_sync", "Push this agent's memory (encrypted) to the cloud now and pull what other devices pushed; "
         "when the server is down the push waits in a queue and is retried.",
         {"force": {"type": "boolean", "default": False, "description": "Push even when nothing changed."}},
         hints={"idempotentHint": True, "openWorldHint": True}),
    Tool("memory_flush", "Ingest a conversation transcript file into memory now, e.g. before the harness compacts "
         "a long session; safe to repeat.",
         {"session": _text("Path of the session transcript file (.jsonl).", 4096)}, required=("session",),
         hints={"idempotentHint": True}),
]
BY_NAME = {t.name: t for t in TOOLS}

_PATTERN_HINTS = {DATE["pattern"]: "must be a day YYYY-MM-DD",
                  BY_NAME["memory_store"].properties["category"]["pattern"]:
                      "must be a path like projects/billing (letters, digits, _ . -; up to 4 levels)"}


def _bad(name: str, why: str) -> ArgumentError:
    return ArgumentError(f"invalid argument {name!r}: {why}")


def _check_number(name: str, value: Any, schema: dict[str, Any]) -> int | float:
    whole = schema["type"] == "integer"
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise _bad(name, f"must be {'an integer' if whole else 'a number'}, got {_show(value)}")
    if whole and value != int(value):
        raise _bad(name, f"must be a whole number, got {_show(value)}")
    low, high = schema.get("minimum", schema.get("exclusiveMinimum")), schema.get("maximum")
    if (low is not None and (value < low or ("exclusiveMinimum" in schema and value == low))) or (
            high is not None and value > high):
        above = "above" if "exclusiveMinimum" in schema else "from"
        raise _bad(name, f"must be {above} {low} to {high}, got {_show(value)}")
    return int(value) if whole else value


def _check_value(name: str, value: Any, schema: dict[str, Any]) -> Any:
    kind = schema["type"]
    if kind in ("integer", "number"):
        return _check_number(name, value, schema)
    if kind == "array":
        if not isinstance(value, list):
            raise _bad(name, f"must be a list, got {_show(value)}")
        if len(value) > schema.get("maxItems", len(value)):
            raise _bad(name, f"has {len(value)} items; the maximum is {schema['maxItems']}")
        return [_check_value(f"{name}[{i}]", v, schema["items"]) for i, v in enumerate(value)]
    if kind == "boolean":
        if not isinstance(value, bool):
            raise _bad(name, f"must be true or false, got {_show(value)}")
        return value
    if not isinstance(value, str):
        raise _bad(name, f"must be a string, got {_show(value)}")
    if "enum" in schema and value not in schema["enum"]:
        raise _bad(name, f"must be one of {', '.join(schema['enum'])}, got {_show(value)}")
    if LONE_SURROGATE.search(value):  # a lone surrogate (\ud800 in the JSON) cannot be stored, nor sent back
        raise _bad(name, "is not valid Unicode text (it holds a lone surrogate)")
    if len(value) > schema.get("maxLength", len(value)):
        raise _bad(name, f"is {len(value)} characters long; the maximum is {schema['maxLength']}")
    if len(value.strip()) < schema.get("minLength", 0):
        raise _bad(name, "must not be empty")
    if "pattern" in schema and not re.search(schema["pattern"], value):
        raise _bad(name, f"{_PATTERN_HINTS.get(schema['pattern'], 'has the wrong form')}, got {_show(value)}")
    return value


def _show(value: Any) -> str:
    text = repr(value) if not isinstance(value, (dict, list)) else type(value).__name__
    return text if len(text) <= 40 else text[:37] + "..."


def check_arguments(tool: Tool, args: Any) -> dict[str, Any]:
    """The arguments checked against the tool's schema, defaults filled in; ArgumentError names the field."""
    if args is None:
        args = {}
    if not isinstance(args, dict):
        raise ArgumentError(f"the arguments of {tool.name} must be a JSON object")
    unknown = sorted(set(args) - set(tool.properties))
    if unknown:
        takes = ", ".join(tool.properties) or "none"
        raise ArgumentError(f"unknown argument {unknown[0]!r} for {tool.name} (it takes: {takes})")
    out: dict[str, Any] = {}
    for name, schema in tool.properties.items():
        if args.get(name) is None:  # null counts as left out
            if name in tool.required:
                raise ArgumentError(f"missing required argument {name!r} for {tool.name}")
            if "default" in schema:
                out[name] = schema["default"]
            continue
        out[name] = _check_value(name, args[name], schema)
    return out


def _date(result: dict[str, Any]) -> str | None:
    """A note's own date when it has one, else the day it was stored (hot items have none)."""
    date = (result.get("metadata") or {}).get("date")
    if isinstance(date, str):
        return date
    stamp = result.get("created_at")
    return time.strftime("%Y-%m-%d", time.gmtime(stamp)) if isinstance(stamp, (int, float)) else None


def _removed(removed: dict[str, int]) -> str:
    parts = [f"{n} from {tier}" for tier, n in removed.items() if n]
    return ", ".join(parts) or "nothing"


class Tools:
    """The tools of one server, scoped to one agent."""

    def __init__(self, api: MemoryApi, agent_id: str) -> None:
        self.api, self.agent_id = api, agent_id
        self._handlers: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
            "memory_search": self._search, "memory_store": self._store, "memory_forget": self._forget,
            "memory_forget_recent": self._forget_recent, "memory_hot": lambda a: self.hot_show(),
            "memory_lesson": lambda a: self._hot("lesson", a), "memory_task": lambda a: self._hot("task", a),
            "memory_event": lambda a: self._hot("event", a),
            "memory_status": lambda a: {"daemon": None, **self.api.status(agent_id=self.agent_id)},
            "memory_sync": lambda a: self.api.sync(agent_id=self.agent_id, force=a["force"]),
            "memory_flush": self._flush, "memory_review": self._review,
        }

    def call(self, name: str, arguments: Any) -> dict[str, Any]:
        tool = BY_NAME.get(name)
        if name == REFUSED_TOOL and isinstance(arguments, dict):  # a call mcp_lines could not pass on
            raise UsageError(str(arguments.get("reason", "request refused")))
        if tool is None:
            raise UnknownTool(f"unknown tool {name!r}; this server has {', '.join(BY_NAME)}")
        return self._handlers[name](check_arguments(tool, arguments))

    def hot_show(self) -> dict[str, Any]:
        return self.api.hot_show(agent_id=self.agent_id)

    def tree_show(self) -> dict[str, Any]:
        return self.api.tree_show(agent_id=self.agent_id)

    def _search(self, a: dict[str, Any]) -> dict[str, Any]:
        query = (a.get("query") or "").strip()
        if not query and not any(a.get(k) for k in ("since", "until", "entity", "kind")):
            raise _bad("query", "give words to search for, or a filter (since, until, entity, kind)")
        if a.get("since") and a.get("until") and a["since"] > a["until"]:
            raise _bad("since", f"{a['since']} is after until {a['until']}")
        data = self.api.retrieve(agent_id=self.agent_id, query=query, limit=a["limit"], since=a.get("since"),
                                 until=a.get("until"), entity=a.get("entity"), kind=a.get("kind"),
                                 history=a.get("history", False))
        results = [{"rank": i, "id": r["id"], "tier": r["tier"], "date": _date(r), "category": r.get("category"),
                    "text": r["text"], "reason": r.get("reason"), "score": round(float(r.get("score") or 0), 4),
                    "kind": r.get("kind", "fact"),
                    **{k: r[k] for k in ("confidence", "superseded_by") if r.get(k) is not None}}
                   for i, r in enumerate(data["results"], 1)]
        return {"results": results, "warnings": data.get("warnings") or []}

    def _store(self, a: dict[str, Any]) -> dict[str, Any]:
        entry = self.api.store(agent_id=self.agent_id, text=a["text"], category=a["category"],
                               importance=a.get("importance"), kind=a.get("kind"), confidence=a.get("confidence"),
                               supersedes=a.get("supersedes"))
        if entry.get("merged"):
            summary = f"restates {entry['id']} in {entry['category']}: merged into it"
        else:
            summary = f"stored {entry['id']} in {entry['category']}"
        if entry.get("superseded"):
            summary += f"; it replaces {', '.join(entry['superseded'])}"
        return {"summary": summary, "entry": entry, "closest": self._closest(a["text"], entry["id"])}

    def _closest(self, text: str, stored: str) -> list[dict[str, Any]]:
        """The memories nearest to what was stored (the retrieve the CLI uses), so the agent can decide what the
        new one replaces."""
        try:
            found = self.api.retrieve(agent_id=self.agent_id, query=text[:1000], limit=CLOSEST + 1)["results"]
        except MemorydError:  # the store is done: a failed lookup must not make it look failed
            return []
        return [{"id": r["id"], "text": r["text"], "date": _date(r), "kind": r.get("kind", "fact"),
                 **({"superseded_by": r["superseded_by"]} if r.get("superseded_by") else {})}
                for r in found if r["id"] != stored and r.get("tier") != "hot"][:CLOSEST]

    def _review(self, a: dict[str, Any]) -> dict[str, Any]:
        if a["action"] == "list":
            return self.api.review_list(agent_id=self.agent_id)
        if not a.get("id"):
            raise _bad("id", f"give the id of the question to {a['action']}")
        if a["action"] == "undo":
            return self.api.review_undo(agent_id=self.agent_id, question_id=a["id"].strip())
        return self.api.review_resolve(agent_id=self.agent_id, question_id=a["id"].strip(), action=a["action"])

    def _forget(self, a: dict[str, Any]) -> dict[str, Any]:
        result = self.api.forget(agent_id=self.agent_id, memory_id=a["id"].strip())
        cloud = (result.get("sync") or {}).get("status", "not synced")
        return dict(result, summary=f"forgot {result['id']}: {_removed(result['removed'])}; cloud copy: {cloud}")

    def _forget_recent(self, a: dict[str, Any]) -> dict[str, Any]:
        result = self.api.forget(agent_id=self.agent_id, days=a["days"])
        cloud = (result.get("sync") or {}).get("status", "not synced")
        return dict(result, summary=f"forgot {len(result.get('ids') or [])} memories from the last {a['days']:g} "
                                    f"days: {_removed(result['removed'])}; cloud copy: {cloud}")

    def _hot(self, kind: str, a: dict[str, Any]) -> dict[str, Any]:
        result = self.api.hot_change(agent_id=self.agent_id, kind=kind, **a)
        return dict(result, summary=f"{kind} {result['item'].get('id', '')} is in hot memory")

    def _flush(self, a: dict[str, Any]) -> dict[str, Any]:
        from pathlib import Path

        session = str(Path(a["session"]).expanduser().absolute())  # the daemon's working dir is not ours
        try:
            return self.api.flush(agent_id=self.agent_id, session=session)
        except UnknownOperationError:  # a daemon hosting this session from an older install
            raise UsageError("flush is not available in this version") from None
