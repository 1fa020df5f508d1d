"""What a retrieve returns of the knowledge layer: current memories only (superseded ones with `history`, after
the current), restatements folded into the higher-ranked result, and each result's kind, confidence and
superseded_by.

A memory is superseded when its metadata says so (tiers/knowledge/truth.py at store time, or the maintain
pass), or when another candidate of this retrieve makes a claim on the same thing with another value and is
newer (tiers/knowledge/subject.py): memories pulled from another device are judged before any maintain ran.
"""
from __future__ import annotations

import functools

from typing import Any, Callable, Mapping

from memoryd.tiers.knowledge import kinds
from memoryd.tiers.knowledge.lowvalue import FILLER_EN, is_low_value
from memoryd.tiers.knowledge.mentions import mentions
from memoryd.tiers.knowledge.restate import MENTION, MENTIONED, echo, fold, restates, signature
from memoryd.tiers.knowledge.claims import MANY_VALUED
from memoryd.tiers.knowledge.things import of_memories, other_families, said_twice
from memoryd.tiers.knowledge.twins import same_numbers, twin_groups
from memoryd.tiers.knowledge.truth import moment, newer
from memoryd.tiers.retrieval import analyzer

Candidate = dict[str, Any]
HEADROOM = 2  # ranked results asked for per result returned: folding restatements must not leave a list short


def depth(limit: int) -> int:
    """How many ranked results to ask for so that `limit` remain after folding."""
    return limit * HEADROOM + 5


def superseded_by(cand: Candidate) -> str | None:
    return (cand.get("metadata") or {}).get(kinds.SUPERSEDED_BY_KEY) or cand.get("superseded_by")


def admit(cands: list[Candidate]) -> list[Candidate]:
    """The candidates a retrieve ranks, filler left out. Claims among them, and twins (tiers/knowledge/twins.py),
    mark the older of two values for one thing (`superseded_by` on the candidate, not on the stored memory);
    superseded ones stay, for successors() or `--history` to place."""
    cands = [c for c in cands if not filler(c)]
    pool = [c for c in cands if not superseded_by(c) and judged(c)]
    things = of_memories(pool, said)
    by_id = {c["id"]: c for c in pool}
    for ids in things.groups().values():
        if things.statements[ids[0]].rel not in MANY_VALUED.values():  # "X uses A" and later "X uses B": both true
            value = {i: things.statements[i].value for i in ids}
            _newest_wins([by_id[i] for i in ids], lambda a, b: things.same_value(a["id"], b["id"]),
                         lambda a, b: other_families(value[a["id"]], value[b["id"]]))
    for ids in twin_groups(pool, said_at, said).values():
        _newest_wins([by_id[i] for i in ids if not superseded_by(by_id[i])],
                     lambda a, b: same_numbers(said(a), said(b)))
    return cands


HOPS = 5  # a chain of values (A → B → C) followed this far to its current end


def successors(results: list[Candidate], fetch: Callable[[list[str]], list[Candidate]]) -> list[Candidate]:
    """Ranked results with each superseded one replaced by the memory holding its thing's current value, at its
    place (unless that memory ranks higher already): the words found the old value, the answer is the new one.
    `fetch(ids)` gives candidates for memories not among the results (warm entries, index rows)."""
    if not any(superseded_by(r) for r in results):
        return results
    by_id = {r["id"]: r for r in results}
    for _ in range(HOPS):
        wanted = sorted({str(superseded_by(r)) for r in by_id.values() if superseded_by(r)} - set(by_id))
        if not wanted:
            break
        for c in fetch(wanted):
            by_id.setdefault(c["id"], c)
    out: list[Candidate] = []
    placed: set[str] = set()
    for r in results:
        head = r
        for _ in range(HOPS):
            nxt = superseded_by(head)
            if not nxt or nxt not in by_id:
                break
            head = by_id[nxt]
        if superseded_by(head) or head["id"] in placed:
            continue  # no current end held, or it ranks higher already
        if head is not r:
            head = dict(head, rank=max(float(head.get("rank") or 0), float(r.get("rank") or 0)),
                        relevance=head.get("relevance", 0.0),
                        reason=f"the current value of {r['id']}, which the words found ({r.get('reason', '')})")
        out.append(head)
        placed.add(head["id"])
    return out


