"""Dates in questions ("in May 2023", "last week", "昨天", "2024-03-05") → a UTC day range, and the date of a memory."""
from __future__ import annotations

import re
import time
from datetime import date, datetime, timedelta, timezone
from typing import Any, Mapping

from memoryd.tiers.memory.said import said_day

MONTHS = {m: i + 1 for i, m in enumerate(
    "january february march april may june july august september october november december".split())}
MONTHS.update({m[:3]: n for m, n in list(MONTHS.items())})
MONTHS["sept"] = 9
_MON = r"(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
_NUM_WORDS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
              "eight": 8, "nine": 9, "ten": 10, "few": 3, "couple": 2, "several": 3}

_ISO = re.compile(r"\b(\d{4})-(\d{1,2})-(\d{1,2})\b")
_MON_DAY_YEAR = re.compile(rf"\b{_MON}\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?(?:,?\s+(\d{{4}}))?\b", re.I)
_DAY_MON_YEAR = re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?{_MON}\.?(?:,?\s+(\d{{4}}))?\b", re.I)
_MON_YEAR = re.compile(rf"\b{_MON}\.?,?\s+(?:of\s+)?(\d{{4}})\b", re.I)
_IN_MON = re.compile(rf"\b(?:in|during|since|early|late|mid)\s+{_MON}\b", re.I)
_IN_YEAR = re.compile(r"\b(?:in|during|of)\s+((?:19|20)\d{2})\b", re.I)
_AGO = re.compile(r"\b(\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|few|couple|several)\s+(?:of\s+)?"
                  r"(day|week|month|year)s?\s+ago\b", re.I)
_ZH_FULL = re.compile(r"(\d{4})\s*年\s*(\d{1,2})\s*月(?:\s*(\d{1,2})\s*[日号])?")
_ZH_MON_DAY = re.compile(r"(?<![\d年])(\d{1,2})\s*月\s*(\d{1,2})\s*[日号]")
_ZH_YEAR = re.compile(r"(\d{4})\s*年(?!\s*\d{1,2}\s*月)")
_RELATIVE = (  # (pattern, days back to the start, length in days)
    (re.compile(r"\bday before yesterday\b|前天", re.I), 2, 1),
    (re.compile(r"\byesterday\b|昨天|昨日", re.I), 1, 1),
    (re.compile(r"\btoday\b|\btonight\b|今天|今日", re.I), 0, 1),
    (re.compile(r"\blast week\b|\bpast week\b|上周|上个?星期|上个?礼拜", re.I), 7, 7),
    (re.compile(r"\bthis week\b|这周|本周|这个?星期", re.I), 6, 7),
    (re.compile(r"\blast weekend\b|上个?周末", re.I), 8, 4),
)

_LAST_MONTH = re.compile(r"\blast month\b|上个?月", re.I)
_LAST_YEAR = re.compile(r"\blast year\b|去年", re.I)
# every pattern above, in the order question_range tries them: the first that matches is the expression
_EXPRESSIONS = (_ISO, _ZH_FULL, _ZH_MON_DAY, _MON_DAY_YEAR, _DAY_MON_YEAR, _MON_YEAR, _IN_MON, _IN_YEAR, _ZH_YEAR,
                *(p for p, _, _ in _RELATIVE), _AGO, _LAST_MONTH, _LAST_YEAR)

Range = tuple[float, float]


def _day(y: int, m: int, d: int) -> date | None:
    try:
        return date(y, m, d)
    except ValueError:
        return None


def _span(start: date | None, end: date | None) -> Range | None:
    if start is None or end is None or end <= start:
        return None
    as_ts = lambda d: datetime(d.year, d.month, d.day, tzinfo=timezone.utc).timestamp()  # noqa: E731
    return as_ts(start), as_ts(end)


def _month(y: int, m: int) -> Range | None:
    start = _day(y, m, 1)
    return _span(start, _day(y + (m == 12), m % 12 + 1, 1)) if start else None


def _year_of(month: int, day: int, today: date) -> int:
    """A date without a year: the most recent one not in the future."""
    candidate = _day(today.year, month, min(day, 28) if month == 2 and day == 29 else day)
    return today.year if candidate is None or candidate <= today else today.year - 1


