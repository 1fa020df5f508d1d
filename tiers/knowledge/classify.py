"""A new memory's kind when its caller named none: its Retain label's kind, a hedged statement ("I think",
"probably", "可能") → a belief with the hedge's confidence, anything else → a fact."""
from __future__ import annotations

import re
from typing import Any

from memoryd.tiers.distillation.rxgate import Gated, GateSet
from memoryd.tiers.knowledge import kinds

# hedge → confidence of the belief it makes (the first one found counts)
HEDGES = ((r"i'?m not sure|not certain|不确定|不太确定", 0.3), (r"\bmaybe\b|\bperhaps\b|\bpossibly\b|\bmight\b|\bi guess\b|也许|或许", 0.4),
          (r"\bi think\b|\bi believe\b|\bi suppose\b|\bi suspect\b|\bit seems\b|我觉得|我认为|好像|可能", 0.6),
          (r"\bprobably\b|\blikely\b|大概|估计|应该是", 0.7))
_HEDGES = tuple((Gated(rx, re.IGNORECASE), c) for rx, c in HEDGES)
_HEDGE_GATES = GateSet(g for g, _ in _HEDGES)  # most texts hold no hedge word: one pass, no regex (~12 µs a fact)
_QUESTION = re.compile(r"[?？]\s*$|^\s*(?:do|does|did|is|are|can|could|should|would|will)\b", re.IGNORECASE)


def hedge(text: str) -> tuple[float, str] | None:
    """(confidence, the hedge's words) when `text` states something with a hedge; None otherwise."""
    scan = _HEDGE_GATES.scan(text)
    for gate, confidence in _HEDGES:
        m = scan.search(gate)
        if m:
            return None if _QUESTION.search(text) else (confidence, m.group(0))
    return None


def typed_metadata(text: str, meta: dict[str, Any]) -> dict[str, Any]:
    """`meta` with memory_kind written (and a belief's confidence and basis): a kind given by the caller is
    checked (UsageError), else inferred. Changes and returns `meta`."""
    given = meta.get(kinds.KIND_KEY)
    if given is not None:
        conf = meta.get(kinds.CONFIDENCE_KEY)
        kind, conf = kinds.check_kind(str(given), conf if given in kinds.WITH_CONFIDENCE else None)
        meta[kinds.KIND_KEY] = kind
        if kind not in kinds.WITH_CONFIDENCE:
            meta.pop(kinds.CONFIDENCE_KEY, None)
        return meta
    kind = kinds.kind_of(meta)
    found = hedge(text) if kind == kinds.FACT and meta.get("kind") != "world" and meta.get("role") != "assistant" \
        else None
    if found is not None:  # a Retain W line is a fact by its author's word; an assistant's hedge is no belief of ours
        meta[kinds.KIND_KEY] = kinds.BELIEF
        meta.setdefault(kinds.CONFIDENCE_KEY, found[0])
        meta.setdefault(kinds.BASIS_KEY, f"hedged: {found[1]!r}")
        return meta
    meta[kinds.KIND_KEY] = kind
    return meta
