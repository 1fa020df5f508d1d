"""LLM mode: the distill and tree-search prompts, robust answer parsing, and rule-mode fallback."""
from __future__ import annotations

import json
import re
from typing import Any, Iterable, Mapping

from memoryd.tiers.distillation.distill import KEYS, distill, extract_commands, extract_paths, extract_urls
from memoryd.tiers.base.errors import MemorydError
from memoryd.tiers.base.ports import LLM

OUTCOMES = ("positive", "negative", "neutral", "mixed")
MAX_TREE_PATHS = 10

DISTILL_TEMPLATE = """You are a memory distiller. Extract the durable facts from the text below.
Answer with ONE JSON object and nothing else, with exactly these keys:
  "fact": one self-contained sentence (under 200 characters) stating what happened or was decided,
  "emotion": one word (e.g. determined, happy, frustrated, worried, neutral),
  "people": list of people named (use "User" for the speaker),
  "topics": list of 1-6 short lowercase topics,
  "actions": list of short action phrases,
  "outcome": one of "positive", "negative", "neutral", "mixed",
  "urls": every URL in the text, copied exactly,
  "commands": every shell command in the text, copied exactly,
  "paths": every file path in the text, copied exactly.
Never invent URLs, commands or paths; never shorten or rewrite them.

Text:
<<<
{text}
>>>
JSON:"""

TREE_TEMPLATE = """You are a memory retrieval system. Given a memory tree index and a query,
identify which categories are relevant.

Memory Tree Index:
{index}

User Query: {query}

Output (JSON): a list of at most {limit} objects, most relevant first, each
{{"path": "<a path from the index>", "relevance": <0.0-1.0>, "reason": "<why>"}}
Use only paths that appear in the index. Answer with the JSON list only.
"""


def distill_prompt(text: str) -> str:
    return DISTILL_TEMPLATE.format(text=text)


def tree_index_lines(nodes: Mapping[str, Any], counts: Mapping[str, Mapping[str, int]] | None = None,
                     extra: Iterable[str] = ()) -> list[str]:
    """`path — description (warm:N, cold:M)` lines for the prompt; `extra` adds hot paths such as active_context/events."""
    lines = []
    for path in sorted(nodes):
        value = nodes[path]
        desc = value[0] if isinstance(value, (list, tuple)) and value else (value if isinstance(value, str) else "")
        c = (counts or {}).get(path) or {}
        tally = ", ".join(f"{k}:{c[k]}" for k in ("hot", "warm", "cold") if c.get(k))
        lines.append(f"{path} — {desc or path.rsplit('/', 1)[-1]}" + (f" ({tally})" if tally else ""))
    lines += [f"{p} — hot memory" for p in extra if p not in nodes]
    return lines


def tree_search_prompt(nodes: Mapping[str, Any], query: str, counts: Mapping[str, Mapping[str, int]] | None = None,
                       extra: Iterable[str] = (), limit: int = MAX_TREE_PATHS) -> str:
    """The seed's tree-search prompt: the tree index and the query in, a JSON list of paths out."""
    index = "\n".join(tree_index_lines(nodes, counts, extra)) or "(empty)"
    return TREE_TEMPLATE.format(index=index, query=" ".join(query.split()), limit=limit)


_FENCED = re.compile(r"```(?:json|JSON)?\s*\n?(.*?)```", re.DOTALL)


def parse_json_answer(answer: str, want: type | tuple[type, ...] = (dict, list)) -> Any:
    """The first JSON value of type `want` in an LLM answer (inside code fences or prose). ValueError if none."""
    if not isinstance(answer, str) or not answer.strip():
        raise ValueError("empty answer")
    candidates = [m.group(1) for m in _FENCED.finditer(answer)] + [answer]
    decoder = json.JSONDecoder()
    for chunk in candidates:
        for m in re.finditer(r"[\[{]", chunk):
            try:
                value, _ = decoder.raw_decode(chunk, m.start())
            except ValueError:
                continue
            if isinstance(value, want):
                return value
    raise ValueError("no JSON found in the answer")


def _str_list(value: Any, limit: int = 12) -> list[str]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list):
        return []
    out = [" ".join(str(v).split()) for v in value if isinstance(v, (str, int, float)) and str(v).strip()]
    return list(dict.fromkeys(out))[:limit]


