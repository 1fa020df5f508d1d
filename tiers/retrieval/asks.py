"""A memory that only asks: every sentence of it is a question or filler ("Wonderful! Did they send the lease yet?",
"Wait, any news about the puppy?"). It names what was talked about but holds no answer, so a question ranks it
below a memory that states something (time_rule.TimeRule.factor); nothing is dropped.
"""
from __future__ import annotations

import re
from functools import lru_cache

from memoryd.tiers.knowledge.lowvalue import is_low_value
from memoryd.tiers.retrieval.answer_shape import lang_data

_LABEL = re.compile(r"^\s*(?:\[[^\]]*\]\s*)?(?:@?[\w .'-]{1,40}:\s+)?")   # "Speaker: " or "@entity: "
_SENTENCE = re.compile(r"[^.!?。！？]+[.!?。！？]*")
_ASKS = re.compile(r"[?？]\W*$")
_EXCLAIMS = re.compile(r"^\D{1,30}[!！]+$")   # "Wonderful!", "Oh nice!", "太好了！": says how it felt, no fact
_QUESTION = re.compile(r"[?？]\W*$|^\W*(?:what|which|who|whom|whose|where|when|why|how|is|are|do|does|did|can|"
                       r"could|should|will|would)\b|(?:吗|呢|什么|哪|几|多少|谁)\W*$", re.I)


def asks_only(text: str) -> bool:
    """Whether every sentence of `text` is a question or filler, and one at least a question."""
    body = _LABEL.sub("", str(text), count=1).strip()
    sentences = [s.strip() for s in _SENTENCE.findall(body) if s.strip()]
    asked = False
    for s in sentences:
        if _ASKS.search(s):
            asked = True
        elif not (is_low_value(s) or (_EXCLAIMS.match(s) and len(s.split()) <= 3)):
            return False
    return asked


def is_question(query: str) -> bool:
    return _QUESTION.search(query.strip()) is not None


_TOLD_SENTENCE = re.compile(r"(?<=[.!?])\s+|(?<=[。！？；])|\n")  # `v2.1`, `4.5`: one value, no sentence end


def stated(text: str) -> str:
    """What a text says, less its sentences that ask (with a question mark, or in Chinese a word of asking:
    `我们现在收汇是哪个银行来着`): a value only asked about is no answer."""
    return " ".join(s for s in _TOLD_SENTENCE.split(text) if s.strip() and not s.rstrip().endswith(("?", "？"))
                    and not any(w in s for w in _asking_words()))


@lru_cache(maxsize=1)
def _asking_words() -> tuple[str, ...]:
    """Chinese words of asking (a word of now, `现在`, asks nothing by itself); English ones ask with a mark."""
    return tuple(w for w in lang_data("question_words")["zh"] if w not in ("现在", "目前", "而家"))
