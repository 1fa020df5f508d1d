"""The maintain pass: one current truth re-derived over every memory (warm and the local index) with the same rule
as a store (tiers/knowledge/change.py), so that devices that stored an old and a new value apart end with the same
answer whatever the order things arrived in, and a home whose earlier rules superseded memories wrongly is repaired.

For each memory whose words say which value it replaces ("from X to Y", "no longer X", "从X换成Y" …), every
earlier memory stating X about the same thing gets superseded_by = the newest such memory, which gets
supersedes = their ids. A superseded_by the rule does not give is cleared — unless a person or the agent set it
(`store --supersedes`, a review's answer: metadata superseded_how), or it points at a memory no longer held.
Pure function of the memories: running it twice changes nothing. `budget` bounds the memories written per run;
the counts say how many were left for the next run.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from memoryd.tiers.base.errors import MemorydError
from memoryd.tiers.knowledge import back_again, change, hot_truth, kinds, log, moved_day, review
from memoryd.tiers.knowledge.change_value import names_value
from memoryd.tiers.knowledge.truth import judged, moment
from memoryd.tiers.retrieval import analyzer

if TYPE_CHECKING:
    from memoryd.tiers.base.ports import LLM
    from memoryd.tiers.memory.agent import AgentMemory
    from memoryd.tiers.memory.types import AgentState

Memory = dict[str, Any]
BY_HAND = ("agent", "review", "llm")  # superseded_how values the rules never undo
KEYS_PER_PASS = 2000  # index rows written before restatement keys (local index v4) given theirs, a pass at a time
COMMON_VALUE = 100  # memories a replaced value may be found in before the cue is read as too vague to act on


def _by_term(memories: list[Memory]) -> tuple[dict[str, list[Memory]], dict[str, set[str]]]:
    """term → memories holding it, and id → its terms (what a memory says, without its speaker's label)."""
    index: dict[str, list[Memory]] = {}
    terms: dict[str, set[str]] = {}
    for m in memories:
        terms[m["id"]] = set(analyzer.terms(change.spoken(m["text"])))
        for t in terms[m["id"]]:
            index.setdefault(t, []).append(m)
    return index, terms


Targets = dict[str, tuple[Memory, str, str, str]]


def rule_targets(memories: list[Memory]) -> dict[bool, Targets]:
    """{acting: {old id: (the newest memory whose words replace it, WHOLE or PART, the clause that says so, the
    rule)}}: by the rules that act (True) and by those that only ask (False), in one pass over the memories."""
    judged_ones = [m for m in memories if judged(m)]
    index, said = _by_term(judged_ones)
    order = {m["id"]: (moment(m), m.get("created_at", 0)) for m in judged_ones}  # truth.said_no_later's key
    out: dict[bool, Targets] = {True: {}, False: {}}
    for new in judged_ones:
        near: dict[str, Memory] = {}
        for terms, anchors in change.lookups(new["text"]):
            rarest = min((index.get(t, []) for t in terms), key=len)
            if len(rarest) > COMMON_VALUE * 10:
                continue
            found = [m for m in rarest if said[m["id"]].issuperset(terms) and said[m["id"]] & anchors]
            if len(found) <= COMMON_VALUE:  # a "value" hundreds of memories state is no value of one thing
                near.update((m["id"], m) for m in found)
        earlier = lambda a, b: order[a["id"]] <= order[b["id"]]  # noqa: E731
        found = [(old, cue.act, how, f"{cue.old!r} → {cue.new or '(another value)'!r}: said in {cue.clause!r}",
                  cue.rule) for old, cue, how in change.replaced(new, near.values(), earlier)]
        found += [(old, moved_day.acts(new, old), change.PART, why, moved_day.RULE)
                  for old, why in _moved_day(new, index, earlier, {o["id"] for o, *_ in found})]
        for old, act, how, why, rule in found:
            mine = out[act]
            held = mine.get(old["id"])
            if held is None or (order[new["id"]], new["id"]) > (order[held[0]["id"]], held[0]["id"]):
                mine[old["id"]] = (new, how, why, rule)
    _back_again(out[True], {m["id"]: m for m in judged_ones}, index, lambda a, b: order[a["id"]] < order[b["id"]])
    for mine in out.values():
        for old_id, (new, *_rest) in list(mine.items()):  # two statements replacing each other at once: neither
            back = mine.get(new["id"])
            if back is not None and back[0]["id"] == old_id:
                mine.pop(old_id, None)
                mine.pop(new["id"], None)
    return out


def _back_again(acting: Targets, by_id: dict[str, Memory], index: dict[str, list[Memory]],
                after: Callable[[Memory, Memory], bool]) -> None:
    """A memory whose replacement was itself replaced by a change back to the value it states (`… from <A> to
    <B>`, later `… back from <B> to <A>`, or `back on <A>`, 换回<A>: back_again.py) is current again: it states
    what is true now."""
    chains = dict(acting)  # read as found: what one step takes out does not change another's reading

    def holding(value: str) -> list[Memory]:
        terms = analyzer.terms(value)
        return min((index.get(t, []) for t in terms), key=len) if terms else []

    for old_id, (new, *_rest) in chains.items():
        later = chains.get(new["id"])
        old = by_id.get(old_id)
        if old is None:
            continue
        said = change.spoken(str(old.get("text", "")))
        back = change.cues(str(later[0].get("text", ""))) if later is not None else []
        if any(c.act and c.new and names_value(said, c.new) for c in back) or \
                back_again.restored(old, new, holding, after):
            acting.pop(old_id)


def _moved_day(new: Memory, index: dict[str, list[Memory]], earlier: Any, taken: set[str]) -> list[tuple[Memory, str]]:
    """The memories whose day `new` says moved (tiers/knowledge/moved_day.py), with why; none a cue already took."""
    day = moved_day.moved_to(new, moment)
    if day is None:
        return []
    seen: dict[str, tuple[Memory, int]] = {}  # memories sharing terms of the thing, and how many
    for t in moved_day.thing_terms(new["text"]):
        for m in index.get(t, ()) if len(index.get(t, ())) <= COMMON_VALUE * 10 else ():
            seen[m["id"]] = (m, seen.get(m["id"], (m, 0))[1] + 1)
    near = [m for mid, (m, n) in seen.items() if n >= moved_day.SHARED_TERMS and mid not in taken]
    return [(m, moved_day.why(new, day)) for m in moved_day.updated(new, day, near, earlier, moment)]


def asked(memories: list[Memory], targets: dict[bool, Targets] | None = None) -> list[dict[str, Any]]:
    """Review questions for the pairs a rule that only asks found ("instead of X", "no longer X", "不再X": cues
    whose precision on the corpus's test half is below what acting needs): the person or the agent decides."""
    targets = rule_targets(memories) if targets is None else targets
    out = []
    for old_id, (new, _how, why, rule) in sorted(targets[False].items()):
        q = review.question("same_thing", [old_id, new["id"]], f"{why} ({rule}: a rule that asks, not acts)", 0)
        q["created_at"] = None
        out.append(q)
    return out


def derive(memories: list[Memory], llm: LLM | None = None, targets: dict[bool, Targets] | None = None
           ) -> tuple[dict[str, dict[str, Any]], list[dict[str, Any]]]:
    """{id: {metadata key: new value (None: remove)}} that make `memories` hold the rule's one current truth, and
    the knowledge-log rows saying why. Pure."""
    rule = (rule_targets(memories) if targets is None else targets)[True]
    held = {m["id"] for m in memories if kinds.kind_of(m.get("metadata")) != kinds.SUMMARY}  # none supersedes
    hand = {m["id"]: (m.get("metadata") or {}).get(kinds.SUPERSEDED_BY_KEY) for m in memories
            if (m.get("metadata") or {}).get(kinds.SUPERSEDED_HOW_KEY) in BY_HAND}  # old id → the id a person chose
    supersedes: dict[str, list[str]] = {}
    for old, (new, how, _, _) in rule.items():
        if how == change.WHOLE:
            supersedes.setdefault(new["id"], []).append(old)
    wanted: dict[str, dict[str, Any]] = {}
    rows: list[dict[str, Any]] = []
    for m in memories:
        meta = m.get("metadata") or {}
        want: dict[str, Any] = {}
        new, how, why, which = rule.get(m["id"], (None, "", "", ""))
        have = meta.get(kinds.SUPERSEDED_BY_KEY)
        target = have if m["id"] in hand and have in held else (new["id"] if new and how == change.WHOLE else None)
        if have != target:
            want[kinds.SUPERSEDED_BY_KEY] = target
            rows.append(log.row("supersede", m["id"], why, m["text"], by=target, maintain=True) if target
                        else log.row("current", m["id"], "no rule says a later memory replaces it", m["text"],
                                     was=have, maintain=True))
        part = new["id"] if new and how == change.PART else None
        if meta.get(kinds.UPDATED_BY_KEY) != part:
            want[kinds.UPDATED_BY_KEY] = part
            if part:
                rows.append(log.row("update", m["id"], why, m["text"], by=part, maintain=True))
        mine = sorted(set(supersedes.get(m["id"], [])) | {i for i in meta.get(kinds.SUPERSEDES_KEY) or []
                                                          if i in hand and hand[i] == m["id"]})
        if sorted(meta.get(kinds.SUPERSEDES_KEY) or []) != mine:
            want[kinds.SUPERSEDES_KEY] = mine or None
        if (new is not None or m["id"] not in hand) and meta.get(kinds.CHANGE_RULE_KEY) != (which or None):
            want[kinds.CHANGE_RULE_KEY] = which or None
        if want:
            wanted[m["id"]] = want
    return wanted, rows


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
    counts = {"examined": 0, "superseded": 0, "cleared": 0, "confirmed": 0, "written": 0, "left": 0,
              "llm_asked": 0, "llm_decided": 0}
    warm = {e["id"]: e for e in mem.snapshot()["warm"]["entries"]}
    cold: dict[str, Memory] = {}
    if mem.archive is not None:
        try:
            cold = {e["id"]: dict(e) for e in mem.archive.iter_entries(mem.agent_id) if e["id"] not in warm}
        except MemorydError as exc:
            mem.warnings.append(f"maintain: local index not read: {exc.message}")
    everything = list(warm.values()) + list(cold.values())
    counts["examined"] = len(everything)
    targets = rule_targets(everything)  # one pass: what acts (derive) and what only asks (review questions)
    wanted, rows = derive(everything, llm, targets)
    review.add_questions(mem, asked(everything, targets) + review.questions_from(everything))  # no rule decides
    if llm is not None:
        from memoryd.tiers.knowledge.llm_review import decide

        counts |= decide(mem, llm)  # the LLM answers what it can of them, in bounded batches
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
            counts["superseded"] += bool(want.get(kinds.SUPERSEDED_BY_KEY) or want.get(kinds.UPDATED_BY_KEY))
            counts["cleared"] += kinds.SUPERSEDED_BY_KEY in want and not want[kinds.SUPERSEDED_BY_KEY]
            counts["confirmed"] += want.get(kinds.KIND_KEY) == kinds.FACT
        counts["written"] = len(done)
        mem.record_knowledge([r for r in rows if r["id"] in done], now)
        replaced = [apply(m, wanted[m["id"]]) for m in everything if m["id"] in done]
        if any((m["metadata"] or {}).get(kinds.SUPERSEDED_BY_KEY) for m in replaced):
            def out_of_hot(st: AgentState, at: float) -> list[Any]:
                return hot_truth.sweep(st["hot"], replaced)
            swept = mem.change(out_of_hot, "maintain")  # hot never holds a replaced value
            if swept:
                mem.record_evictions([dict(e, reason="maintain") for e in swept], now)
        counts["keyed"] = _key_old_rows(mem, cold, said, done)
    return counts


def _key_old_rows(mem: AgentMemory, cold: dict[str, Memory], said: dict[str, str], done: set[str]) -> int:
    """Index rows stored before restatement keys existed get theirs (under the lock, as their text still is), so a
    store that says them again merges by a key lookup as it does for newer rows."""
    from memoryd.tiers.knowledge.restate import restate_key

    todo = [mid for mid, m in cold.items() if mid not in done
            and not (m.get("metadata") or {}).get(kinds.RESTATE_KEY)][:KEYS_PER_PASS]
    if not todo or mem.archive is None:
        return 0
    rows = []
    for e in mem.archive.get(mem.agent_id, todo):
        if e["text"] == said.get(e["id"]):
            meta = dict(e.get("metadata") or {}, **{kinds.RESTATE_KEY: restate_key(e["text"])})
            rows.append({k: v for k, v in e.items() if k not in ("day", "tier")} | {"metadata": meta})
    if rows:
        mem.archive.put(mem.agent_id, rows)
    return len(rows)
