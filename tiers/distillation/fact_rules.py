"""Rule-mode reading of what a person said or wrote: decision, preference, personal fact, lesson, task, event.

Shared by conversation-end distillation and daily notes. English and Chinese. Pure functions:
`extract(text, ref_date)` gives at most one `Fact` per sentence that is worth keeping (questions,
chit-chat and acknowledgements give none), each with a category, an importance floor, the date it
is about (due date, event date) and, for owner preferences and identity, an owner-profile key.
"""
from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass

from memoryd.tiers.distillation.rxgate import Gated, GateSet, Scan
from memoryd.tiers.distillation.standing import cue_gate, lang_data, says_standing, standing, without_lead
from memoryd.tiers.knowledge.lang_words import words_rx

KIND_CATEGORY = {"decision": "decisions", "preference": "owner/preferences", "personal": "owner/facts",
                 "lesson": "lessons", "task": "tasks", "event": "events", "fact": "notes"}
KIND_FLOOR = {"decision": 0.8, "preference": 0.8, "personal": 0.8, "lesson": 0.9, "task": 0.75, "event": 0.7,
              "fact": 0.6}
MAX_FACT_CHARS = 300


def _rx(en: str, zh: str = "", more: str = "") -> Gated:
    """Gated: most sentences hold none of the pattern's words and are not searched at all. `more`: the name of a
    data file (lang/<more>.json) whose `en` and `zh` patterns join the built-in ones."""
    if more:
        data = lang_data(more)
        en, zh = "|".join([en, *data["en"]]), "|".join([p for p in (zh, *data["zh"]) if p])
    return Gated(rf"(?i)(?:{en})" + (f"|{zh}" if zh else ""))


_LESSON = _rx(r"\blessons? learned\b(?!\s*(?:[.!?…]|$))|\blesson:|\blearned the hard way\b|\bnote to self\b|(?:\b(?:i|we)(?:'m|'ll|'re| am| are| will| shall)? |\bim |^\s*|[:;,.!]\s*)never (?!(?:see|hear|find|live)\b)(?:[\w']+ ){1,8}again\b|"
              r"\b(?:we|i) learned that\b(?! the hard way)(?!\s*(?:[.!?…]|$))|\btakeaway:|\blesson from [^:.!?]{1,40}:|\blesson for (?:me|myself|us):|"
              r"\brule for (?:me|myself|us|the [^:.!?]{1,30}):|\bmy rule:|\b(?:that|this|it) to my checklist\b",
              r"教训|吸取.{0,6}经验|以后再也不|经验是", "lessons")
_DECISION = _rx(r"\bdecision:|\b(?:we|i)(?:'ve| have)? decided\b|\bdecided to\b|\blet'?s go with\b|"
                r"\b(?:we|i)(?:'ll| will) go with\b|\bwe(?:'re| are) going with\b|\b(?:we|i) (?:chose|picked|settled on)\b|"
                r"\bwe agreed\b|\bagreed to\b|\bwe(?:'ll| will) (?:use|switch to|move to)\b|\bdecided:",
                r"决定|定了|就用|选定|最终选|拍板|确定用")
_TASK = _rx(r"\bremind me (?:to|about)\b|\b(?:i|we) (?:need|have|must) to (?!(?:be|feel|think|know|admit|say|accept|"
            r"remember|understand|realize|realise|stop (?:thinking|worrying))\b)|\b(?:i|we) must\b|\bdon'?t (?:let me )?forget\b|"
            r"\btodo:|\bto-do:|\btask:|\bdeadline\b|\bdue (?:on|by)\b|\b(?:i|we)(?:'ll| will) (?:send|finish|call|write|"
            r"prepare|renew|book|pay|review|submit|ship|fix)\b",
            r"提醒我|记得要|别忘了|我要在|需要在|截止|之前(?:要)?完成|待办")