def _newest_wins(group: list[Candidate], same: Callable[[Candidate, Candidate], bool],
                 apart: Callable[[Candidate, Candidate], bool] = lambda a, b: False) -> None:
    """The newest memory of one thing is current; members with another value (not `apart`: of another family)
    are marked superseded by it."""
    if len(group) < 2:
        return
    when = {c["id"]: dated(c, [o for o in group if same(c, o)]) for c in group}
    top = group[0]
    for c in group[1:]:
        if newer(when[c["id"]], when[top["id"]]):
            top = c
    for c in group:
        if c is not top and not same(c, top) and not apart(c, top):
            c["superseded_by"] = top["id"]


def said_at(cand: Candidate) -> str:
    """When a candidate was said (tiers/knowledge/truth.moment); a hot item, undated, is a moment of its own."""
    return f"hot {cand['id']}" if cand.get("tier") == "hot" else moment(cand)


def said(cand: Candidate) -> str:
    """What a memory says, without what hot added to it: a hot event's or task's "(2027-06-03)", a task's
    status. A hot item is compared with the memory it came from by these words."""
    return str(cand.get("said") or cand["text"])


def filler(cand: Candidate) -> bool:
    """A conversation's turn that says nothing (tiers/knowledge/lowvalue.py), kept before that rule knew it."""
    meta = cand.get("metadata") or {}
    return meta.get("kind") == "turn" and is_low_value(cand["text"], meta.get("role"))


def dated(cand: Candidate, same: list[Candidate]) -> Candidate:
    """A candidate as truth.newer compares them. A hot item's timestamp tells when it was promoted, not when
    it was said: it is as new as the newest memory saying the same, else older than any."""
    if cand.get("tier") != "hot":
        return cand
    spoken = [c for c in same if c.get("tier") != "hot"]
    best = max(spoken, key=lambda c: (moment(c), c.get("created_at", 0)), default=None)
    meta = (best.get("metadata") or {}) if best else {}
    return dict(cand, created_at=best.get("created_at", 0) if best else 0,
                metadata={k: meta[k] for k in ("date", "time") if k in meta})


def judged(cand: Candidate) -> bool:
    """Memories whose value a newer statement replaces: facts and experiences, not opinions, beliefs (those
    move by confidence) or summaries."""
    return kinds.kind_of(cand.get("metadata")) in (kinds.FACT, kinds.EXPERIENCE)


def finish(results: list[Candidate], limit: int) -> list[Candidate]:
    """Ranked results → what is returned: restatements folded, the current before the superseded, each
    with its kind (and confidence, superseded_by when it has them)."""
    current = [r for r in results if not superseded_by(r)]
    past = [r for r in results if superseded_by(r)]
    things = of_memories(results, said)

    def same(a: Candidate, b: Candidate) -> bool | str:  # the same words, or the same value of one thing
        held, other = things.statements.get(a["id"]), things.statements.get(b["id"])
        if restates(said(a), said(b)) or things.restated(a["id"], b["id"]) or echoes(a, b) or echoes(b, a) or \
                (held is not None and other is not None and said_twice(held, other, said(a), said(b))):
            return True
        if held is not None and other is None and mentions(held, said(b)):
            return MENTION
        return MENTIONED if other is not None and held is None and mentions(other, said(a)) else False
    out = fold(current, limit, same) + fold(past, limit, same)
    for r in out:
        r.pop("said", None)
        meta = r.get("metadata")
        r["kind"] = kinds.kind_of(meta)
        confidence = kinds.confidence_of(meta)
        if confidence is not None:
            r["confidence"] = confidence
        by = superseded_by(r)
        if by:
            r["superseded_by"] = by
    return out[:limit]


def echoes(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    """`a` is the assistant echoing `b` ("Nice, VS Code it is." after "Spent the evening tuning my VS Code
    config."): every content word and number of its words is in `b`'s, said the same way (not negated)."""
    if not echo(a) or echo(b):
        return False
    _na, ta, da, pa = signature(said(a))
    _nb, tb, db, pb = signature(said(b))
    ta = ta - _filler_terms()  # "Nice, … it is.": the pleasantry around the echo is not its content
    return bool(ta) and ta <= tb and set(da) <= set(db) and pa == pb


@functools.lru_cache(maxsize=1)
def _filler_terms() -> frozenset[str]:
    return frozenset(t for w in FILLER_EN for t in analyzer.terms(w))
