"""LLM mode's second step: the configured LLM re-orders the ranking's top candidates.

The prompt numbers the top N memories (number, date, tier, text) and asks for a JSON list of numbers,
best first. The answer is read defensively: numbers in a list, in strings or in objects, inside code
fences or prose; unknown and repeated numbers are ignored and the candidates the LLM left out keep
their order after the ones it named. On an error, a timeout or an answer with no usable number, the
ranking's own order stands and a warning says why.
"""
from __future__ import annotations

import re
from typing import Any

from memoryd.tiers.base.errors import MemorydError
from memoryd.tiers.distillation.llm_prompts import parse_json_answer
from memoryd.tiers.base.ports import LLM

TEXT_CHARS = 300   # each memory's text in the prompt is cut here (the prompt stays small)

RERANK_TEMPLATE = """You are a memory retrieval system. Order the memories below by how well they
answer the query, most useful first.

Query: {query}

Memories:
{items}

Answer with a JSON list of the memory numbers only, best first, for example [3, 1, 2].
"""

_NUMBER = re.compile(r"\d+")


def rerank_prompt(query: str, results: list[dict[str, Any]]) -> str:
    items = []
    for n, r in enumerate(results, start=1):
        text = " ".join(str(r.get("text", "")).split())
        text = text if len(text) <= TEXT_CHARS else text[:TEXT_CHARS - 1] + "…"
        date = f"{r['date']}, " if r.get("date") else ""
        items.append(f"[{n}] ({date}{r.get('tier', '?')}) {text}")
    return RERANK_TEMPLATE.format(query=" ".join(query.split()), items="\n".join(items))


def _number(item: Any) -> int | None:
    if isinstance(item, bool):
        return None
    if isinstance(item, int):
        return item
    if isinstance(item, float) and item.is_integer():
        return int(item)
    if isinstance(item, str):
        found = _NUMBER.search(item)
        return int(found.group()) if found else None
    if isinstance(item, dict):
        for key in ("number", "id", "index", "memory", "n", "rank_of"):
            if key in item:
                return _number(item[key])
    return None


def parse_rerank_answer(answer: str, count: int) -> list[int]:
    """The LLM's order as 0-based positions among `count` candidates (each once). ValueError if none."""
    value = parse_json_answer(answer, (list, dict))
    if isinstance(value, dict):  # {"order": [...]}, {"ranking": [...]}, ...
        value = next((v for k, v in value.items() if isinstance(v, list)), [])
    order: list[int] = []
    for item in value:
        n = _number(item)
        if n is not None and 1 <= n <= count and n - 1 not in order:
            order.append(n - 1)
    if not order:
        raise ValueError("no memory number from the list")
    return order


def rerank_llm(query: str, results: list[dict[str, Any]], llm: LLM, top: int, timeout: float = 20.0
               ) -> tuple[list[dict[str, Any]], str | None]:
    """(results re-ordered by the LLM in their first `top`, None), or (results as they were, warning)."""
    head, tail = results[:top], results[top:]
    if len(head) < 2:
        return results, None
    try:
        order = parse_rerank_answer(llm.complete(rerank_prompt(query, head), timeout=timeout), len(head))
    except MemorydError as exc:
        return results, f"LLM re-ranking failed: {exc.message}; kept the keyword order"
    except ValueError as exc:
        return results, f"LLM re-ranking gave an unusable answer ({exc}); kept the keyword order"
    order += [i for i in range(len(head)) if i not in order]
    ranked = []
    for new, old in enumerate(order, start=1):
        r = dict(head[old], llm_rank=new, keyword_rank=old + 1)
        r["reason"] = f"LLM put it #{new} (keyword order #{old + 1}); " + str(r.get("reason", ""))
        ranked.append(r)
    return ranked + tail, None
