"""A memory that only asks: every sentence of it is a question or filler ("Wonderful! Did they send the lease yet?",
"Wait, any news about the puppy?"). It names what was talked about but holds no answer, so a question ranks it
below a memory that states something (time_rule.TimeRule.factor); nothing is dropped.
"""
from __future__ import annotations

import re

from memoryd.tiers.knowledge.lowvalue import is_low_value

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
