"""Explicit facts into hot, through the same functions as `memoryd hot …`: a lesson → hot lesson, a dated
task or event → hot task or event, a preference → owner profile; the same item told twice goes in once."""
from __future__ import annotations

import logging
import re
from typing import TYPE_CHECKING, Callable, Sequence

from memoryd.tiers.base.errors import UsageError
from memoryd.tiers.distillation.fact_rules import Fact, extract, owner_cue
from memoryd.tiers.distillation.standing import says_standing

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


_FIRST_PERSON = re.compile(r"(?i)\b(?:i|i'm|i've|i'd|i'll|my|me|mine|myself)\b|我(?!们)|"
                           r"^\s*(?:the\s+)?(?:owner|user)(?:'s)?\b|^\s*(?:用户|主人)")  # an agent's note on its owner
# the owner telling the assistant how to work with them ("please never book …", "以后请用中文"): theirs too
_INSTRUCTION = re.compile(r"(?i)^\s*(?:please\s+)?(?:always|never)\s|^\s*(?:以后)?请")
_SPEAKER = re.compile(r"^\s*[^\s:：]{1,24}(?:\s[^\s:：]{1,24})?\s*[:：]\s")
# labels an assistant's line carries in a note (OpenClaw's session-memory hook writes `assistant: "…"`): its
# "Saved as a lesson: …" or "So the test is now Monday" echoes the owner's line, which is the one to keep
_ASSISTANT_LABEL = re.compile(r"(?i)^\s*(?:[-*]\s+)?(?:assistant|ai|bot|agent|claude|codex|chatgpt|openclaw|"
                              r"助手|助理)\s*(?::\s|：)")


_CLAUSE = re.compile(r"[,，。;；.!?！？]+\s*")


def owner_says(text: str) -> bool:
    """The owner's own statement about themself (first person, or an agent's note starting "The owner …", "User
    …", "用户…"), with no speaker label ("Marco: I prefer …" in a note is Marco speaking, not the owner; "Marco
    prefers …" is about Marco). The first person must be in the clause that says the preference or the
    personal fact: in "good idea, Dana doesn't eat onions, I'll leave them out" the preference is Dana's."""
    if _SPEAKER.match(text) is not None:
        return False
    clauses = [c for c in _CLAUSE.split(text) if c.strip()]
    cued = [c for c in clauses if owner_cue(c) or says_standing(c)]
    return any(_FIRST_PERSON.search(c) or _INSTRUCTION.match(c) for c in cued or clauses)


def hot_changes(facts: Sequence[Fact], owners: Sequence[bool] | None = None,
                sources: Sequence[str | None] | None = None) -> Callable[[AgentState, float], list[str]]:
    """A mem.change() step applying the explicit facts to hot; returns what it changed. `owners[i]`: fact i was
    said by the owner (a user turn or the owner's note; default: yes); only the owner's first-person
    statements go to the owner profile. `sources[i]`: the memory id fact i is stored as (kept on the item)."""
    owners = list(owners) if owners is not None else [True] * len(facts)
    sources = list(sources) if sources is not None else [None] * len(facts)
    from memoryd.tiers.memory import hot as hot_tier

    def step(state: AgentState, now: float) -> list[str]:
        hot = state["hot"]
        done: list[str] = []
        for fact, by_owner, source in zip(facts, owners, sources):
            by_owner = by_owner and _ASSISTANT_LABEL.match(fact.text) is None  # a note's `Assistant: …` line
            try:
                if fact.kind == "lesson":
                    if not by_owner or any(similar(x["text"], fact.text) for x in hot["critical_lessons"]):
                        continue
                    item: dict = hot_tier.add_lesson(hot, fact.text, "lessons", fact.importance, now, keep_head=True)
                elif fact.kind in ("task", "event") and by_owner:
                    items = hot["active_context"]["tasks" if fact.kind == "task" else "events"]
                    day = hot_tier.day_of(fact.hot_text)
                    if any(similar(x["text"], fact.hot_text) and hot_tier.day_of(x["text"]) == day for x in items):
                        continue  # the same task or event, told again (in chat and in a note): not on another day
                    if fact.kind == "task":
                        item = hot_tier.upsert_task(hot, fact.hot_text, None, now)
                    else:
                        item = hot_tier.add_event(hot, fact.hot_text, now)
                elif fact.profile_key and by_owner and owner_says(fact.text):
                    hot_tier.set_profile(hot, fact.profile_key, fact.text[:200])
                    item = {}
                else:
                    continue
                if source and item is not None and "id" in item:
                    item["source_id"] = source
            except UsageError as exc:  # a field hot refuses: the fact stays in warm
                log.info("not put in hot: %s", exc.message)
                continue
            done.append(fact.kind)
        return done

    return step


def stored_lessons(text: str, day: str) -> tuple[Callable[[AgentState, float, list[dict]], list[str]], str] | None:
    """A store whose text is a lesson by the cues a note's line is read by (`Rule: …`, `Lesson: …`, 规则：…): the
    step (store_many's `then`) putting it in hot lessons, as the note's line would be, its source the stored
    memory; None for any other text (most stores: nothing else is read or written)."""
    lessons = [f for f in extract(text, day) if f.kind == "lesson"]
    if not lessons:
        return None

    def step(state: AgentState, now: float, stored: list[dict]) -> list[str]:
        return hot_changes(lessons, sources=[stored[0]["id"]] * len(lessons))(state, now)
    return step, "store"
