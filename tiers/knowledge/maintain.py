"""The maintain pass: one current truth re-derived over every memory (warm and the local index), so that devices
that stored an old and a new value apart end with the same answer whatever the order things arrived in.

For each thing the claim grammar keys (tiers/knowledge/claims.py, grouped by tiers/knowledge/things.py; twins:
tiers/knowledge/twins.py; opinions and summaries move by confidence and sealing, not here), the newest memory
(tiers/knowledge/truth.newer: its own date, then created_at, then id) is current; every memory of that thing with
another value gets superseded_by = its id, and it gets supersedes = their ids. A belief holding the current value becomes a
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
from memoryd.tiers.knowledge.claims import MANY_VALUED
from memoryd.tiers.knowledge.subject import Claim
from memoryd.tiers.knowledge.things import of_memories, other_families
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
    stating = [m for m in memories  # a summary holds many things; an opinion moves by confidence, not here
               if kinds.kind_of(m.get("metadata")) not in (kinds.SUMMARY, kinds.OPINION)]
    by_id = {m["id"]: m for m in stating}
    things = of_memories(stating)
    groups: dict[str, list[tuple[Memory, Claim]]] = {}
    for ids in things.groups().values():
        first = things.statements[min(ids)]
        if first.rel in MANY_VALUED.values():
            continue  # "X uses A", later "X uses B": both stay true
        key = first.words if first.words not in groups else f"{first.words} \x00{len(groups)}"  # unique, never close
        groups[key] = [(by_id[i], Claim(key, things.statements[i].value, things.statements[i].words))
                       for i in sorted(ids)]
    for template, ids in sorted(twin_groups((m for m in stating if m["id"] not in things.statements), moment).items()):
        groups[f"twin: {template}"] = [(by_id[i], _twin_claim(by_id[i]["text"])) for i in ids]
    if llm is not None:
        groups = join_close_subjects(groups, llm)
    held = {m["id"] for m in memories if kinds.kind_of(m.get("metadata")) != kinds.SUMMARY}  # none supersedes
    wanted: dict[str, dict[str, Any]] = {}
    rows: list[dict[str, Any]] = []
    for key, members in sorted(groups.items()):
        top, top_claim = members[0]
        for m, claim in members[1:]:
            if newer(m, top):
                top, top_claim = m, claim
        older = sorted(m["id"] for m, c in members
                       if c.value != top_claim.value and not other_families(c.value, top_claim.value))
        for m, claim in members:
            meta = m.get("metadata") or {}
            want: dict[str, Any] = {}
            target = top["id"] if claim.value != top_claim.value and \
                not other_families(claim.value, top_claim.value) else None
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
    Returns counts: examined, superseded, cleared, confirmed, written (warm + cold), left (over budget).

    The derivation reads every memory and runs outside the agent's lock (a store or retrieve never waits for
    it); the writes take the lock and apply only to memories whose text is still the one derived from."""
    counts = {"examined": 0, "superseded": 0, "cleared": 0, "confirmed": 0, "written": 0, "left": 0}
    warm = {e["id"]: e for e in mem.snapshot()["warm"]["entries"]}
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
    said = {m["id"]: m["text"] for m in everything}
    cold_ids, warm_ids = [mid for mid in todo if mid in cold], {mid for mid in todo if mid in warm}
    with mem.exclusive():
        now = mem.clock()
        held = mem.archive.get(mem.agent_id, cold_ids) if cold_ids and mem.archive is not None else []
        cold_rows = [{k: v for k, v in apply(e, wanted[e["id"]]).items() if k not in ("day", "tier")}
                     for e in held if e["text"] == said[e["id"]]]  # changed since (a pull): the next pass judges it
        if cold_rows:
            mem.archive.put(mem.agent_id, cold_rows)  # type: ignore[union-attr]
        warm_done: list[str] = []
        if warm_ids:
            def change(st: AgentState, at: float) -> None:
                for e in st["warm"]["entries"]:
                    if e["id"] in warm_ids and e["text"] == said[e["id"]]:
                        e["metadata"] = apply(e, wanted[e["id"]])["metadata"]
                        warm_done.append(e["id"])
            mem.change(change, "maintain")
        done = {r["id"] for r in cold_rows} | set(warm_done)
        for mid in done:
            want = wanted[mid]
            counts["superseded"] += bool(want.get(kinds.SUPERSEDED_BY_KEY))
            counts["cleared"] += kinds.SUPERSEDED_BY_KEY in want and not want[kinds.SUPERSEDED_BY_KEY]
            counts["confirmed"] += want.get(kinds.KIND_KEY) == kinds.FACT
        counts["written"] = len(done)
        mem.record_knowledge([r for r in rows if r["id"] in done], now)
    return counts
