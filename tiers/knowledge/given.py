"""A kind given by the caller of a store (CLI --kind/--confidence/--basis, MCP, the socket): checked, then
written into the memory's metadata, where classify.py would otherwise infer one."""
from __future__ import annotations

from typing import Any

from memoryd.tiers.base.errors import UsageError
from memoryd.tiers.knowledge import kinds


def given_kind(metadata: dict[str, Any] | None, kind: str | None, confidence: float | None,
               basis: str | None) -> dict[str, Any] | None:
    """`metadata` with the given kind, confidence and basis (UsageError on a bad one); unchanged when none given."""
    if kind is None and confidence is None and basis is None:
        return metadata
    if kind is None:
        raise UsageError("--confidence and --basis need --kind belief or --kind opinion")
    kind, confidence = kinds.check_kind(kind, confidence)
    if basis is not None and kind != kinds.BELIEF:
        raise UsageError(f"a {kind} has no basis: only a belief does")
    meta = dict(metadata or {}, **{kinds.KIND_KEY: kind})
    if confidence is not None:
        meta[kinds.CONFIDENCE_KEY] = confidence
    elif kind in kinds.WITH_CONFIDENCE:
        meta[kinds.CONFIDENCE_KEY] = 0.5  # a belief or opinion without a number: undecided
    if basis is not None:
        if not basis.strip():
            raise UsageError("--basis is empty")
        meta[kinds.BASIS_KEY] = " ".join(basis.split())[:200]
    return meta
