"""Sealing: ≥ N cold memories of one session or topic (old, idle, low score) become one L1 summary (L2 from
≥ N L1 summaries); members keep their text, point at the summary (`sealed_in`) and rank behind it; unseal
(or forgetting the summary) gives them back their plain rank and keeps them out of later seals."""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable

from memoryd.tiers.base.errors import MemorydError, UsageError
from memoryd.tiers.knowledge import kinds
from memoryd.tiers.knowledge.log import row as knowledge_row
from memoryd.tiers.base.halt import halt
from memoryd.tiers.knowledge.phase_journal import OnceLog
from memoryd.tiers.memory.model import DAY, content_id, preview, score
from memoryd.tiers.memory.said import said_age_days, said_at

if TYPE_CHECKING:
    from memoryd.tiers.base.ports import LLM, ColdEntry
    from memoryd.tiers.base.settings import KnowledgeSection
    from memoryd.tiers.memory.agent import AgentMemory

UNSEALED_KEY = "unsealed_from"  # a member given back by unseal or a forgotten summary: never sealed again
SESSION_KEYS = ("session_id", "conversation_id")


@dataclass
class Group:
    """Members of one session or topic that one summary will stand for (oldest first)."""

    key: str             # "session:<id>", "topic:<category>", later "entity:<name>"
    level: int           # 1: memories → summary; 2: L1 summaries → summary
    ids: list[str] = field(default_factory=list)

    @property
    def summary_id(self) -> str:
        """The content id of the sorted member ids: sealing the same members again is the same summary."""
        return content_id("summary", *sorted(self.ids))


def group_key(entry: ColdEntry, level: int) -> str:
    meta = entry.get("metadata") or {}
    if level == 1:
        for key in SESSION_KEYS:
            if isinstance(meta.get(key), str) and meta[key]:
                return f"session:{meta[key]}"
    return f"topic:{entry['category']}"


def eligible(entry: ColdEntry, level: int, cutoff: float, now: float, below: float) -> bool:
    """Old and idle enough, gone cold (its score — importance, age, accesses — under `below`), not sealed
    or given back, and of the level's kind. Old counts from when it was said (valid time); idle from its last
    access, if it ever had one (storing an old note today is no access to it)."""
    meta = entry.get("metadata") or {}
    if meta.get(kinds.SEALED_IN_KEY) or meta.get(UNSEALED_KEY):
        return False
    accessed = entry.get("last_access") if entry.get("access_count") else None
    if said_at(entry) > cutoff or (accessed or 0) > cutoff:
        return False
    importance = entry.get("importance")
    if score(0.5 if importance is None else float(importance), said_age_days(entry, now),
             int(entry.get("access_count") or 0)) >= below:
        return False
    is_summary = kinds.kind_of(meta) == kinds.SUMMARY
    if level == 1:
        return not is_summary
    return is_summary and meta.get(kinds.LEVEL_KEY) == 1


@dataclass
class Scan:
    """One pass over the local index: per level, each group key's eligible (said_at, id); and the ids
    of sealed members per summary they point at (to find members of a summary that is gone)."""

    found: dict[int, dict[str, list[tuple[float, str]]]]
    pointing: dict[str, list[str]]
    entity_of: dict[str, str] = field(default_factory=dict)  # memory id → "entity:<key>" of a cold entity


def scan(mem: AgentMemory, settings: KnowledgeSection, now: float) -> Scan:
    assert mem.archive is not None
    cutoff = now - settings.seal_after_days * DAY
    out = Scan({1: {}, 2: {}}, {}, _cold_entity_of(mem, now))
    for entry in mem.archive.iter_entries(mem.agent_id):
        sid = (entry.get("metadata") or {}).get(kinds.SEALED_IN_KEY)
        if sid:
            out.pointing.setdefault(str(sid), []).append(entry["id"])
            continue
        for level in (1, 2):
            if eligible(entry, level, cutoff, now, settings.seal_below_score):
                out.found[level].setdefault(group_key(entry, level), []).append((said_at(entry), entry["id"]))
    return out


def _cold_entity_of(mem: AgentMemory, now: float) -> dict[str, str]:
    """Each memory's cold entity (hotness ≤ 0.1, tiers/knowledge/entities.py), the most mentioned first."""
    from memoryd.tiers.knowledge.entities import cold_entities

    try:
        cold = cold_entities(mem.archive, mem.agent_id, now)  # type: ignore[arg-type]
    except (AttributeError, MemorydError):  # an archive without entity tables: topics and sessions only
        return {}
    out: dict[str, str] = {}
    for entity in sorted(cold, key=lambda e: (-int(e["mentions"]), str(e["key"]))):
        for mid in entity["memory_ids"]:
            out.setdefault(str(mid), f"entity:{entity['key']}")
    return out


