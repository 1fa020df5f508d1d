"""The daily digest (seed 000's global tree): one `summary` memory per day across every source — decided, learned, changed, active entities.

Built from the memories said that day (valid time, tiers/memory/said.py: a note's date, a turn's timestamp,
else the day it was stored; warm and the local index: notes, conversations, stores from the CLI and MCP),
the changes said that day (a memory that supersedes another, knowledge-log `supersede` rows whose new value
was said that day) and the entities named that day. A value replaced the same day is a change, not learned.
Summaries (seals, other digests) restate what was said and are left out. Stored under an id fixed by agent and date, so running it again replaces the
day's digest (in warm, or in the local index when it left warm), never adds a second one.
"""
from __future__ import annotations

import datetime as dt
import hashlib
import time
from typing import TYPE_CHECKING, Any, Sequence

from memoryd.tiers.cold.index_rows import COLUMNS, row_entry
from memoryd.tiers.knowledge import entities as ents
from memoryd.tiers.knowledge import hotness, kinds
from memoryd.tiers.memory.said import said_at, said_day

if TYPE_CHECKING:
    from memoryd.tiers.cold.index import LocalIndex
    from memoryd.tiers.memory.agent import AgentMemory

DATE_KEY = "digest_date"
CATEGORY = "digest"
PER_SECTION = 5
ITEM_CHARS = 140
MAX_SUMMARISES = 100
Memory = dict[str, Any]


def digest_id(agent_id: str, date: str) -> str:
    return hashlib.sha256(f"digest\x1f{agent_id}\x1f{date}".encode("utf-8")).hexdigest()[:16]


def source_of(m: Memory) -> str:
    """notes, conversation or stored (the CLI, MCP, an import): where a memory came from."""
    meta = m.get("metadata") or {}
    if meta.get("session_id") or meta.get("role"):
        return "conversation"
    if str(meta.get("source", "")).startswith("memory/"):
        return "notes"
    return "stored"


def _short(text: str) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= ITEM_CHARS else text[:ITEM_CHARS - 1] + "…"


def _of_day(index: LocalIndex, agent_id: str, warm: Sequence[Memory], date: str) -> list[Memory]:
    """The memories said on `date` (the index's `day` is the same said day: cold/index_rows.entry_day)."""
    found = {e["id"]: e for e in warm if said_day(e) == date}
    for row in index.read(f"SELECT {COLUMNS} FROM memories m WHERE m.agent_id = ? AND m.day = ?", [agent_id, date]):
        found.setdefault(row[0], dict(row_entry(row)))
    return sorted((m for m in found.values() if kinds.kind_of(m.get("metadata")) != kinds.SUMMARY),
                  key=lambda m: (said_at(m), m["id"]))


def _changed_that_day(row: Memory, said: set[str], day: int) -> bool:
    """A knowledge-log supersession belongs to the day its new value was said (`by`), or without one, the
    day it was logged."""
    if row.get("kind") != "supersede" or not row.get("what"):
        return False
    if row.get("by"):
        return str(row["by"]) in said
    return isinstance(row.get("ts"), (int, float)) and hotness.day_of(row["ts"]) == day


def _kind(m: Memory) -> str | None:
    """decided / learned, or None for what is neither (assistant turns, chit-chat)."""
    from memoryd.tiers.distillation.fact_rules import classify

    meta = m.get("metadata") or {}
    if meta.get("role") == "assistant":
        return None
    label = meta.get("type") or classify(" ".join(str(m["text"]).split()), False)
    if label == "decision":
        return "decided"
    if label in ("lesson", "preference", "personal") or kinds.kind_of(meta) in (kinds.BELIEF, kinds.OPINION) \
            or meta.get("role") is None:
        return "learned"
    return None


