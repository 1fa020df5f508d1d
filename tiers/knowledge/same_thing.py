"""The one question the rules leave to the LLM: do two close but unequal subjects ("garage code", "garage door
code") name the same thing? Asked only when an LLM is configured, at most LLM_QUESTIONS times a run; an error or
an unclear answer counts as "no" (the rules' answer stands)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeVar

from memoryd.tiers.base.errors import MemorydError

if TYPE_CHECKING:
    from memoryd.tiers.base.ports import LLM

LLM_QUESTIONS = 5
CLOSE = 0.5  # word overlap (Jaccard) of two subjects the LLM is asked about; below it they are different things
T = TypeVar("T")

PROMPT = """Two statements from one person's notes each give a value for something.
A: {a}
B: {b}
Do A and B give values of the SAME thing (so that the newer one replaces the older)? Answer only "yes" or "no"."""


def close(a: str, b: str) -> bool:
    """Subjects that share their last word and at least half of all their words, but are not equal."""
    wa, wb = a.split(), b.split()
    if a == b or not wa or not wb or wa[-1] != wb[-1]:
        return False
    return len(set(wa) & set(wb)) / len(set(wa) | set(wb)) >= CLOSE


def ask(llm: LLM, a: str, b: str, timeout: float = 20.0) -> bool:
    """The LLM's yes (True) or anything else (False) on whether statements a and b are about the same thing."""
    try:
        answer = llm.complete(PROMPT.format(a=a, b=b), timeout=timeout)
    except MemorydError:
        return False
    return answer.strip().strip("\"'.").lower().startswith("yes")


def join_close_subjects(groups: dict[str, list[tuple[dict[str, Any], Any]]], llm: LLM
                        ) -> dict[str, list[tuple[dict[str, Any], Any]]]:
    """Groups by claim key, with close keys the LLM says are one thing joined under the smaller key."""
    keys = sorted(groups)
    asked = 0
    merged: dict[str, str] = {}
    for i, a in enumerate(keys):
        for b in keys[i + 1:]:
            if asked >= LLM_QUESTIONS or merged.get(b) or not close(a, b):
                continue
            asked += 1
            if ask(llm, groups[a][0][0]["text"], groups[b][0][0]["text"]):
                merged[b] = merged.get(a, a)
    out: dict[str, list[tuple[dict[str, Any], Any]]] = {}
    for key, members in groups.items():
        out.setdefault(merged.get(key, key), []).extend(members)
    return out
