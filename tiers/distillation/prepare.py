"""A fact made ready to store: validated, secrets replaced (text and caller metadata), distilled and
rated. Pure, so a helper process can do it ahead (tiers/ingest/notes_ahead.py) with the same result."""
from __future__ import annotations

from typing import Any, Callable

from memoryd.tiers.memory.model import check_category, check_importance, check_text

Item = tuple[str, str, "float | None", "dict[str, Any] | None"]  # text, category, importance, metadata
Prepared = tuple[str, str, float, dict[str, Any], dict[str, int]]  # ..., and the secrets replaced per kind


def prepare_many(items: list[Item]) -> list[Prepared]:
    """Each item made ready; the first bad one raises (UsageError), so a batch stores all or nothing.
    The rule modules load here, on the first store, not with the CLI."""
    from memoryd.tiers.distillation.distill import stored_meta
    from memoryd.tiers.distillation.importance import rule_importance
    from memoryd.tiers.distillation.redact import redact, redact_obj

    return [_prepare_one(*item, stored_meta, rule_importance, redact, redact_obj) for item in items]


def typed_metadata(text: str, meta: dict[str, Any]) -> dict[str, Any]:
    from memoryd.tiers.knowledge.classify import typed_metadata as typed

    return typed(text, meta)


def _prepare_one(text: str, category: str, importance: float | None, metadata: dict[str, Any] | None,
                 stored_meta: Callable, rule_importance: Callable, redact: Callable, redact_obj: Callable
                 ) -> Prepared:
    text = check_text(text)
    category = check_category(category)
    importance = check_importance(importance)
    text, redactions = redact(text)
    meta = stored_meta(text)
    if importance is None:
        importance, reasons = rule_importance(text, category)
        meta["importance_reasons"] = reasons[:4]
    extra, more = redact_obj({k: v for k, v in (metadata or {}).items() if v not in (None, "", [], {})})
    for kind, n in more.items():
        redactions[kind] = redactions.get(kind, 0) + n
    if redactions:
        meta["redactions"] = sum(redactions.values())
    meta.update(extra)
    typed_metadata(text, meta)  # every memory has a kind (tiers/knowledge/kinds.py), written explicitly
    return text, category, importance, meta, redactions
