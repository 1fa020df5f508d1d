"""LLM mode of conversation-end distillation: one prompt per segment, a JSON list of facts back.

The turns sent are already cleaned of scaffolding and have secrets redacted (they leave the
device). The answer is validated like every LLM answer here (tiers.llm_prompts.parse_json_answer);
kinds and fields outside the contract are dropped; a fact must be about words the owner said.
"""
from __future__ import annotations

import datetime as dt
import re
from typing import Any, Sequence

from memoryd.tiers.distillation.fact_rules import KIND_CATEGORY, KIND_FLOOR, Fact, find_date, profile_key
from memoryd.tiers.ingest.openclaw.events import Turn
from memoryd.tiers.base.ports import LLM
from memoryd.tiers.memory.model import without_controls

MAX_PROMPT_TURN_CHARS = 1500
MAX_PROMPT_CHARS = 60_000
TEMPLATE = """You are a memory distiller for a personal assistant. Below is a finished conversation between
the owner (user) and the assistant. List only what is worth remembering for months: decisions,
owner preferences, personal facts about the owner, lessons learned, tasks or commitments (with
their date), events with a date. Skip small talk, questions and anything the assistant merely said.
Answer with ONE JSON list and nothing else; each item:
  {{"turn": <the [n] of the user turn it comes from>, "kind": "decision"|"preference"|"personal"|"lesson"|"task"|"event",
   "text": "<one self-contained sentence in the owner's language>", "importance": <0.0-1.0>,
   "date": "<YYYY-MM-DD the task or event is about, or null>"}}
Return [] when nothing is worth keeping.

Conversation:
{turns}
JSON:"""


def llm_prompt(turns: Sequence[Turn]) -> str:
    from memoryd.tiers.distillation.redact import redact

    lines, used = [], 0
    for i, t in enumerate(turns):
        text = redact(" ".join(t.text.split()))[0][:MAX_PROMPT_TURN_CHARS]
        line = f"[{i}] {t.role} ({t.date}): {text}"
        used += len(line)
        if used > MAX_PROMPT_CHARS:
            break
        lines.append(line)
    return TEMPLATE.format(turns="\n".join(lines))


def _fact(item: Any, turns: Sequence[Turn]) -> tuple[Turn, Fact] | None:
    if not isinstance(item, dict) or item.get("kind") not in KIND_CATEGORY or item.get("kind") == "fact":
        return None
    text = item.get("text")
    idx = item.get("turn")
    if not isinstance(text, str) or not text.strip() or not isinstance(idx, int) or not 0 <= idx < len(turns):
        return None
    turn = turns[idx]
    kind = item["kind"]
    text = " ".join(without_controls(text).split())[:300]  # a model's answer is ingested text, not typed input
    try:
        importance = min(1.0, max(0.0, float(item.get("importance", KIND_FLOOR[kind]))))
    except (TypeError, ValueError):
        importance = KIND_FLOOR[kind]
    date = item.get("date")
    if not (isinstance(date, str) and re.fullmatch(r"\d{4}-\d{2}-\d{2}", date)):
        date = find_date(text, dt.date.fromisoformat(turn.date)) if kind in ("task", "event") else None
    return turn, Fact(kind, text, KIND_CATEGORY[kind], importance, date, profile_key(kind, text))


def llm_facts(turns: Sequence[Turn], llm: LLM, timeout: float = 60.0) -> list[tuple[Turn, Fact]]:
    """Facts the LLM found; raises RemoteError (endpoint) or ValueError (answer) for the rule fallback."""
    from memoryd.tiers.distillation.llm_prompts import parse_json_answer

    answer = llm.complete(llm_prompt(turns), timeout=timeout)
    items = parse_json_answer(answer, list)
    out, seen = [], set()
    for item in items:
        found = _fact(item, turns)
        if found is not None and found[1].text.casefold() not in seen:
            seen.add(found[1].text.casefold())
            out.append(found)
    return out
