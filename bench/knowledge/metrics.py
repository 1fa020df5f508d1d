"""The knowledge benchmark's measures, computed from ranked Hits and the questions' ground truth (pure).

- duplicate: a top 5 holding the same fact twice (two results matched to texts stating one topic=value);
- current: the rank of the first result mentioning the current value; stale: the rank of the first result
  mentioning an earlier value and not the current one (a result naming both is the change itself);
- entity: answered when a top-5 result or the entity's page mentions a current value of one of its topics;
- filler: a top 5 holding a text that carries nothing (an acknowledgement, a pleasantry).
"""
from __future__ import annotations

from typing import Any, Sequence

from .model import CURRENT, ENTITY, FILLER, STATIC, Question
from .resolve import Hit, any_value_in

TOP = 5


def duplicate(hits: Sequence[Hit], k: int = TOP) -> bool:
    facts = [h.fact for h in hits[:k] if h.fact]
    return len(facts) != len(set(facts))


def has_filler(hits: Sequence[Hit], k: int = TOP) -> bool:
    return any(h.holds == FILLER for h in hits[:k])


def current_rank(hits: Sequence[Hit], answers: Sequence[str]) -> int | None:
    """1-based rank of the first result mentioning a current value."""
    return next((n for n, h in enumerate(hits, 1) if any_value_in(h.text, answers)), None)


def stale_rank(hits: Sequence[Hit], answers: Sequence[str], stale: Sequence[str]) -> int | None:
    """1-based rank of the first result mentioning an earlier value without the current one."""
    return next((n for n, h in enumerate(hits, 1)
                 if any_value_in(h.text, stale) and not any_value_in(h.text, answers)), None)


def stale_above(hits: Sequence[Hit], q: Question) -> bool:
    """An earlier value ranks above the current one (or is there while the current one is not)."""
    old, now = stale_rank(hits, q.answers, q.stale), current_rank(hits, q.answers)
    return old is not None and (now is None or old < now)


def _share(flags: Sequence[bool]) -> float | None:
    return round(sum(flags) / len(flags), 4) if flags else None


def score(questions: Sequence[Question], ranked: dict[str, list[Hit]],
          pages: dict[str, str] | None = None) -> dict[str, Any]:
    """Every measure over `ranked` (question id → hits, best first). `pages`: entity name → the text of its
    page (None: the system has no entity pages)."""
    hits = {q.id: ranked.get(q.id, []) for q in questions}
    current = [q for q in questions if q.kind == CURRENT]
    static = [q for q in questions if q.kind == STATIC]
    entities = [q for q in questions if q.kind == ENTITY]
    ranks = [current_rank(hits[q.id], q.answers) for q in current]
    by_top5 = [any(any_value_in(h.text, q.answers) for h in hits[q.id][:TOP]) for q in entities]
    by_page = [any_value_in(pages.get(q.about, ""), q.answers) for q in entities] if pages is not None else []
    return {
        "questions": len(questions),
        "duplicate_share": _share([duplicate(hits[q.id]) for q in questions]),
        "filler_share": _share([has_filler(hits[q.id]) for q in questions]),
        "current": {"n": len(current),
                    "at1": _share([r == 1 for r in ranks]),
                    "in5": _share([r is not None and r <= TOP for r in ranks]),
                    "stale_above": _share([stale_above(hits[q.id], q) for q in current])},
        "fact": {"n": len(static),
                 "in5": _share([(r := current_rank(hits[q.id], q.answers)) is not None and r <= TOP for q in static])},
        "entity": {"n": len(entities),
                   "answered": _share([a or (bool(by_page) and by_page[i]) for i, a in enumerate(by_top5)]),
                   "by_top5": _share(by_top5),
                   "by_page": _share(by_page) if pages is not None else None},
    }
