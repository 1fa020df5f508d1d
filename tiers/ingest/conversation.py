"""Conversation-end distillation: a closed segment's turns go to cold verbatim; what is worth keeping to warm/hot.

Every turn becomes a cold entry (searchable, with session id, role, time and seq as provenance);
its id comes from the session and the words, so the same turn arriving twice — from the session
store and from a session note, or after a crash — is one entry. The distiller (rule mode, or LLM
mode when configured) picks decisions, preferences, personal facts, lessons and dated commitments
for warm, each with an importance; explicit ones also update hot through the same functions as
`memoryd hot …` (a task → hot task, a dated event → hot event, a lesson → hot lesson, a
preference → owner profile). Warm facts are marked as already placed in hot, so consolidation
never turns a task or a preference into a "critical lesson".
"""
from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any, Sequence

from memoryd.tiers.base.errors import MemorydError
from memoryd.tiers.distillation.fact_rules import Fact, extract
from memoryd.tiers.ingest.hot_updates import hot_changes
from memoryd.tiers.memory.model import content_id, without_controls
from memoryd.tiers.ingest.openclaw.events import Turn
from memoryd.tiers.base.ports import LLM

if TYPE_CHECKING:
    from memoryd.tiers.memory.agent import AgentMemory

COLD_IMPORTANCE = {"user": 0.4, "assistant": 0.3, "summary": 0.3}
CHUNK_BYTES = 4000


def turn_id(session_id: str, role: str, text: str, part: int = 0) -> str:
    """The cold id of a turn: the same words in the same session are the same memory."""
    return content_id("turn", session_id, role, text, str(part))


def cold_entries(turns: Sequence[Turn], source: str) -> list[dict[str, Any]]:
    """Cold entries for `turns` (secrets redacted, long turns in ≤ 4 KB parts), ready for Archive.put."""
    from memoryd.tiers.distillation.redact import redact
    from memoryd.tiers.ingest.note_parse import split_long

    from memoryd.tiers.knowledge.classify import typed_metadata
    from memoryd.tiers.knowledge.lowvalue import is_low_value

    out: dict[str, dict[str, Any]] = {}
    for t in turns:
        if is_low_value(t.text, t.role):
            continue  # "Thanks!", "Sounds good": kept neither raw nor as a fact (tiers/knowledge/lowvalue.py)
        text, _ = redact(t.text)
        parts = split_long(text, CHUNK_BYTES)
        for i, part in enumerate(parts):
            meta = {"source": t.where or f"{source}:{t.session_id}#{t.seq}", "session_id": t.session_id, "role": t.role,
                    "time": t.iso, "seq": t.seq, "date": t.date, "kind": "turn"}
            if len(parts) > 1:
                meta["part"] = i + 1
            if t.tools:
                meta["tools"] = t.tools[:20]
            typed_metadata(part, meta)
            eid = turn_id(t.session_id, t.role, t.text, i)
            out[eid] = {"id": eid, "text": part, "category": f"conversations/{t.role}",
                        "importance": COLD_IMPORTANCE.get(t.role, 0.3), "created_at": t.time, "access_count": 0,
                        "last_access": None, "metadata": meta}
    return list(out.values())


def rule_facts(turns: Sequence[Turn]) -> list[tuple[Turn, Fact]]:
    """What the owner said that is worth keeping (assistant turns restate; they stay in cold)."""
    from memoryd.tiers.knowledge.lowvalue import is_low_value

    out: list[tuple[Turn, Fact]] = []
    seen: set[str] = set()
    for t in turns:
        if t.role != "user" or is_low_value(t.text):
            continue
        for fact in extract(t.text, t.date):
            key = " ".join(fact.text.casefold().split())
            if key not in seen:
                seen.add(key)
                out.append((t, fact))
    return out