_EVENT_WORDS = _rx(r"\b(?:meeting|review|appointment|appt|call|flight|party|dinner|lunch|conference|interview|wedding|"
                   r"birthday|trip|visit|demo|launch|release|standup|workshop|dentist|doctor|offsite|deadline|"
                   r"consultation|check-?up|surgery|operation|scan|exam|session|class|gig|concert|match|viewing|"
                   r"inspection|hearing|ceremony|graduation|reception|rehearsal|shoot|handover)\b",
                   r"会议|开会|面试|约了|航班|聚餐|生日|看牙|医生|发布会|出差|体检|复查|复诊|手术|考试|婚礼|聚会|演出|"
                   r"比赛|看房|签约|答辩|例会|周会|约会")
_PREFERENCE = _rx(r"\bi (?:really |much |strongly )?(?:prefer|like|love|hate|dislike|enjoy|can'?t stand)\b|\bi'?d rather\b|"
                  r"\bmy favou?rite\b|\bi (?:only|never|always) (?:take|do|drink|eat|use|work|fly|read|answer)\b|"
                  r"\bi don'?t (?:drink|eat|like|use|do)\b|\bfor anything urgent\b|"
                  r"\b(?:message|call|text|email|ping|reach|contact) me (?:on|via|at|by)\b|\bplease (?:always|never)\b|"
                  r"\bkeep that in mind\b|\bprefers?\b",
                  r"喜欢|更喜欢|偏好|不喝|只喝|不吃|习惯用|请用|以后.{0,8}请")
_PERSONAL = _rx(r"\bmy name is\b|\bi'?m [A-Z][a-z]+ [A-Z][a-z]+\b|\bcall me [A-Z]|\bi (?:just )?(?:moved|relocated) to\b|"
                r"\bi live in\b|\bmy (?:birthday|passport|wife|husband|partner|son|daughter|kids?|mother|mom|father|dad|"
                r"dog|cat|address|doctor|dentist|visa|licen[cs]e)\b|\bi work (?:at|for|as)\b|\bi(?:'m| am) allergic\b|"
                r"\bi was born\b", r"我叫|我住在|我搬到|我的生日|我(?:的)?(?:老婆|妻子|丈夫|老公|孩子|护照)|我在.{1,12}工作|我对.{1,8}过敏")
_REMEMBER = _rx(r"\b(?:please )?remember (?:that|this)\b|\bkeep in mind\b|\bnote that\b|\bfor the record\b|"
                r"\bfrom now on\b", r"记住|请记得|以后都")
_QUESTION = Gated(r"[?？]\s*$")
# never mind (算了), not a sum worked out (`算了一下`, `算了算`) nor a word holding it (`超预算了`, `不划算了`, `打算了`)
_NOT_A_FACT = _rx(r"\bjust for context\b|\bnothing to do\b|\bfor reference only\b|\bjust an example\b|"
                  r"\bhypothetically\b|\bjust kidding\b|\bnever mind\b", r"开玩笑|随便说说|(?<![预划重不打计清结核估换盘])算了(?![一下算])")
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(])|(?<=[。！？；])|\n+")
_PREFIX = re.compile(r"(?i)^(?:hi|hey|hello|ok(?:ay)?|so|well|also|and|btw|by the way|please|oh)\b[,!.]?\s*|^(?:顺便说一下|另外|还有)[，,]?")
# `call me X` asked of the listener (a clause's start, `just`, `please`, `you can`), not told of others (`the boys on
# the depot call me X`: a nickname they use, not the name the owner gives)
_NAME = re.compile(r"(?:\b[Mm]y name is|\bI'?m|(?:^|[.!?,;:]\s*|\b(?:just|please|pls|can)\s+)[Cc]all me)"
                   r"\s+([A-Z][a-z]+(?: [A-Z][a-z]+)?)")
