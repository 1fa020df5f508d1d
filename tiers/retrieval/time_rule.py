"""What a question asks of the ranking (about time, and for an answer), read with tiers/retrieval/when.py.

    window   "in March", "last week", "上周": memories dated in it get ranking.DATE_BOOST (as before); with
             WINDOW_WORDS_OFF the words that named it ("march", "week") would stop counting as BM25 terms
             (measured on bench/recall: no gain, so they count)
    present  "where does Ana work now", "目前", or a question in the present tense with no word of the past
             ("who is Ana's manager?", "which database does it run on?"): the latest of the candidates is
             preferred, up to × (1 + PRESENT_BOOST) for the newest date (a later turn supersedes an earlier
             one). The tense alone: bench/corpus dev current at 1 0.445 → 0.593, stale above 0.296 → 0.185;
             bench/recall seed 7 recall@5 0.640 → 0.626 (temporal 0.508 → 0.479: a later mention outranks)
    when     "when did …", "on what day …", "哪天": a memory that says a time ("yesterday", "last Friday",
             "上周六") gets × WHEN_BOOST: the answer is a time, so the memory holding it says one
    answer   any question: a memory that only asks (tiers/retrieval/asks.py) holds no answer: × ASKS_ONLY
    shape    a question asking "how much", "what time", "how long", "which version": a memory holding an amount,
             a clock time, a duration, a number (tiers/retrieval/answer_shape.py) gets × SHAPE_BOOST
A query that is none of these gets no rule (None) and ranks as before.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from memoryd.tiers.retrieval import analyzer, answer_shape, when
from memoryd.tiers.retrieval.asks import asks_only, is_question

WINDOW_WORDS_OFF = False  # measured: no gain (temporal recall@5, seed 7: 0.498 against 0.506; 11, 13: equal)
PRESENT_BOOST = 0.5  # measured on bench/corpus dev: current at 1 0.371 → 0.408 (1.0: the same); recall@5 seed 7 unchanged
WHEN_BOOST = 1.2
SHAPE_BOOST = 1.2
ASKS_ONLY = 0.6  # bench/corpus dev current at 1 0.408 → 0.445; bench/recall seed 7 recall@5 0.621 → 0.640

_PRESENT = re.compile(r"\b(now|currently|current|these days|at the moment|nowadays|at present|latest)\b"
                      r"|目前|现在|現在|如今|眼下|当前|當前|最新|而家", re.I)
# a Chinese question (no tense) with no word of the past or of another time asks of now: `新房哪天交房？`
_ZH_ASKING = re.compile(r"[?？]\s*$|什么|什麼|哪|谁|誰|多少|几|幾|咩|边个|邊個")
_ZH_NOT_NOW = re.compile(r"以前|之前|原来|原來|原先|当时|當時|上次|那时|那時|曾经|曾經|过去|過去|本来|本來|起初|最早|"
                         r"第一次|去年|前年|小时候|小時候|先|在前|了|的[?？]?\s*$")  # 了: done; `是…的？`: asks of what happened
_PRESENT_TENSE = re.compile(r"^\W*(?:(?:on|at|in|for|with|to|from) )?(?:what|which|who|whom|whose|where|when|how)\b"
                            r"[^?]*?\b(?:is|are|does|do|has|have)\b", re.I)
_PAST = re.compile(r"\b(did|was|were|had|used to|before|previous(ly)?|originally|first|ago|last time|back then)\b",
                   re.I)
_WHEN = re.compile(r"\bwhen\b|\bwhat (day|date)\b|\bwhich (day|date)\b|\bhow long ago\b|哪天|哪一天|什么时候|几号|何时",
                   re.I)
_DAYS = "monday|tuesday|wednesday|thursday|friday|saturday|sunday"
_SAYS_TIME = re.compile(rf"\b(today|tonight|yesterday|tomorrow|this morning|last night|{_DAYS}|weekend"
                        r"|\d+ (days?|weeks?|months?) ago|(last|next|this) (week|month|year))\b"
                        r"|今天|今晚|昨天|昨晚|前天|明天|后天|上周|下周|这周|本周|周[一二三四五六日末]|星期|礼拜", re.I)


@dataclass
class TimeRule:
    span: when.Range | None = None
    words: set[str] = field(default_factory=set)  # the analyzer's terms of the window's expression
    present: float = 0.0   # the preference for the latest: PRESENT_BOOST or none
    asks_when: bool = False
    question: bool = False   # a question: a memory that only asks holds no answer to it
    shapes: tuple[re.Pattern[str], ...] = ()   # what the answer looks like (answer_shape.py)
    of_now: bool = False     # asks of now: present, or a Chinese question with no word of another time (latest.py)
    _order: dict[str, float] = field(default_factory=dict)

    def content(self, terms: list[str]) -> list[str]:
        """The query's terms less the window's words (all of them when nothing else is left)."""
        if not WINDOW_WORDS_OFF or not self.words:
            return terms
        return [t for t in terms if t not in self.words] or terms

    def prepare(self, cands: Sequence[Mapping[str, Any]]) -> "TimeRule":
        """For a present-tense question: each candidate date's place from oldest (0) to newest (1)."""
        if self.present:
            days = sorted({c["date"] for c in cands if c.get("date")})
            self._order = {d: i / (len(days) - 1) for i, d in enumerate(days)} if len(days) > 1 else {}
        return self

    def __call__(self, cand: Mapping[str, Any]) -> bool | None:
        """Whether the memory's date is in the window asked about (None: no window asked)."""
        return when.day_in(cand.get("date"), self.span) if self.span else None

    def factor(self, cand: Mapping[str, Any]) -> float:
        """The present and when preferences for this memory (1.0: none)."""
        out = 1.0
        if self.present and cand.get("date") in self._order:
            out *= 1 + self.present * self._order[cand["date"]]
        if self.asks_when and _SAYS_TIME.search(str(cand.get("text", ""))):
            out *= WHEN_BOOST
        if self.question and asks_only(str(cand.get("text", ""))):
            out *= ASKS_ONLY
        if self.shapes and answer_shape.holds_any(str(cand.get("text", "")), self.shapes):
            out *= SHAPE_BOOST
        return out


