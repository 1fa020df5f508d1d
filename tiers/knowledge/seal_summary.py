"""A sealed group's summary text: extractive without an LLM (central sentences within a byte bound, dates,
numbers and names kept), abstractive with one (any LLM failure falls back to the extractive text)."""
from __future__ import annotations

import re
from collections import Counter
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from memoryd.tiers.knowledge.lowvalue import is_low_value

if TYPE_CHECKING:
    from memoryd.tiers.base.ports import LLM

_SENTENCE = re.compile(r"(?<=[.!?。！？])\s+|\n+")
_DATE = re.compile(r"\b\d{4}-\d{2}-\d{2}\b|\b\d{1,2}:\d{2}\b")
_NUMBER = re.compile(r"\d")
_NAME = re.compile(r"\s[A-Z][a-z]+")  # a capitalised word that does not start the sentence
_SIMILAR = 0.6        # a sentence sharing this much of its terms with one already chosen adds nothing new
LLM_INPUT_BYTES = 12_000  # what an abstractive prompt quotes of the members at most


def _utf8(text: str) -> int:
    return len(text.encode("utf-8"))


def cut(text: str, max_bytes: int) -> str:
    """`text` within `max_bytes` of UTF-8, cut at a character boundary with an ellipsis."""
    if _utf8(text) <= max_bytes:
        return text
    raw = text.encode("utf-8")[: max(0, max_bytes - 3)]
    return raw.decode("utf-8", errors="ignore").rstrip() + "…"


def sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE.split(text) if len(s.strip()) >= 3]


def _weight(sentence: str, terms: list[str], tf: Counter[str], members: int) -> float:
    """Centrality (how much of the group's vocabulary the sentence holds, shared terms counting most)
    plus a bonus for what a summary must not lose: dates, numbers, names."""
    if not terms:
        return 0.0
    shared = sum(min(tf[t], members) - 1 for t in set(terms)) / (len(set(terms)) ** 0.5)
    bonus = 1.0 * bool(_DATE.search(sentence)) + 0.5 * bool(_NUMBER.search(sentence)) + \
        0.5 * min(len(_NAME.findall(sentence)), 2)
    return shared + bonus


def extractive(members: Sequence[Mapping[str, Any]], max_bytes: int, head: str) -> str:
    """The most central sentences of the members, in their own order, within `max_bytes` (head included)."""
    from memoryd.tiers.retrieval.analyzer import terms as analyse

    found: list[tuple[int, int, str, list[str]]] = []  # (member #, sentence #, sentence, terms)
    for i, m in enumerate(members):
        role = (m.get("metadata") or {}).get("role")
        for j, s in enumerate(sentences(str(m.get("text", "")))):
            if not is_low_value(s, role):  # "Thanks, that helps.", "You're welcome!": a summary keeps what was said
                found.append((i, j, s, analyse(s)))
    tf: Counter[str] = Counter()
    for i, m in enumerate(members):  # document frequency across members, not raw counts
        tf.update({t for (k, _, _, ts) in found if k == i for t in ts})
    ranked = sorted(found, key=lambda f: (-_weight(f[2], f[3], tf, len(members)), f[0], f[1]))
    budget = max_bytes - _utf8(head) - 1
    chosen: list[tuple[int, int, str, list[str]]] = []
    used = 0
    for cand in ranked:
        words = set(cand[3])
        if any(words and len(words & set(c[3])) / len(words) >= _SIMILAR for c in chosen):
            continue
        size = _utf8(cand[2]) + 1
        if used + size > budget:
            continue
        chosen.append(cand)
        used += size
    if not chosen and ranked:  # one long sentence: its start, cut
        chosen = [(ranked[0][0], ranked[0][1], cut(ranked[0][2], budget), ranked[0][3])]
    body = " ".join(c[2] for c in sorted(chosen, key=lambda c: (c[0], c[1])))
    return cut(_with_details(f"{head} {body}".strip(), [str(m.get("text", "")) for m in members], max_bytes),
               max_bytes)


def _with_details(text: str, texts: list[str], max_bytes: int) -> str:
    """The dates and names the chosen sentences left out, listed after them while they fit."""
    details: list[str] = []
    for t in texts:
        for found in (*_DATE.findall(t), *(n.strip() for n in _NAME.findall(t))):
            if found not in text and found not in details:
                details.append(found)
    out = text
    for i, d in enumerate(details):
        trial = f"{out}{' Also: ' if i == 0 else ', '}{d}"
        if _utf8(trial) > max_bytes:
            break
        out = trial
    return out


def prompt(members: Sequence[Mapping[str, Any]], max_bytes: int, topic: str) -> str:
    lines, used = [], 0
    for m in members:
        line = f"- {' '.join(str(m.get('text', '')).split())}"
        if used + _utf8(line) > LLM_INPUT_BYTES:
            break
        lines.append(line)
        used += _utf8(line) + 1
    return ("Summarise these memories about one topic into one paragraph. Keep every date, number, amount and "
            f"name that matters. Answer with the summary only, at most {max_bytes // 2} characters.\n"
            f"Topic: {topic}\nMemories:\n" + "\n".join(lines))


def summarise(members: Sequence[Mapping[str, Any]], max_bytes: int, head: str, topic: str,
              llm: LLM | None = None, warn: Any = None) -> tuple[str, str]:
    """(text, how): the LLM's summary when an LLM is given and answers, else the extractive one.
    `warn(message)` hears why an LLM answer was not used."""
    if llm is not None:
        from memoryd.tiers.base.errors import MemorydError

        try:
            answer = " ".join(llm.complete(prompt(members, max_bytes, topic), timeout=30.0).split())
            if answer:
                return cut(f"{head} {answer}", max_bytes), "llm"
            problem = "an empty answer"
        except MemorydError as exc:
            problem = exc.message
        except Exception as exc:  # a broken endpoint must not stop sealing: rules take over
            problem = f"{type(exc).__name__}: {exc}"
        if warn is not None:
            warn(f"summary of {topic!r} written without the LLM ({problem})")
    return extractive(members, max_bytes, head), "extractive"