_PROFILE_KEYS = ((r"urgent|紧急", "urgent contact"), (r"meeting|会议|开会", "meeting hours"),
                 (r"周报|中文|chinese|english|language|语言", "language"), (r"\b(?:coffee|teas?)\b|咖啡|茶", "drinks"),
                 (r"time ?zone|europe/|america/|asia/|calendar|时区", "timezone"), (r"email|e-mail|邮件", "email"),
                 (r"\b(?:food|eat|eating|vegetarian|vegan)\b|吃", "food"))  # words: not "seats", "team"


@dataclass
class Fact:
    kind: str
    text: str
    category: str
    importance: float
    about: str | None = None        # YYYY-MM-DD the fact is about (due date, event date)
    profile_key: str | None = None

    @property
    def hot_text(self) -> str:
        """The text for a hot task/event: without "remind me to" and with its date."""
        text = re.sub(r"(?i)^(?:please )?(?:remind me (?:to|about)|don'?t (?:let me )?forget (?:to )?|提醒我)\s*", "",
                      self.text).strip()
        text = text[:1].upper() + text[1:]
        if not self.about or self.about in text:
            return text[:200]
        day = f" ({self.about})"  # kept whole when the text is cut: hot reads an item's day from it (hot.day_of)
        body = text.rstrip(".")
        return (body if len(body) + len(day) <= 200 else body[:199 - len(day)].rstrip() + "…") + day


PAST_DAYS = 120  # a day without a year said of the past is one of the last four months
_MONTHS = {m: i for i, m in enumerate(("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov",
                                       "dec"), start=1)}
_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_ISO = Gated(r"\b(\d{4})-(\d{2})-(\d{2})\b")
# a month's name or its short form, whole: `marrying. 14 guests` and `maybe 12 chairs` name no day
_MONTH = (r"(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|"
          r"oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)")
_MONTH_DAY = Gated((
    rf"(?i)\b{_MONTH}\.? (\d{{1,2}})(?:st|nd|rd|th)?\b"
    rf"(?:,? (\d{{4}}))?|\b(\d{{1,2}})(?:st|nd|rd|th)? (?:of )?{_MONTH}\b(?: (\d{{4}}))?"))
_ZH_DATE = Gated(r"(?:(\d{4})年)?(\d{1,2})月(\d{1,2})[日号]")
_RELATIVE = Gated((
    r"(?i)\b(tomorrow|today|tonight|next week|(?:next|this|on|by|until|before) (?:monday|tuesday|"
    r"wednesday|thursday|friday|saturday|sunday))\b(?!'s)|(明天|后天|今天|下周)"))


def _safe_date(y: int, m: int, d: int) -> str | None:
    try:
        return dt.date(y, m, d).isoformat()
    except ValueError:
        return None


def named_date(text: str, ref: dt.date) -> str | None:
    """find_date's day where the text names it (ISO, "Dec 4", "4 December", "12月4日"); None for a relative
    one (tomorrow, next Friday): which day that is depends on when it was said, and a move rule stays silent."""
    first = next(((gate, m) for gate in (_ISO, _MONTH_DAY, _ZH_DATE) if (m := gate.search(text))), None)
    if not first:
        return None
    return (_move_cue().search(text) and _moved_day(text, ref)) or _day_of(*first, ref)


def find_date(text: str, ref: dt.date, scan: Scan | None = None) -> str | None:
    """The first date `text` names (ISO, "Dec 4", "4 December", "12月4日", tomorrow, next Friday), or None.

    `scan`: scan(text), when the caller checks the same text with classify() too (alone, each
    gate's own check is cheaper than a scan for every gate of this module)."""
    search = scan.search if scan is not None else lambda gate: gate.search(text)
    first = next(((gate, m) for gate in (_ISO, _MONTH_DAY, _ZH_DATE) if (m := search(gate))), None)
    if first:  # every date of the sentence is read only where a word of change says one replaced another
        return (_move_cue().search(text) and _moved_day(text, ref)) or _day_of(*first, ref)
    m = search(_RELATIVE)
    if not m:
        return None
    word = (m.group(1) or m.group(2)).lower()
    if word in ("today", "tonight", "今天"):
        return ref.isoformat()
    if word in ("tomorrow", "明天"):
        return (ref + dt.timedelta(days=1)).isoformat()
    if word == "后天":
        return (ref + dt.timedelta(days=2)).isoformat()
    if word in ("next week", "下周"):
        return (ref + dt.timedelta(days=7 - ref.weekday())).isoformat()
    target = _WEEKDAYS.index(word.split()[-1])
    ahead = (target - ref.weekday()) % 7 or 7
    return (ref + dt.timedelta(days=ahead + (7 if word.startswith("next ") and ahead < 7 - ref.weekday() else 0))
            ).isoformat()