def _verbatim(llm_items: list[str], rule_items: list[str], text: str) -> list[str]:
    """Rule-found items always; LLM items only when they occur verbatim in the text (no invented URLs)."""
    return list(dict.fromkeys(rule_items + [i for i in llm_items if i and i in text]))


def parse_distill_answer(answer: str, text: str) -> dict[str, Any]:
    """An LLM distill answer → the distill dict; urls/commands/paths the LLM dropped are re-attached."""
    obj = parse_json_answer(answer, dict)
    fact = obj.get("fact")
    if not isinstance(fact, str) or not fact.strip():
        raise ValueError("answer has no fact")
    outcome = str(obj.get("outcome", "neutral")).strip().lower()
    emotion = obj.get("emotion")
    out = {
        "fact": " ".join(fact.split())[:400],
        "emotion": " ".join(emotion.split()).lower()[:40] if isinstance(emotion, str) and emotion.strip() else "neutral",
        "people": _str_list(obj.get("people"), 8),
        "topics": [t.lower() for t in _str_list(obj.get("topics"), 6)],
        "actions": _str_list(obj.get("actions"), 6),
        "outcome": outcome if outcome in OUTCOMES else "neutral",
        "urls": _verbatim(_str_list(obj.get("urls"), 50), extract_urls(text), text),
        "commands": _verbatim(_str_list(obj.get("commands"), 50), extract_commands(text), text),
        "paths": _verbatim(_str_list(obj.get("paths"), 50), extract_paths(text), text),
    }
    return {k: out[k] for k in KEYS}


def distill_llm(text: str, llm: LLM, timeout: float = 30.0) -> dict[str, Any]:
    """LLM distillation; on timeout, HTTP failure or a malformed answer, rule mode plus a `warning` key.

    The result has the distill keys plus `mode` ("llm" or "rule"). Pass redacted text: it leaves the device.
    """
    try:
        answer = llm.complete(distill_prompt(text), timeout=timeout)
        result = parse_distill_answer(answer, text)
        result["mode"] = "llm"
        return result
    except MemorydError as exc:
        reason = exc.message
    except ValueError as exc:
        reason = f"unusable answer ({exc})"
    result = distill(text)
    result["mode"] = "rule"
    result["warning"] = f"LLM distillation failed: {reason}; used rule mode"
    return result


def parse_tree_answer(answer: str, valid: Iterable[str], limit: int = MAX_TREE_PATHS) -> list[dict[str, Any]]:
    """An LLM tree-search answer → [{path, relevance, reason}] limited to known paths, best first."""
    obj = parse_json_answer(answer, (list, dict))
    if isinstance(obj, dict):  # {"paths": [...]} / {"results": [...]} / a single item
        obj = next((obj[k] for k in ("paths", "results", "categories", "matches") if isinstance(obj.get(k), list)), [obj])
    known = set(valid)
    best: dict[str, dict[str, Any]] = {}
    for item in obj:
        if isinstance(item, str):
            item = {"path": item}
        if not isinstance(item, dict) or not isinstance(item.get("path"), str):
            continue
        path = item["path"].strip().strip("/")
        if path not in known:
            continue
        try:
            rel = min(1.0, max(0.0, float(item.get("relevance", 0.5))))
        except (TypeError, ValueError):
            rel = 0.5
        reason = " ".join(str(item.get("reason", "")).split())[:200]
        if path not in best or rel > best[path]["relevance"]:
            best[path] = {"path": path, "relevance": rel, "reason": reason}
    return sorted(best.values(), key=lambda r: (-r["relevance"], r["path"]))[:limit]


def tree_search_llm(nodes: Mapping[str, Any], query: str, llm: LLM, counts: Mapping[str, Mapping[str, int]] | None = None,
                    extra: Iterable[str] = (), timeout: float = 30.0) -> tuple[list[dict[str, Any]] | None, str | None]:
    """(paths, None) from the LLM, or (None, warning) when the caller should fall back to keyword search."""
    extra = list(extra)
    try:
        answer = llm.complete(tree_search_prompt(nodes, query, counts, extra), timeout=timeout)
        paths = parse_tree_answer(answer, list(nodes) + extra)
    except MemorydError as exc:
        return None, f"LLM tree search failed: {exc.message}; used keyword search"
    except ValueError as exc:
        return None, f"LLM tree search gave an unusable answer ({exc}); used keyword search"
    if not paths:
        return None, "LLM tree search named no known category; used keyword search"
    return paths, None