def _regroup_by_entity(level1: dict[str, list[tuple[float, str]]], entity_of: dict[str, str], minimum: int) -> None:
    """Seed 000 seals by entity as well as topic: memories of topics too small to seal alone move to the group
    of the cold entity they mention, when that entity gathers enough of them (a topic group never shrinks)."""
    gathered: dict[str, list[tuple[float, str]]] = {}
    for key, items in level1.items():
        if key.startswith("topic:") and len(items) < minimum:
            for item in items:
                if item[1] in entity_of:
                    gathered.setdefault(entity_of[item[1]], []).append(item)
    for entity_key, items in gathered.items():
        if len(items) < minimum:
            continue
        moving = {mid for _, mid in items}
        for key in [k for k in level1 if k.startswith("topic:")]:
            if len(level1[key]) < minimum:
                level1[key] = [item for item in level1[key] if item[1] not in moving]
        level1[entity_key] = items


def find_groups(found: Scan, settings: KnowledgeSection, budget: int) -> list[Group]:
    """Up to `budget` groups, L1 first, in key order, each of seal_min_members..seal_max_members (oldest first)."""
    out: list[Group] = []
    for level in (1, 2):
        if level == 1:
            _regroup_by_entity(found.found[1], found.entity_of, settings.seal_min_members)
        for key in sorted(found.found[level]):
            members = [mid for _, mid in sorted(found.found[level][key])]
            for start in range(0, len(members), settings.seal_max_members):
                chunk = members[start:start + settings.seal_max_members]
                if len(chunk) >= settings.seal_min_members and len(out) < budget:
                    out.append(Group(key, level, chunk))
    return out


def _day(ts: float) -> str:
    return time.strftime("%Y-%m-%d", time.gmtime(ts))


def _stamp(ts: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(ts))


def build_summary(group: Group, members: list[ColdEntry], settings: KnowledgeSection, now: float,
                  llm: LLM | None, warn: Callable[[str], None]) -> dict[str, Any]:
    from memoryd.tiers.knowledge.seal_summary import summarise

    topic = group.key.split(":", 1)[1]
    first, last = _day(said_at(members[0])), _day(said_at(members[-1]))
    head = f"[L{group.level} summary of {len(members)} memories, {first} to {last}, {topic}]"
    text, how = summarise(members, settings.summary_max_bytes, head, topic, llm, warn)
    categories = sorted({m["category"] for m in members}, key=lambda c: (-sum(m["category"] == c for m in members), c))
    importance = max((float(m.get("importance") or 0.5) for m in members), default=0.5)
    meta = {kinds.KIND_KEY: kinds.SUMMARY, kinds.SUMMARISES_KEY: [m["id"] for m in members],
            kinds.LEVEL_KEY: group.level, "source": "seal", "topic": group.key, "how": how, "span": [first, last],
            "date": last, "time": _stamp(said_at(members[-1]))}  # said when its newest member was (valid time)
    return {"id": group.summary_id, "text": text, "category": categories[0], "importance": importance,
            "created_at": int(now), "access_count": 0, "last_access": None, "metadata": meta}


def seal_group(mem: AgentMemory, group: Group, settings: KnowledgeSection, now: float, once: OnceLog,
               llm: LLM | None = None) -> dict[str, Any] | None:
    """Write one summary and point its members at it, in one transaction of the local index; the eviction
    and knowledge logs first (a kill in between logs nothing twice: OnceLog). None if members went away."""
    archive = mem.archive
    assert archive is not None
    members = sorted(archive.get(mem.agent_id, group.ids), key=lambda m: (said_at(m), m["id"]))
    if len(members) != len(group.ids):
        return None  # forgotten since the scan: the next run sees the group as it is
    summary = build_summary(group, members, settings, now, llm, mem.warnings.append)
    sid, topic = summary["id"], group.key
    once.evictions([{"tier": "cold", "kind": "seal", "id": m["id"], "what": preview(m["text"]),
                     "why": f"sealed into summary {sid} ({topic})"} for m in members], now)
    once.knowledge([knowledge_row("seal", sid, f"{len(members)} cold memories of {topic} older than "
                                  f"{settings.seal_after_days:g} days sealed into a level-{group.level} summary",
                                  summary["text"], members=[m["id"] for m in members], level=group.level,
                                  how=summary["metadata"]["how"])], now)
    halt("summarise:logged")
    sealed = [dict(m, metadata=dict(m["metadata"], **{kinds.SEALED_IN_KEY: sid})) for m in members]
    archive.put(mem.agent_id, [summary, *sealed])  # one transaction: the summary and its members, or neither
    return summary