def _absolute(text: str, today: date) -> Range | None:
    if m := _ISO.search(text):
        d = _day(int(m[1]), int(m[2]), int(m[3]))
        return _span(d, d + timedelta(days=1)) if d else None
    if m := _ZH_FULL.search(text):
        y, mo = int(m[1]), int(m[2])
        if m[3]:
            d = _day(y, mo, int(m[3]))
            return _span(d, d + timedelta(days=1)) if d else None
        return _month(y, mo)
    if m := _ZH_MON_DAY.search(text):
        mo, dd = int(m[1]), int(m[2])
        d = _day(_year_of(mo, dd, today), mo, dd) if 1 <= mo <= 12 else None
        return _span(d, d + timedelta(days=1)) if d else None
    for pattern, order in ((_MON_DAY_YEAR, "md"), (_DAY_MON_YEAR, "dm")):
        if m := pattern.search(text):
            mon, day = (m[1], m[2]) if order == "md" else (m[2], m[1])
            mo, dd = MONTHS[mon.lower()[:4] if mon.lower().startswith("sept") else mon.lower()[:3]], int(day)
            y = int(m[3]) if m[3] else _year_of(mo, dd, today)
            d = _day(y, mo, dd)
            return _span(d, d + timedelta(days=1)) if d else None
    if m := _MON_YEAR.search(text):
        return _month(int(m[2]), MONTHS[m[1].lower()[:3]])
    if m := _IN_MON.search(text):
        mo = MONTHS[m[1].lower()[:3]]
        return _month(today.year if mo <= today.month else today.year - 1, mo)
    if m := _IN_YEAR.search(text) or _ZH_YEAR.search(text):
        y = int(m[1])
        return _span(_day(y, 1, 1), _day(y + 1, 1, 1))
    return None


def _relative(text: str, today: date) -> Range | None:
    for pattern, back, length in _RELATIVE:
        if pattern.search(text):
            start = today - timedelta(days=back)
            return _span(start, start + timedelta(days=length))
    if m := _AGO.search(text):
        n = int(m[1]) if m[1].isdigit() else _NUM_WORDS[m[1].lower()]
        unit = {"day": 1, "week": 7, "month": 30, "year": 365}[m[2].lower()]
        center = today - timedelta(days=n * unit)
        slack = max(1, unit // 2)  # "two weeks ago" is roughly, not exactly, 14 days
        return _span(center - timedelta(days=slack), center + timedelta(days=slack + 1))
    if _LAST_MONTH.search(text):
        first = today.replace(day=1)
        prev = first - timedelta(days=1)
        return _month(prev.year, prev.month)
    if _LAST_YEAR.search(text):
        return _span(_day(today.year - 1, 1, 1), _day(today.year, 1, 1))
    return None


def expression(query: str) -> str | None:
    """The words of the date expression question_range reads in a question, or None."""
    for pattern in _EXPRESSIONS:
        if m := pattern.search(query):
            return m.group(0)
    return None


def question_range(query: str, now: float | None = None) -> Range | None:
    """The UTC day range a question asks about, or None."""
    today = datetime.fromtimestamp(time.time() if now is None else now, timezone.utc).date()
    return _absolute(query, today) or _relative(query, today)


def memory_date(entry: Mapping[str, Any]) -> str | None:
    """A memory's date (YYYY-MM-DD): the day it was said (tiers/memory/said.py), the index's day, else when it
    was stored (a hot item: its timestamp)."""
    meta = entry.get("metadata")
    if isinstance(meta, Mapping) and (meta or entry.get("created_at")):  # a stored memory (hot items have none)
        return said_day(entry)
    day = entry.get("day")
    if isinstance(day, str) and len(day) == 10:
        return day
    stamp = entry.get("created_at") or entry.get("timestamp")
    if isinstance(stamp, (int, float)) and stamp > 0:
        return time.strftime("%Y-%m-%d", time.gmtime(stamp))
    return None


def day_in(day: str | None, span: Range) -> bool:
    if not day:
        return False
    try:
        ts = datetime.strptime(day, "%Y-%m-%d").replace(tzinfo=timezone.utc).timestamp()
    except ValueError:
        return False
    return span[0] <= ts < span[1]
