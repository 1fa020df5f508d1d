"""What a retrieve returns of the knowledge layer: current memories only (superseded ones with `history`, after
the current), restatements folded into the higher-ranked result, and each result's kind, confidence and
superseded_by.

A memory is superseded when its metadata says so (tiers/knowledge/truth.py at store time, or the maintain
pass), or when another candidate of this retrieve makes a claim on the same thing with another value and is
newer (tiers/knowledge/subject.py): memories pulled from another device are judged before any maintain ran.
"""
from __future__ import annotations

from typing import Any

from memoryd.tiers.knowledge import kinds
from memoryd.tiers.knowledge.restate import fold
from memoryd.tiers.knowledge.subject import claim_of
from memoryd.tiers.knowledge.truth import newer

Candidate = dict[str, Any]
HEADROOM = 2  # ranked results asked for per result returned: folding restatements must not leave a list short


def depth(limit: int) -> int:
    """How many ranked results to ask for so that `limit` remain after folding."""
    return limit * HEADROOM + 5


def superseded_by(cand: Candidate) -> str | None:
    return (cand.get("metadata") or {}).get(kinds.SUPERSEDED_BY_KEY) or cand.get("superseded_by")


def admit(cands: list[Candidate], history: bool) -> list[Candidate]:
    """The candidates a retrieve ranks: superseded ones are left out unless `history` asks for them.
    Claims among the candidates mark the older of two values for one thing (`superseded_by` on the
    candidate, not on the stored memory)."""
    newest: dict[str, Candidate] = {}
    claims: list[tuple[Candidate, Any]] = []
    for c in cands:
        if c.get("tier") == "hot" or superseded_by(c):
            continue
        claim = claim_of(c["text"])
        if claim is not None:
            claims.append((c, claim))
            best = newest.get(claim.key)
            if best is None or newer(c, best):
                newest[claim.key] = c
    for c, claim in claims:
        top = newest[claim.key]
        if top is not c and claim_of(top["text"]).value != claim.value:  # type: ignore[union-attr]
            c["superseded_by"] = top["id"]
    return cands if history else [c for c in cands if not superseded_by(c)]


def finish(results: list[Candidate], limit: int) -> list[Candidate]:
    """Ranked results → what is returned: restatements folded, the current before the superseded, each
    with its kind (and confidence, superseded_by when it has them)."""
    current = [r for r in results if not superseded_by(r)]
    past = [r for r in results if superseded_by(r)]
    out = fold(current, limit) + fold(past, limit)
    for r in out:
        meta = r.get("metadata")
        r["kind"] = kinds.kind_of(meta)
        confidence = kinds.confidence_of(meta)
        if confidence is not None:
            r["confidence"] = confidence
        by = superseded_by(r)
        if by:
            r["superseded_by"] = by
    return out[:limit]
