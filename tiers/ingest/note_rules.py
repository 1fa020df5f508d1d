"""What a daily note's fact means: its type, category and the date it is about (the fact rules), its
importance, and the item the store is given; the rule modules load on the first fact read."""
from __future__ import annotations

import functools
import re
from typing import Any

from memoryd.tiers.ingest.note_fact import KINDS, NoteFact

RETAIN_BONUS = 0.1  # a `## Retain` line is one the author chose to keep (seed 003's quality lever)
StoreItem = tuple[str, str, float, dict[str, Any]]  # text, category, importance, metadata: AgentMemory.store_many's


_SECTION_TYPES = tuple((re.compile(rx, re.IGNORECASE), kind) for rx, kind in (
    (r"decision|决定|决策", "decision"), (r"task|todo|to-do|待办|任务", "task"), (r"lesson|learned|教训|经验", "lesson"),
    (r"preference|偏好|喜好", "preference"), (r"event|calendar|schedule|日程|安排", "event")))
_TOPIC_SEGMENT = re.compile(r"[\w.-]{1,32}")


@functools.lru_cache(maxsize=1)
def _rules() -> Any:
    """The rule modules, imported on the first fact read (not with this module) and looked up once."""
    from types import SimpleNamespace

    from memoryd.tiers.distillation import fact_rules
    from memoryd.tiers.distillation.distill import first_topic
    from memoryd.tiers.distillation.importance import rule_importance

    return SimpleNamespace(first_topic=first_topic, rule_importance=rule_importance, facts=fact_rules)


def read_content(fact: NoteFact) -> None:
    """Type, category, date and profile key of a note fact from what it says (its heading helps)."""
    rules = _rules()
    F = rules.facts
    fact.classified = True
    seen = F.scan(fact.text)  # the rules' gates, checked once for both
    about = F.find_date(fact.text, _date(fact.date), seen)
    kind = F.classify(fact.text, about is not None, seen)
    if kind in (None, "fact") and fact.section:
        kind = _section_type(fact.section) or kind
    fact.type = kind if kind != "fact" else None
    fact.about = about if kind in ("task", "event", "personal") else None
    fact.profile_key = F.profile_key(kind, fact.text) if kind in ("preference", "personal") else None
    if fact.kind in KINDS.values():
        return  # a Retain line keeps its bank/<kind> category
    if fact.type:
        fact.category = F.KIND_CATEGORY[fact.type]
    else:
        topic = rules.first_topic(fact.text)
        fact.category = f"notes/{topic}" if topic and _TOPIC_SEGMENT.fullmatch(topic) else "notes"


@functools.lru_cache(maxsize=256)
def _section_type(section: str) -> str | None:
    """The kind a heading names, or None: a note's facts share a few headings, each searched by five regexes."""
    return next((k for rx, k in _SECTION_TYPES if rx.search(section)), None)


@functools.lru_cache(maxsize=64)
def _date(iso: str) -> Any:
    import datetime as _dt

    return _dt.date.fromisoformat(iso)


def note_item(fact: NoteFact) -> StoreItem:
    """What store()/store_many() are given for a classified fact."""
    importance, reasons = _importance(fact)
    # "promoted": hot gets only what the note says explicitly (dailynotes' hot step), never a fact by its score
    return (fact.text, fact.category, importance,
            fact.metadata() | {"importance_reasons": reasons[:4], "promoted": True})


def _importance(fact: NoteFact) -> tuple[float, list[str]]:
    rules = _rules()
    value, reasons = rules.rule_importance(fact.text, fact.category)
    floor = rules.facts.KIND_FLOOR[fact.type] if fact.type else 0.0
    if floor > value:
        value, reasons = floor, reasons + [f"type:{fact.type}"]
    if fact.kind in KINDS.values():
        value = round(min(1.0, value + RETAIN_BONUS), 3)
        reasons = reasons + [f"retain+{RETAIN_BONUS:g}"]
    return value, reasons
