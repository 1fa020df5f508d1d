"""What kind of knowledge a memory is, and the metadata keys the knowledge layer reads and writes.

A memory's kind lives in its metadata (`memory_kind`), so it rides unchanged through warm, the local
index, the cloud log, export and import; a memory stored before kinds existed reads as a `fact`.
`metadata["kind"]` keeps what it always held — the extractor's label (turn, decision, world, …) —
and a Retain line's label maps onto a kind (W → fact, B → experience, O → opinion, S → summary).
"""
from __future__ import annotations

import math
from typing import Any, Mapping

from memoryd.tiers.base.errors import UsageError

FACT, EXPERIENCE, BELIEF, OPINION, SUMMARY = "fact", "experience", "belief", "opinion", "summary"
KINDS = (FACT, EXPERIENCE, BELIEF, OPINION, SUMMARY)
WITH_CONFIDENCE = (BELIEF, OPINION)

# metadata keys (all optional; absent means "none")
KIND_KEY = "memory_kind"
CONFIDENCE_KEY = "confidence"      # belief / opinion: 0..1
BASIS_KEY = "basis"                # belief: why it is believed (free text)
EVIDENCE_KEY = "evidence"          # opinion: [{"id", "delta", "at", "why"}], newest last
SUMMARISES_KEY = "summarises"      # summary: the ids it stands for
LEVEL_KEY = "level"                # summary: 1 (from memories) or 2 (from summaries)
SUPERSEDED_BY_KEY = "superseded_by"  # the id of the memory that holds the current value
UPDATED_BY_KEY = "updated_by"      # a newer memory replaces one of the facts this one states (the rest stays true)
CHANGE_RULE_KEY = "change_rule"    # which cue pattern said a newer memory replaces (part of) this one
SUPERSEDED_HOW_KEY = "superseded_how"  # who decided it: "rule" (absent), "agent" (store --supersedes), "review"
SUPERSEDES_KEY = "supersedes"      # the ids this memory replaced
SOURCES_KEY = "sources"            # restatements merged into this memory: [{"source", "id", "at"}]
SAID_AT_KEY = "said_at"            # when it was last said again (ISO, as truth.moment): "A → B → A" makes A current
RESTATE_KEY = "restate_key"        # restate.restate_key of its text: a store finds a restatement by key
SEALED_IN_KEY = "sealed_in"        # the summary this memory was sealed into

# A Retain line's label (metadata["kind"], tiers/ingest/note_fact.py) → its kind.
_LABEL_KIND = {"world": FACT, "experience": EXPERIENCE, "opinion": OPINION, "observation": SUMMARY,
               "belief": BELIEF, "summary": SUMMARY, "fact": FACT}

# Seed 001's daily decay by kind; actual = base × (1 − importance × 0.5).
BASE_DECAY = {FACT: 0.008, EXPERIENCE: 0.008, BELIEF: 0.07, OPINION: 0.07, SUMMARY: 0.025}


def kind_of(metadata: Mapping[str, Any] | None) -> str:
    """The memory's kind: its `memory_kind`, else its Retain label's kind, else `fact`."""
    if not metadata:
        return FACT
    kind = metadata.get(KIND_KEY)
    if kind in KINDS:
        return str(kind)
    return _LABEL_KIND.get(str(metadata.get("kind", "")), FACT)


def label_kinds() -> dict[str, str]:
    """Every Retain or extractor label that names a kind → that kind (what kind_of reads when memory_kind is absent)."""
    return dict(_LABEL_KIND)


def confidence_of(metadata: Mapping[str, Any] | None) -> float | None:
    """A belief's or opinion's confidence (0..1); None for the other kinds or when unknown."""
    if not metadata or kind_of(metadata) not in WITH_CONFIDENCE:
        return None
    value = metadata.get(CONFIDENCE_KEY)
    if isinstance(value, (int, float)) and not isinstance(value, bool) and 0.0 <= value <= 1.0:
        return float(value)
    return None


def check_kind(kind: str, confidence: float | None = None) -> tuple[str, float | None]:
    """Validate a kind given by a user (CLI, MCP, import): UsageError with the allowed values."""
    if kind not in KINDS:
        raise UsageError(f"unknown kind {kind!r}: use one of {', '.join(KINDS)}")
    if confidence is not None:
        if isinstance(confidence, bool) or not isinstance(confidence, (int, float)) or not 0.0 <= confidence <= 1.0:
            raise UsageError(f"confidence must be a number from 0 to 1, got {confidence!r}")
        if kind not in WITH_CONFIDENCE:
            raise UsageError(f"a {kind} has no confidence: only {' and '.join(WITH_CONFIDENCE)} do")
    return kind, (float(confidence) if confidence is not None else None)


def daily_decay(kind: str, importance: float) -> float:
    """The kind's daily decay, slowed by importance: base × (1 − importance × 0.5)."""
    return BASE_DECAY.get(kind, BASE_DECAY[FACT]) * (1.0 - min(max(importance, 0.0), 1.0) * 0.5)


def decay_factor(kind: str, importance: float, age_days: float) -> float:
    """How much of a memory's strength is left after `age_days`: (1 − daily decay) ** age."""
    return math.pow(1.0 - daily_decay(kind, importance), max(age_days, 0.0))


def is_current(metadata: Mapping[str, Any] | None) -> bool:
    """False when a newer memory superseded this one (it stays in history)."""
    return not (metadata and metadata.get(SUPERSEDED_BY_KEY))
