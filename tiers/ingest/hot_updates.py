"""Explicit facts into hot, through the same functions as `memoryd hot …`: a lesson → hot lesson, a dated
task or event → hot task or event, a preference → owner profile; the same item told twice goes in once."""
from __future__ import annotations

import logging
import re
from typing import TYPE_CHECKING, Callable, Sequence

from memoryd.tiers.base.errors import UsageError
from memoryd.tiers.distillation.fact_rules import Fact

if TYPE_CHECKING:
    from memoryd.tiers.memory.types import AgentState

log = logging.getLogger("memoryd.tiers")

_TOKEN = re.compile(r"[\w]+", re.UNICODE)


def _words(text: str) -> set[str]:
    """Words (and single CJK characters) of a text, for near-duplicate checks."""
    out: set[str] = set()
    for w in _TOKEN.findall(text.casefold()):
        out |= set(w) if not w.isascii() else {w}
    return out


def similar(a: str, b: str, threshold: float = 0.8) -> bool:
    """The shorter text's words are (nearly) all in the longer one: the same item said twice."""
    wa, wb = _words(a), _words(b)
    small = min(len(wa), len(wb))
    return small >= 4 and len(wa & wb) / small >= threshold


def hot_changes(facts: Sequence[Fact]) -> Callable[[AgentState, float], list[str]]:
    """A mem.change() step applying the explicit facts to hot; returns what it changed."""
    from memoryd.tiers.memory import hot as hot_tier

    def step(state: AgentState, now: float) -> list[str]:
        hot = state["hot"]
        done: list[str] = []
        for fact in facts:
            try:
                if fact.kind == "lesson":
                    if any(similar(x["text"], fact.text) for x in hot["critical_lessons"]):
                        continue
                    hot_tier.add_lesson(hot, fact.text, "lessons", fact.importance, now, keep_head=True)
                elif fact.kind in ("task", "event"):
                    items = hot["active_context"]["tasks" if fact.kind == "task" else "events"]
                    if any(similar(x["text"], fact.hot_text) for x in items):
                        continue  # the same task or event, told again (in chat and in a note)
                    if fact.kind == "task":
                        hot_tier.upsert_task(hot, fact.hot_text, None, now)
                    else:
                        hot_tier.add_event(hot, fact.hot_text, now)
                elif fact.profile_key:
                    hot_tier.set_profile(hot, fact.profile_key, fact.text[:200])
                else:
                    continue
            except UsageError as exc:  # a field hot refuses: the fact stays in warm
                log.info("not put in hot: %s", exc.message)
                continue
            done.append(fact.kind)
        return done

    return step