def seal(mem: AgentMemory, now: float, run: str | None = None, llm: LLM | None = None,
         budget: int | None = None) -> dict[str, int]:
    """The summarise phase: seal up to the budget's groups; counts `summaries`, `sealed` (members) and
    `released` (members of a summary that is gone, given back)."""
    settings = mem.config.knowledge
    budget = settings.seal_budget if budget is None else budget
    counts = {"summaries": 0, "sealed": 0, "released": 0}
    if mem.archive is None or budget <= 0:
        return counts
    once = OnceLog(mem, run)
    with mem.exclusive():
        found = scan(mem, settings, now)
        counts["released"] = release_orphans(mem, found.pointing, now, once)
        for group in find_groups(found, settings, budget):
            summary = seal_group(mem, group, settings, now, once, llm)
            if summary is not None:
                counts["summaries"] += 1
                counts["sealed"] += len(group.ids)
    return counts


def release(mem: AgentMemory, summary: ColdEntry, now: float, once: OnceLog, why: str) -> list[str]:
    """Give a summary's members back their plain rank: `sealed_in` dropped, `unsealed_from` set."""
    archive = mem.archive
    assert archive is not None
    sid = summary["id"]
    ids = [str(i) for i in (summary.get("metadata") or {}).get(kinds.SUMMARISES_KEY) or []]
    members = [m for m in archive.get(mem.agent_id, ids) if m["metadata"].get(kinds.SEALED_IN_KEY) == sid]
    once.knowledge([knowledge_row("unseal", sid, why, members=[m["id"] for m in members])], now)
    back = []
    for m in members:
        meta = {k: v for k, v in m["metadata"].items() if k != kinds.SEALED_IN_KEY}
        back.append(dict(m, metadata=dict(meta, **{UNSEALED_KEY: sid})))
    archive.put(mem.agent_id, back)
    return [m["id"] for m in back]


def release_summary(mem: AgentMemory, memory_id: str, now: float) -> list[str]:
    """Before a forget: if `memory_id` is a summary, give its members back (nothing happens otherwise)."""
    archive = mem.archive
    if archive is None:
        return []
    with mem.exclusive():
        found = archive.get(mem.agent_id, [memory_id])
        if not found or kinds.kind_of(found[0]["metadata"]) != kinds.SUMMARY:
            return []
        return release(mem, found[0], now, OnceLog(mem, None), "the summary was forgotten")


def unseal(mem: AgentMemory, summary_id: str) -> dict[str, Any]:
    """`memoryd unseal ID`: members back to plain rank, then the summary forgotten (logged as a forget)."""
    from memoryd.tiers.memory.forget import forget_id

    summary_id = (summary_id or "").strip()
    archive = mem.archive
    with mem.exclusive():
        found = archive.get(mem.agent_id, [summary_id]) if archive is not None and summary_id else []
        if not found or not (found[0]["metadata"].get(kinds.SUMMARISES_KEY)):
            raise UsageError(f"no sealed summary with id {summary_id!r}")
        members = release(mem, found[0], mem.clock(), OnceLog(mem, None), "unsealed by request")
        forget_id(mem, summary_id)
    return {"id": summary_id, "unsealed": members}


def release_orphans(mem: AgentMemory, pointing: dict[str, list[str]], now: float, once: OnceLog) -> int:
    """Members pointing at a summary no longer there (forgotten on another device) are given back too."""
    archive = mem.archive
    assert archive is not None
    if not pointing:
        return 0
    present = {s["id"] for s in archive.get(mem.agent_id, sorted(pointing))}
    back = []
    for sid in sorted(set(pointing) - present):
        members = archive.get(mem.agent_id, pointing[sid])
        once.knowledge([knowledge_row("unseal", sid, "the summary is gone", members=pointing[sid])], now)
        for m in members:
            meta = {k: v for k, v in m["metadata"].items() if k != kinds.SEALED_IN_KEY}
            back.append(dict(m, metadata=dict(meta, **{UNSEALED_KEY: sid})))
    if back:
        archive.put(mem.agent_id, back)
    return len(back)
