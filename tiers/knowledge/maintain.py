"""The maintain pass: one current truth re-derived over every memory (warm and the local index), so that devices
that stored an old and a new value apart end with the same answer whatever the order things arrived in.

For each thing the rules key (tiers/knowledge/subject.py, and twins: tiers/knowledge/twins.py), the newest memory (tiers/knowledge/truth.newer: its
own date, then created_at, then id) is current; every memory of that thing with another value gets
superseded_by = its id, and it gets supersedes = their ids. A belief holding the current value becomes a
fact (confirm). A superseded_by that points at a memory no longer held is cleared. The LLM, when given,
is asked about subjects the rules find close but not equal ("garage code" / "garage door code"),
at most LLM_QUESTIONS a run. Pure function of the memories: running it twice changes nothing.
`budget` bounds the memories written per run; the counts say how many were left for the next run.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memoryd.tiers.base.errors import MemorydError
from memoryd.tiers.knowledge import kinds, log
from memoryd.tiers.knowledge.same_thing import LLM_QUESTIONS, join_close_subjects
from memoryd.tiers.knowledge.subject import Claim, claim_of
from memoryd.tiers.knowledge.truth import moment, newer
from memoryd.tiers.knowledge.twins import twin_groups, twin_key

if TYPE_CHECKING:
    from memoryd.tiers.base.ports import LLM
    from memoryd.tiers.memory.agent import AgentMemory
    from memoryd.tiers.memory.types import AgentState

Memory = dict[str, Any]


def derive(memories: list[Memory], llm: LLM | None = None) -> tuple[dict[str, dict[str, Any]], list[dict[str, Any]]]:
    """{id: {metadata key: new value (None: remove)}} that make `memories` hold one current truth per thing, and
    the knowledge-log rows saying why. Pure (apart from the LLM's answers)."""
    claims: dict[str, tuple[Memory, Claim]] = {}
    stating = [m for m in memories if kinds.kind_of(m.get("metadata")) != kinds.SUMMARY]  # a summary holds many
    for m in stating:
        claim = claim_of(m["text"])
        if claim is not None:
            claims[m["id"]] = (m, claim)
    by_id = {m["id"]: m for m in stating}
    for ids in twin_groups((m for m in stating if m["id"] not in claims), moment).values():
        for mid in ids:
            claims[mid] = (by_id[mid], _twin_claim(by_id[mid]["text"]))
    groups: dict[str, list[tuple[Memory, Claim]]] = {}
    for m, claim in claims.values():
        groups.setdefault(claim.key, []).append((m, claim))
    if llm is not None:
        groups = join_close_subjects(groups, llm)
    held = {m["id"] for m in stating}  # a superseded_by naming a summary is stale: a summary supersedes nothing
    wanted: dict[str, dict[str, Any]] = {}
    rows: list[dict[str, Any]] = []
    for key, members in sorted(groups.items()):
        top, top_claim = members[0]
        for m, claim in members[1:]:
            if newer(m, top):
                top, top_claim = m, claim
        older = sorted(m["id"] for m, c in members if c.value != top_claim.value)
        for m, claim in members:
            meta = m.get("metadata") or {}
            want: dict[str, Any] = {}
            target = top["id"] if claim.value != top_claim.value else None
            if meta.get(kinds.SUPERSEDED_BY_KEY) != target and (target or _stale(meta, held)):
                want[kinds.SUPERSEDED_BY_KEY] = target
                if target:
                    rows.append(log.row("supersede", m["id"], f"{key}: {claim.value!r} → {top_claim.value!r}",
                                        m["text"], by=target, maintain=True))
            if m is top and older and sorted(meta.get(kinds.SUPERSEDES_KEY) or []) != older:
                want[kinds.SUPERSEDES_KEY] = older
            if target is None and m is not top and kinds.kind_of(meta) == kinds.BELIEF and \
                    kinds.kind_of(top.get("metadata")) == kinds.FACT and newer(top, m):
                want[kinds.KIND_KEY] = kinds.FACT  # the evidence from the data alone: every device writes the same
                want[kinds.EVIDENCE_KEY] = list(meta.get(kinds.EVIDENCE_KEY) or []) + [
                    {"id": top["id"], "delta": 0.0, "at": int(top.get("created_at") or 0), "why": "confirmed by a fact"}]
                rows.append(log.row("confirm", m["id"], "a later fact holds the same value", m["text"], by=top["id"]))
            if want:
                wanted[m["id"]] = want
    grouped = {m["id"] for members in groups.values() for m, _ in members}
    for m in memories:  # superseded by a memory no longer held (or by a summary), and no thing of its own now
        if m["id"] not in grouped and _stale(m.get("metadata") or {}, held):
            wanted[m["id"]] = {kinds.SUPERSEDED_BY_KEY: None}
    return wanted, rows


def _twin_claim(text: str) -> Claim:
    """A twin's template as its thing and its numbers as its value (tiers/knowledge/twins.py)."""
    template, numbers = twin_key(text) or ("", ())
    return Claim(f"twin: {template}", " ".join(numbers), template)


def _stale(meta: dict[str, Any], held: set[str]) -> bool:
    by = meta.get(kinds.SUPERSEDED_BY_KEY)
    return bool(by) and by not in held


def apply(m: Memory, want: dict[str, Any]) -> Memory:
    """The memory with its metadata changed as `derive` wants."""
    meta = dict(m.get("metadata") or {})
    for key, value in want.items():
        if value is None:
            meta.pop(key, None)
        else:
            meta[key] = value
    return dict(m, metadata=meta)


def maintain(mem: AgentMemory, budget: int = 500, llm: LLM | None = None) -> dict[str, int]:
    """Re-derive one current truth over the agent's warm entries and local index (consolidation calls this).
    Returns counts: examined, superseded, cleared, confirmed, written (warm + cold), left (over budget)."""
    counts = {"examined": 0, "superseded": 0, "cleared": 0, "confirmed": 0, "written": 0, "left": 0}
    with mem.exclusive():
        state = mem.snapshot()
        warm = {e["id"]: e for e in state["warm"]["entries"]}
        cold: dict[str, Memory] = {}
        if mem.archive is not None:
            try:
                cold = {e["id"]: dict(e) for e in mem.archive.iter_entries(mem.agent_id) if e["id"] not in warm}
            except MemorydError as exc:
                mem.warnings.append(f"maintain: local index not read: {exc.message}")
        everything = list(warm.values()) + list(cold.values())
        counts["examined"] = len(everything)
        wanted, rows = derive(everything, llm)
        todo = sorted(wanted)[:max(0, budget)]
        counts["left"] = len(wanted) - len(todo)
        now = mem.clock()
        for mid in todo:
            want = wanted[mid]
            counts["superseded"] += bool(want.get(kinds.SUPERSEDED_BY_KEY))
            counts["cleared"] += kinds.SUPERSEDED_BY_KEY in want and not want[kinds.SUPERSEDED_BY_KEY]
            counts["confirmed"] += want.get(kinds.KIND_KEY) == kinds.FACT
        cold_rows = [{k: v for k, v in apply(cold[mid], wanted[mid]).items() if k not in ("day", "tier")}
                     for mid in todo if mid in cold]
        if cold_rows:
            mem.archive.put(mem.agent_id, cold_rows)  # type: ignore[union-attr]
        warm_ids = [mid for mid in todo if mid in warm]
        if warm_ids:
            def change(st: AgentState, at: float) -> None:
                for e in st["warm"]["entries"]:
                    if e["id"] in wanted and e["id"] in warm_ids:
                        e["metadata"] = apply(e, wanted[e["id"]])["metadata"]
            mem.change(change, "maintain")
        counts["written"] = len(cold_rows) + len(warm_ids)
        done = set(todo)
        mem.record_knowledge([r for r in rows if r["id"] in done], now)
    return counts
