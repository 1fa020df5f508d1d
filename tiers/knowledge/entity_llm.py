"""Entities by an LLM, when one is configured: one prompt per batch of memories, names checked against the text.

What the LLM finds is added to the rules' entities (tiers/knowledge/entity_rules.py), never instead of
them; a name that does not occur in the memory's text is dropped (no invented entities), and a failed
or unreadable answer leaves the rules' result alone.
"""
from __future__ import annotations

import json
import re
from typing import Any, Sequence

from memoryd.tiers.base.errors import MemorydError
from memoryd.tiers.base.ports import LLM
from memoryd.tiers.knowledge.entity_rules import TYPES, Entity

BATCH = 20
MAX_TEXT = 600
PROMPT = """List the named entities of each numbered memory: people, projects, repositories (owner/name),
websites (host), versions, dates (YYYY-MM-DD) and amounts of money. Use only names written in the memory.
Answer with JSON only, one key per memory number: {{"1": [{{"name": "Alice", "type": "person"}}], "2": []}}
Types: {types}.

{memories}
"""
_OBJECT = re.compile(r"\{.*\}", re.DOTALL)


def prompt(texts: Sequence[str]) -> str:
    lines = "\n".join(f"{n}. {' '.join(t.split())[:MAX_TEXT]}" for n, t in enumerate(texts, 1))
    return PROMPT.format(types=", ".join(TYPES), memories=lines)


def parse(answer: str, texts: Sequence[str]) -> list[list[Entity]]:
    """Per text, the entities the answer names that occur in it (an unreadable answer: none)."""
    out: list[list[Entity]] = [[] for _ in texts]
    match = _OBJECT.search(answer or "")
    try:
        data: Any = json.loads(match.group(0)) if match else {}
    except ValueError:
        return out
    if not isinstance(data, dict):
        return out
    for n, text in enumerate(texts, 1):
        items = data.get(str(n))
        if not isinstance(items, list):
            continue
        folded = text.casefold()
        for item in items:
            if not isinstance(item, dict):
                continue
            name, kind = str(item.get("name") or "").strip().lstrip("@"), str(item.get("type") or "").lower()
            if kind not in TYPES or not 0 < len(name) <= 80:
                continue
            if name.casefold() not in folded:  # a name the memory does not write is invented
                continue
            out[n - 1].append(Entity(kind, name))
    return out



def llm_entities(llm: LLM, texts: Sequence[str], warn: Any = None) -> list[list[Entity]]:
    """The LLM's entities for each text, BATCH texts per call; a failed call gives none for its batch."""
    out: list[list[Entity]] = []
    for start in range(0, len(texts), BATCH):
        batch = texts[start:start + BATCH]
        try:
            out += parse(llm.complete(prompt(batch)), batch)
        except MemorydError as exc:
            if warn is not None:
                warn(f"entities by rules only for {len(batch)} memories: the LLM failed ({exc.message})")
            out += [[] for _ in batch]
    return out