def build(mem: AgentMemory, index: LocalIndex, date: str, knowledge_rows: Sequence[Memory] = ()) -> dict[str, Any]:
    """The digest of `date` (YYYY-MM-DD) as data and text; nothing is written. Entities refreshed first."""
    warm = mem.read_state()["warm"]["entries"]
    ents.refresh(index, mem.agent_id, warm, None, mem.warnings.append)
    day = hotness.day_number(date)
    found = _of_day(index, mem.agent_id, warm, date)
    sections: dict[str, list[str]] = {"decided": [], "learned": [], "changed": []}
    said = {m["id"] for m in found}
    for m in found:
        meta = m.get("metadata") or {}
        k = _kind(m)
        if k and not (k == "learned" and meta.get(kinds.SUPERSEDED_BY_KEY) in said):  # replaced that same day
            sections[k].append(_short(m["text"]))
        if meta.get(kinds.SUPERSEDES_KEY):
            sections["changed"].append(_short(m["text"]))
    for row in knowledge_rows:  # supersessions whose new value was said that day (the log keeps previews only)
        if _changed_that_day(row, said, day):
            sections["changed"].append(_short(f"{row['what']} → superseded ({row.get('why', '')})".strip()))
    sources: dict[str, int] = {}
    for m in found:
        sources[source_of(m)] = sources.get(source_of(m), 0) + 1
    named = ents.entities_of(index, mem.agent_id, [m["id"] for m in found], day * hotness.DAY)
    active: dict[str, Any] = {}
    for rows in named.values():
        for e in rows:
            active[e.key] = e
    top = sorted(active.values(), key=lambda e: (-e.hotness, e.name))[:10]
    data = {"date": date, "memories": len(found), "sources": sources,
            **{k: list(dict.fromkeys(v))[:PER_SECTION] for k, v in sections.items()},
            "entities": [{"name": e.name, "type": e.type, "hotness": round(e.hotness, 4)} for e in top],
            "summarises": [m["id"] for m in found][:MAX_SUMMARISES]}
    data["text"] = render_text(data)
    return data


def render_text(data: dict[str, Any]) -> str:
    """The digest as the memory's text: one line per section that has anything."""
    lines = [f"Daily digest {data['date']}: {data['memories']} memories (" +
             ", ".join(f"{n} {s}" for s, n in sorted(data["sources"].items())) + ")."]
    for key, title in (("decided", "Decided"), ("learned", "Learned"), ("changed", "Changed")):
        if data[key]:
            lines.append(f"{title}: " + "; ".join(data[key]))
    if data["entities"]:
        lines.append("Active: " + ", ".join(e["name"] for e in data["entities"]))
    return "\n".join(lines)


def store(mem: AgentMemory, data: dict[str, Any]) -> dict[str, Any]:
    """Store (or replace) the day's digest as a summary memory; returns the entry."""
    from memoryd.tiers.memory import tree as tree_index
    from memoryd.tiers.memory.warm import new_entry

    mid = digest_id(mem.agent_id, data["date"])
    meta = {kinds.KIND_KEY: kinds.SUMMARY, kinds.LEVEL_KEY: 1, kinds.SUMMARISES_KEY: data["summarises"],
            DATE_KEY: data["date"], "date": data["date"], "source": "digest"}

    def put(state: Any, now: float) -> Memory:
        entries = state["warm"]["entries"]
        old = next((e for e in entries if e["id"] == mid), None)
        cold = mem.archive.get(mem.agent_id, [mid]) if old is None and mem.archive is not None else []
        category, _ = tree_index.file_category(state["tree"], CATEGORY, now) if old is None else (old["category"], None)
        entry = new_entry(data["text"], category if not cold else cold[0]["category"], 0.5, now, meta)
        entry["id"] = mid
        if old is not None:
            old.update(text=entry["text"], metadata=meta)
            return old
        if cold:
            mem.archive_entries([dict(entry, created_at=cold[0]["created_at"])])
            return dict(entry, tier="cold")
        entries.append(entry)
        return entry

    return mem.change(put, "digest")


def parse_date(value: str | None, now: float) -> str:
    """--date: YYYY-MM-DD, `today` or `yesterday` (UTC, on the given clock); UsageError otherwise."""
    from memoryd.tiers.base.errors import UsageError

    today = dt.date.fromisoformat(time.strftime("%Y-%m-%d", time.gmtime(now)))
    if value in (None, "", "today"):
        return today.isoformat()
    if value == "yesterday":
        return (today - dt.timedelta(days=1)).isoformat()
    try:
        return dt.date.fromisoformat(str(value)).isoformat()
    except ValueError:
        raise UsageError(f"invalid date {value!r}: use YYYY-MM-DD, today or yesterday") from None


def latest_lines(warm: Sequence[Memory], max_lines: int = 6) -> list[str]:
    """The newest digest in warm as a few lines (render targets show it as a bounded section)."""
    digests = [e for e in warm if DATE_KEY in (e.get("metadata") or {})]
    if not digests:
        return []
    newest = max(digests, key=lambda e: (e["metadata"][DATE_KEY], e["id"]))
    return [_short(line) for line in str(newest["text"]).splitlines()[:max_lines]]
