"""What a retrieve returns of the knowledge layer, right or silent: every memory the words found keeps its place;
a superseded one carries `superseded_by` and the memory holding its current value is placed directly above it;
restatements fold into the higher-ranked result; each result carries its kind (and confidence).

A memory is superseded only when its stored metadata says so (tiers/knowledge/truth.py at store time, the
maintain pass, an agent's `--supersedes`, a review's answer): a retrieve never guesses a supersession of its own.
"""
from __future__ import annotations

import functools
import re
from typing import Any, Callable, Mapping

from memoryd.tiers.knowledge import kinds
from memoryd.tiers.knowledge.lowvalue import FILLER_EN, is_low_value
from memoryd.tiers.knowledge.restate import echo, fold, restates, signature
from memoryd.tiers.retrieval import analyzer
from memoryd.tiers.retrieval.trace import note

Candidate = dict[str, Any]
HEADROOM = 2  # ranked results asked for per result returned: folding restatements must not leave a list short
HOPS = 5      # a chain of values (A → B → C) followed this far to its current end
_EXACT = re.compile(r"[A-Za-z]*\d[\w.\-/:#]*|[A-Z]{2,}[\w\-]*")


def depth(limit: int) -> int:
    """How many ranked results to ask for so that `limit` remain after folding."""
    return limit * HEADROOM + 5


def superseded_by(cand: Candidate) -> str | None:
    return (cand.get("metadata") or {}).get(kinds.SUPERSEDED_BY_KEY) or cand.get("superseded_by")


def followed_by(cand: Candidate) -> str | None:
    """The memory holding a newer value of what `cand` says: all of it (superseded) or one of its facts."""
    return superseded_by(cand) or (cand.get("metadata") or {}).get(kinds.UPDATED_BY_KEY)


def admit(cands: list[Candidate]) -> list[Candidate]:
    """The candidates a retrieve ranks: a conversation's turns that say nothing (tiers/knowledge/lowvalue.py)
    left out."""
    return [c for c in cands if not filler(c)]


def _exact_tokens(query: str) -> set[str]:
    """The query's numbers, codes and ids ("8013", "KG-412", "v0.10.1"): asked for by their exact value."""
    return {t.casefold() for t in _EXACT.findall(query)}


def _named(cand: Candidate, tokens: set[str]) -> bool:
    text = str(cand.get("text", "")).casefold()
    return any(re.search(rf"(?<![\w]){re.escape(t)}(?![\w])", text) for t in tokens)


def successors(results: list[Candidate], fetch: Callable[[list[str]], list[Candidate]],
               query: str = "") -> list[Candidate]:
    """Ranked results with the memory holding each superseded one's current value placed directly above it (or
    directly below, when the query names an exact value only the superseded one holds: that is what was asked).
    Nothing found is dropped. `fetch(ids)` gives candidates for memories not among the results."""
    if not any(followed_by(r) for r in results):
        return results
    by_id = {r["id"]: r for r in results}
    for _ in range(HOPS):
        wanted = sorted({str(followed_by(r)) for r in by_id.values() if followed_by(r)} - set(by_id))
        if not wanted:
            break
        for c in fetch(wanted):
            by_id.setdefault(c["id"], c)
    tokens = _exact_tokens(query)
    found = {r["id"] for r in results}
    out: list[Candidate] = []
    placed: set[str] = set()
    for r in results:
        head = r
        for _ in range(HOPS):
            nxt = followed_by(head)
            if not nxt or nxt not in by_id:
                break
            head = by_id[nxt]
        if r["id"] in placed:
            continue
        if head is r or followed_by(head) or head["id"] in placed:
            out.append(r)
            placed.add(r["id"])
            continue
        if head["id"] in found:
            head = by_id[head["id"]]
        else:
            head = dict(head, rank=float(r.get("rank") or 0), relevance=head.get("relevance", 0.0),
                        reason=f"the current value of {r['id']}, which the words found")
        below = bool(tokens) and _named(r, tokens) and not _named(head, tokens)
        note(head, "current", "placed below" if below else "placed above", current_of=r["id"],
             why="the query names a value only the older one holds" if below else "holds the current value of "
             "what the words found")
        pair = [r, head] if below else [head, r]
        out += pair
        placed |= {head["id"], r["id"]}
    return out


def said(cand: Candidate) -> str:
    """What a memory says, without what hot added to it: a hot event's or task's "(2027-06-03)", a task's
    status. A hot item is compared with the memory it came from by these words."""
    return str(cand.get("said") or cand["text"])


def filler(cand: Candidate) -> bool:
    """A conversation's turn that says nothing (tiers/knowledge/lowvalue.py), kept before that rule knew it."""
    meta = cand.get("metadata") or {}
    return meta.get("kind") == "turn" and is_low_value(cand["text"], meta.get("role"))


def finish(results: list[Candidate], limit: int) -> list[Candidate]:
    """Ranked results → what is returned: restatements folded into the higher one, each with its kind (and
    confidence, superseded_by when it has them)."""
    def same(a: Candidate, b: Candidate) -> bool:  # the same words, or an assistant echoing the person's
        return restates(said(a), said(b)) or echoes(a, b) or echoes(b, a)
    out = fold(results, limit, same)
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