def time_rule(query: str, now: float | None) -> TimeRule | None:
    """The rule a question sets, or None when it asks nothing about time."""
    span = when.question_range(query, now)
    rule = TimeRule(span, set(analyzer.terms(when.expression(query) or "")) if span else set(),
                    _present(query),
                    WHEN_BOOST != 1.0 and _WHEN.search(query) is not None,
                    ASKS_ONLY != 1.0 and is_question(query),
                    answer_shape.asked(query) if SHAPE_BOOST != 1.0 and is_question(query) else ())
    rule.of_now = bool(rule.present) or _zh_of_now(query)
    return rule if rule.span or rule.present or rule.asks_when or rule.question or rule.shapes else None


def _present(query: str) -> float:
    if _PRESENT.search(query):
        return PRESENT_BOOST
    if _PRESENT_TENSE.search(query) and not _PAST.search(query):
        return PRESENT_BOOST
    return 0.0


def _zh_of_now(query: str) -> bool:
    """A Chinese question (no tense) with no word of the past, of having happened (了, `是…的？`) or of order (先):
    it asks of now, but only the latest band reads it, not the ranking's preference for the newest: over the
    generated recall benchmark's Chinese questions of events (`X的婚礼在什么地方举行？`) the preference cost R@1
    0.446 → 0.417, the band alone 0.429 (R@5 the same); bench/corpus current at 1 0.708 → 0.716, stale above
    0.137 → 0.129 (with the preference 0.720 / 0.123)."""
    return bool(_HAN.search(query) and _ZH_ASKING.search(query) and not _ZH_NOT_NOW.search(query))


_HAN = re.compile(r"[\u4e00-\u9fff]")


def time_factor(in_range: Any, cand: Mapping[str, Any]) -> float:
    """The rule's preference for a candidate (1.0 for a plain date predicate or none)."""
    factor = getattr(in_range, "factor", None)
    return factor(cand) if factor is not None else 1.0