def _day_of(gate: Gated, m: re.Match[str], ref: dt.date) -> str | None:
    if gate is _ISO:
        return _safe_date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
    if gate is _ZH_DATE:
        return _safe_date(int(m.group(1) or ref.year), int(m.group(2)), int(m.group(3)))
    mon, day, year = (m.group(1), m.group(2), m.group(3)) if m.group(1) else (m.group(5), m.group(4), m.group(6))
    if year:
        return _safe_date(int(year), _MONTHS[mon.lower()[:3]], int(day))
    # no year: the first such day at most PAST_DAYS ago (`the fee went up on November 2`, said on the 20th, is this
    # November's; `since December 1`, said in January, the last; `due February 9`, said in November, the coming one;
    # `the gala is on November 6`, said in May, this November's, not the one six months gone)
    earliest = ref - dt.timedelta(days=PAST_DAYS)
    days = [d for y in (ref.year - 1, ref.year, ref.year + 1)
            if (d := _safe_date(y, _MONTHS[mon.lower()[:3]], int(day))) is not None and d >= earliest.isoformat()]
    return days[0] if days else None


# A day moved or corrected in one sentence: "moved from 14 February to 8 March", "I wrote March 28 but it's
# actually March 21", 从3月12号改到3月19号. The day it has now is the one after the change, not the first named.
def _move_cue() -> re.Pattern[str]:
    return words_rx("reschedule_words")  # the one list of words of moving a day (lang/<code>.json), read when used
_TO_LINK = re.compile(r"(?i)\s*(?:to|->|→|到)\s*")


def _moved_day(text: str, ref: dt.date) -> str | None:
    """The day after a change in a sentence naming two or more: each named day that a change word (or `from X to`
    after one) leads to replaces the one before it; None when no day is so led to."""
    found = sorted(((m.start(), m.end(), gate, m) for gate in (_ISO, _MONTH_DAY, _ZH_DATE)
                    for m in gate.rx.finditer(text)), key=lambda f: f[:2])
    chosen = None
    for (_, end, _, _), (start, _, gate, m) in zip(found, found[1:]):
        between = text[end:start]
        if _move_cue().search(between) or (_TO_LINK.fullmatch(between) and _move_cue().search(text, 0, start)):
            chosen = (gate, m)
    return _day_of(*chosen, ref) if chosen else None


def sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE.split(text) if s and s.strip()]


# A lesson cue says what was learned: "lessons learned." alone or "I learned that the hard way" (that: what was
# said before) states no lesson of its own.
# "never X again" is a lesson in the person's own voice ("I'm never deploying … again") or as a rule ("one rule:
# never let … again"); "everyone says you'll never see it again" is hearsay, and what happens to one ("I'll never
# see him again", "we'll never hear the end of it again") is a lament, not a rule.
# First match wins: a lesson stated as a decision is a lesson; an event needs a date
_ORDER = (("lesson", _LESSON, False), ("decision", _DECISION, False), ("task", _TASK, False),
          ("event", _EVENT_WORDS, True), ("preference", _PREFERENCE, False), ("personal", _PERSONAL, False),
          ("fact", _REMEMBER, False))


