"""The pairs no rule decides, put to the LLM when one is configured (mem0's ADD/UPDATE/NONE, as a review answer).

Open `same_thing` review questions (tiers/knowledge/review.py) go to the LLM in batches of BATCH, at most PER_RUN
a maintain run. "UPDATE" answers the question `current` (the newer memory replaces the older: superseded_how
"llm", kept by later maintain passes, undone with `memoryd review undo`), "NONE" answers it `both`; anything else,
or an error, leaves it open for the person or the agent. Every answer is a row in the knowledge log.
"""
from __future__ import annotations

import logging
import re
from typing import TYPE_CHECKING, Any

from memoryd.tiers.base.errors import MemorydError
from memoryd.tiers.knowledge import review

if TYPE_CHECKING:
    from memoryd.tiers.base.ports import LLM
    from memoryd.tiers.memory.agent import AgentMemory

BATCH = 8
PER_RUN = 24
TIMEOUT = 30.0
log = logging.getLogger("memoryd.tiers")

PROMPT = """Each numbered pair below holds two statements from one person's memory, A older than B.
For each pair answer UPDATE if B gives a new value of the very same thing A states (so A is no longer true),
or NONE if both can be true (different things, different people, or B adds to A).
Answer one line per pair, exactly "<number>: UPDATE" or "<number>: NONE".

{pairs}"""
_ANSWER = re.compile(r"^\s*(\d+)\s*[:.)-]\s*(UPDATE|NONE)\b", re.IGNORECASE | re.MULTILINE)


def _pairs(batch: list[dict[str, Any]]) -> str:
    lines = []
    for n, q in enumerate(batch, 1):
        a, b = q["members"][0], q["members"][-1]
        lines.append(f"{n}. A ({a['date']}): {a['text']}\n   B ({b['date']}): {b['text']}")
    return "\n".join(lines)


def decide(mem: AgentMemory, llm: LLM) -> dict[str, int]:
    """Ask the LLM about open same_thing questions; answer those it decides. Counts llm_asked, llm_decided."""
    asked = decided = 0
    todo = [q for q in review.open_questions(mem) if q["kind"] == "same_thing" and len(q["members"]) == 2]
    todo = todo[:PER_RUN]
    for start in range(0, len(todo), BATCH):
        batch = todo[start:start + BATCH]
        try:
            answer = llm.complete(PROMPT.format(pairs=_pairs(batch)), timeout=TIMEOUT)
        except MemorydError as exc:
            log.warning("review questions not put to the LLM: %s", exc.message)
            break
        asked += len(batch)
        for n, verdict in _ANSWER.findall(answer):
            i = int(n) - 1
            if not 0 <= i < len(batch):
                continue
            try:
                review.resolve(mem, batch[i]["id"], "current" if verdict.upper() == "UPDATE" else "both", by="llm")
                decided += 1
            except MemorydError as exc:  # answered or forgotten meanwhile
                log.info("LLM answer not applied: %s", exc.message)
    return {"llm_asked": asked, "llm_decided": decided}
