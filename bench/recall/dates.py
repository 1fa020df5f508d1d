"""Relative date phrases in turns ("last Saturday", "昨天") and date expressions in questions ("last week", "2025年5月")."""
from __future__ import annotations

import datetime as dt
import random
import re

DAY = dt.timedelta(days=1)
MONTHS_EN = ("January February March April May June July August September October November December").split()
SATURDAY, FRIDAY, SUNDAY = 5, 4, 6


def _last_weekday(day: dt.date, weekday: int) -> dt.date:
    """The most recent `weekday` strictly before `day` (1..7 days back)."""
    back = (day.weekday() - weekday) % 7 or 7
    return day - back * DAY


def _next_weekday(day: dt.date, weekday: int) -> dt.date:
    ahead = (weekday - day.weekday()) % 7 or 7
    return day + ahead * DAY


def _prev_week(day: dt.date, weekday: int) -> dt.date:
    """That weekday in the calendar week (Monday first) before `day`'s: 上周六."""
    return day - (day.weekday() + 7 - weekday) * DAY


# Phrases a speaker uses about an event, seen from the day of the conversation.
EVENT_PHRASES = {
    "en": {"today": lambda d: d, "yesterday": lambda d: d - DAY, "two days ago": lambda d: d - 2 * DAY,
           "last Saturday": lambda d: _last_weekday(d, SATURDAY), "last Friday": lambda d: _last_weekday(d, FRIDAY),
           "on Sunday": lambda d: _next_weekday(d, SUNDAY)},
    "zh": {"今天": lambda d: d, "昨天": lambda d: d - DAY, "前天": lambda d: d - 2 * DAY,
           "上周六": lambda d: _prev_week(d, SATURDAY), "上周五": lambda d: _prev_week(d, FRIDAY),
           "下周日": lambda d: d + (13 - d.weekday()) * DAY},
}
PAST = {"en": ("yesterday", "two days ago", "last Saturday", "last Friday", "today"),
        "zh": ("昨天", "前天", "上周六", "上周五", "今天")}


def resolve(phrase: str, day: dt.date, lang: str) -> dt.date:
    """The date a relative phrase names when said on `day`."""
    return EVENT_PHRASES[lang][phrase](day)


def pick_past(rng: random.Random, day: dt.date, lang: str) -> tuple[str, dt.date]:
    """A phrase for an event in the past few days (the choice never depends on the date: stable text)."""
    phrase = rng.choice(PAST[lang])
    return phrase, resolve(phrase, day, lang)


def month_expr(day: dt.date, lang: str) -> str:
    return f"{MONTHS_EN[day.month - 1]} {day.year}" if lang == "en" else f"{day.year}年{day.month}月"


def recent_expr(day: dt.date, today: dt.date, lang: str) -> str | None:
    """How someone asking on `today` refers to `day`, if it is recent; None when it is not."""
    gap = (today - day).days
    names = {"en": ("yesterday", "the day before yesterday", "earlier this week", "last week"),
             "zh": ("昨天", "前天", "这周", "上周")}[lang]
    if gap == 1:
        return names[0]
    if gap == 2:
        return names[1]
    week = today - today.weekday() * DAY
    if 0 < gap and day >= week:
        return names[2]
    if week - 7 * DAY <= day < week:
        return names[3]
    return None


_MONTH_EN = re.compile(r"^(" + "|".join(MONTHS_EN) + r") (\d{4})$")
_MONTH_ZH = re.compile(r"^(\d{4})年(\d{1,2})月$")


def window(expr: str, today: dt.date) -> tuple[dt.date, dt.date]:
    """The days (first, last) a question's date expression covers, asked on `today`."""
    m = _MONTH_EN.match(expr)
    year, month = (int(m.group(2)), MONTHS_EN.index(m.group(1)) + 1) if m else (0, 0)
    m2 = _MONTH_ZH.match(expr)
    if m2:
        year, month = int(m2.group(1)), int(m2.group(2))
    if year:
        first = dt.date(year, month, 1)
        nxt = dt.date(year + month // 12, month % 12 + 1, 1)
        return first, nxt - DAY
    week = today - today.weekday() * DAY
    spans = {"yesterday": (today - DAY, today - DAY), "昨天": (today - DAY, today - DAY),
             "the day before yesterday": (today - 2 * DAY, today - 2 * DAY), "前天": (today - 2 * DAY, today - 2 * DAY),
             "earlier this week": (week, today - DAY), "这周": (week, today - DAY),
             "last week": (week - 7 * DAY, week - DAY), "上周": (week - 7 * DAY, week - DAY)}
    if expr not in spans:
        raise ValueError(f"unknown date expression {expr!r}")
    return spans[expr]