def classify(sentence: str, has_date: bool, scan: Scan | None = None) -> str | None:
    """The kind of one sentence, or None when it is nothing to keep (`scan`: scan(sentence))."""
    scan = scan or GATES.scan(sentence)
    if scan.search(_QUESTION) or len(sentence) < 6 or scan.search(_NOT_A_FACT):
        return None
    may, text = scan.open, scan.text
    kind = next((kind for kind, rx, needs_date in _ORDER
                 if (has_date or not needs_date) and rx in may and rx.rx.search(text)), None)
    # a standing statement the kind words do not name ("metric units always", 我吃素): the profile may keep it
    return "preference" if kind in (None, "fact") and says_standing(sentence, scan) else kind


# every gate of classify and find_date: one pass over a sentence's needles for all of them
GATES = GateSet([_ISO, _MONTH_DAY, _ZH_DATE, _RELATIVE, _QUESTION, _NOT_A_FACT, cue_gate()] + [rx for _, rx, _ in _ORDER])


def scan(text: str) -> Scan:
    return GATES.scan(text)


def owner_cue(clause: str) -> bool:
    """Whether a clause says a preference or a personal fact (the part of a sentence the profile is about)."""
    return any(rx.rx.search(clause) for rx in (_PREFERENCE, _PERSONAL))


def profile_key(kind: str, text: str) -> str | None:
    """The owner-profile key a standing preference (or the owner's name) is filed under; None for the rest.

    Right or silent: a reaction ("I love this song"), one occasion ("tonight I'd rather order in"), a
    hypothetical or a past habit stays in warm (standing.py), and so do personal facts that change (where the
    owner lives): MEMORY.md would show them after they stopped being true."""
    if kind == "personal" and _NAME.search(text) and not re.search(r"(?i)moved|live in|passport|birthday", text):
        return "name"
    if kind not in ("preference", "personal") or not standing(text):
        return None  # a personal fact with no standing cue (where the owner lives) changes: warm keeps it
    for pattern, key in _PROFILE_KEYS:
        if re.search(pattern, text, re.IGNORECASE):
            return key
    words = [w.lower() for w in re.findall(r"[A-Za-z]{3,}|[\u4e00-\u9fff]{2,}", without_lead(text))
             if w.lower() not in ("prefer", "like", "love", "always", "never", "please", "the", "and", "don't", "rather", "than")]
    if words and not words[0].isascii():
        return words[0][:8]  # a Chinese clause is one run of characters: its first eight say what it is about
    return " ".join(words[:3])[:40] or None


def _tidy(sentence: str) -> str:
    text = _PREFIX.sub("", sentence.strip()).strip()
    text = text[:1].upper() + text[1:] if text[:1].isascii() else text
    return text if len(text) <= MAX_FACT_CHARS else text[:MAX_FACT_CHARS - 1].rstrip() + "…"


def extract(text: str, ref_date: str | dt.date, limit: int = 2) -> list[Fact]:
    """The facts worth keeping in `text` (one per sentence, at most `limit`), most important first.

    A sentence that is no fact itself but follows one ("…, that's the deciding point") is its reason
    and stays with it while the fact is short.
    """
    ref = dt.date.fromisoformat(ref_date) if isinstance(ref_date, str) else ref_date
    found: list[Fact] = []
    last: Fact | None = None
    for sentence in sentences(text):
        seen = GATES.scan(sentence)
        about = find_date(sentence, ref, seen)
        kind = classify(sentence, about is not None, seen)
        if kind is None:
            if last is not None and not _QUESTION.search(sentence) and len(last.text) + len(sentence) < MAX_FACT_CHARS:
                last.text = f"{last.text} {sentence.strip()}"
            last = None
            continue
        clean = _tidy(sentence)
        key = profile_key(kind, sentence.strip())
        if kind == "personal" and key == "name":
            name = _NAME.search(clean)
            clean = f"The owner's name is {name.group(1)}." if name and len(clean) < 40 else clean
        last = Fact(kind, clean, KIND_CATEGORY[kind], KIND_FLOOR[kind],
                    about if kind in ("task", "event", "personal") else None, key)
        found.append(last)
    found.sort(key=lambda f: -f.importance)
    return found[:limit]