def distill_turns(turns: Sequence[Turn], llm: LLM | None = None) -> tuple[list[tuple[Turn, Fact]], list[str]]:
    """(facts with the turn each came from, warnings): LLM mode when `llm` is given, rule mode otherwise."""
    if llm is None:
        return rule_facts(turns), []
    from memoryd.tiers.ingest.conversation_llm import llm_facts

    from memoryd.tiers.knowledge.lowvalue import is_low_value

    try:
        return [(t, f) for t, f in llm_facts(turns, llm) if not is_low_value(f.text)], []
    except (MemorydError, ValueError) as exc:
        reason = exc.message if isinstance(exc, MemorydError) else f"unusable answer ({exc})"
        return rule_facts(turns), [f"LLM distillation failed: {reason}; used rule mode"]


def _warm_item(turn: Turn, fact: Fact, source: str) -> tuple[str, str, float, dict[str, Any]]:
    from memoryd.tiers.distillation.importance import rule_importance

    importance = max(fact.importance, rule_importance(fact.text, fact.category)[0])
    meta = {"source": turn.where or f"{source}:{turn.session_id}#{turn.seq}", "session_id": turn.session_id, "role": turn.role,
            "time": turn.iso, "seq": turn.seq, "date": turn.date, "kind": fact.kind,
            "promoted": True}  # hot is updated below where the fact is explicit; never a lesson by score
    if fact.about:
        meta["about"] = fact.about
    return fact.text, fact.category, round(min(1.0, importance), 3), meta


def source_turns(facts: Sequence[tuple[Turn, Fact]], items: list[tuple[str, str, float, dict[str, Any]]]) -> None:
    """A fact that restates the turn it was distilled from names the turn among its sources: the two are one
    memory (tiers/knowledge/restate.py decides), and retrieval folds the raw turn into the fact. The turn
    stays in cold, verbatim, as the record of what was said."""
    from memoryd.tiers.knowledge.restate import restates

    for (turn, fact), (_text, _cat, _imp, meta) in zip(facts, items):
        if len(turn.text.encode("utf-8")) <= CHUNK_BYTES and restates(turn.text, fact.text):
            tid = turn_id(turn.session_id, turn.role, turn.text)
            meta.setdefault("sources", []).append({"source": meta["source"], "id": tid, "at": int(turn.time)})


def distill_segment(mem: AgentMemory, turns: Sequence[Turn], source: str = "openclaw",
                    llm: LLM | None = None) -> dict[str, Any]:
    """Archive a closed segment's turns in cold, then its facts in warm and hot (see distill_segments)."""
    return distill_segments(mem, [list(turns)], source, llm)


def distill_segments(mem: AgentMemory, segments: Sequence[Sequence[Turn]], source: str = "openclaw",
                     llm: LLM | None = None) -> dict[str, Any]:
    """Closed segments → cold (one put), warm (one store) and hot (one change). Idempotent by content ids.

    Each segment is distilled on its own (one LLM prompt per segment); the writes are batched.
    Raises ArchiveError/RemoteError when cold cannot take the turns: the caller keeps its cursor
    and tries again later (nothing reached warm or hot yet).
    """
    # what was said may hold escapes or NULs (tool output): stored as spaces, where a typed store is refused
    segments = [[replace(t, text=without_controls(t.text)) for t in seg] for seg in segments]
    turns = [t for seg in segments for t in seg]
    report: dict[str, Any] = {"turns": len(turns), "cold": 0, "warm": 0, "hot": [], "warnings": []}
    if not turns:
        return report
    facts: list[tuple[Turn, Fact]] = []
    for seg in segments:
        found, warnings = distill_turns(seg, llm)
        facts += found
        report["warnings"] += warnings
    items = [_warm_item(t, f, source) for t, f in facts]
    entries = cold_entries(turns, source)
    report["filler"] = len({(t.session_id, t.seq) for t in turns}) - len({(e["metadata"]["session_id"],
                                                                          e["metadata"]["seq"]) for e in entries})
    source_turns(facts, items)
    if mem.archive is not None:
        mem.archive.put(mem.agent_id, entries)
        report["cold"] = len(entries)
    else:
        report["warnings"].append("no cold archive open: turns not archived")
    with mem.exclusive():
        if facts:
            stored = mem.store_many(items)
            report["warm"] = sum(1 for e in stored if e.get("created"))
            report["hot"] = mem.change(hot_changes([f for _, f in facts], owners=[t.role == "user" for t, _ in facts],
                                                   sources=[e["id"] for e in stored]), "conversation")
    return report
