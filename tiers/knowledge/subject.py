"""Claims: the (subject, attribute) a statement gives a value for — "the garage code is 4417", "we moved to
Berlin", "the meeting moved to Friday", "we switched to Postgres for the database", "车库密码改成了9931".

Rules only, English and Chinese, deliberately narrow: an attribute must be one of a known set of
nouns (code, address, phone, date, version, …; an event's date needs a date-like value), a choice
must name what it is for. A statement the rules do not key has no claim and is never superseded
by them (tiers/knowledge/same_thing.py asks the LLM, when configured, about near-equal subjects).
"""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from memoryd.tiers.knowledge.restate import core_text

ATTRIBUTES = (r"code|pin|passcode|password|combination|address|phone(?: number)?|number|e-?mail|birthday|budget|"
              r"price|rent|salary|version|port|ip|url|wifi(?: name)?|location|office|room|favou?rite \w+|name|"
              r"plan|deadline|due date|start date|date|time")
EVENTS = r"meeting|appointment|call|standup|stand-up|interview|party|flight|launch|release|demo|review|dinner|lunch"
_DET = r"(?:(?:the|my|our|your|his|her|their|new|current|old|updated)\s+)*"
_SUBJ = rf"(?P<subj>(?:[\w'-]+\s+){{0,3}}?(?:{ATTRIBUTES}))"
_EVENT = rf"(?P<subj>(?:[\w'-]+\s+){{0,2}}?(?:{EVENTS}))"
_IS = r"(?:is now|is|are|was|has changed to|has been changed to|changed to|was changed to|is changed to|will be|" \
      r"became|has become|became|got changed to)"
_MOVED = r"(?:is now|is|was|will be|has been moved to|has moved to|was moved to|moved to|got moved to|" \
         r"is moved to|is rescheduled (?:to|for)|was rescheduled (?:to|for)|rescheduled to|was postponed to|" \
         r"postponed to|is postponed to|is set for|is scheduled for)"
_DATEISH = re.compile(r"\d|\b(?:today|tomorrow|tonight|monday|tuesday|wednesday|thursday|friday|saturday|sunday|"
                      r"jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?|"
                      r"oct(?:ober)?|nov(?:ember)?|dec(?:ember)?|next week|noon|midnight)\b")
_RULES_EN = (
    ("attr", re.compile(rf"^{_DET}{_SUBJ}\s*(?::|{_IS}\b)\s*(?P<val>.+)$", re.IGNORECASE)),
    ("when", re.compile(rf"^{_DET}{_EVENT}\s+{_MOVED}\s+(?:on\s+|at\s+|to\s+|for\s+)?(?P<val>.+)$", re.IGNORECASE)),
    ("home", re.compile(r"^(?:we|i)(?:'ve| have)?\s+(?:just\s+|now\s+)?(?:moved|relocated)\s+to\s+(?P<val>.+)$|"
                        r"^(?:we|i)\s+(?:now\s+)?live\s+(?:in|at)\s+(?P<val2>.+?)(?:\s+now)?$", re.IGNORECASE)),
    ("choice", re.compile(r"^(?:we|i|the team)(?:'ve| have)?\s+(?:finally\s+)?(?:chose|chosen|picked|decided on|"
                          r"decided to use|switched to|switched from \S+ to|went with|are going with|'re going with|"
                          r"settled on|will use|are using|'re using|moved to)\s+(?P<val>.+?)\s+(?:for|as)\s+"
                          r"(?:the\s+|our\s+|my\s+)?(?P<subj>[\w' -]{2,40})$", re.IGNORECASE)),
)
_ZH_ATTR = r"密码|地址|住址|电话|号码|手机号|邮箱|生日|预算|价格|房租|工资|版本|端口|名字|截止日期|日期|时间"
_ZH_EVENT = r"会议|例会|面试|约会|航班|发布|聚会|晚饭|午饭|评审"
_RULES_ZH = (
    ("attr", re.compile(rf"^(?P<subj>[\u4e00-\u9fff\w]{{0,8}}?(?:{_ZH_ATTR}))(?:现在|已经)?(?:是|为|改成了?|改为|换成了?|"
                        rf"变成了?|更新为|[:：])\s*(?P<val>.+)$")),
    ("when", re.compile(rf"^(?P<subj>[\u4e00-\u9fff\w]{{0,6}}?(?:{_ZH_EVENT}))(?:现在|已经)?(?:改到了?|推迟到了?|"
                        rf"提前到了?|定在了?|安排在了?|在)\s*(?P<val>.+)$")),
    ("home", re.compile(r"^(?:我们|我)(?:已经)?(?:搬到了?|搬去了?|住在)(?P<val>.+)$")),
    ("choice", re.compile(r"^(?:我们|我|团队)?(?P<subj>[\u4e00-\u9fff\w]{2,8}?)(?:改用|选用|换成了?|决定用|选择了?|采用)"
                          r"(?P<val>.+)$")),
)
_PRONOUNS = {"我们", "我", "团队", "we", "i", "you", "they", "he", "she", "it", "他", "她", "他们", "你"}
_HOME = {"address", "home address", "地址", "住址", "家庭地址", "家的地址", "家地址"}
_OWNER = re.compile(r"^(?:my|our|the|我们的|我们|我的|我)\s*")
_SENTENCE = re.compile(r"(?<=[.!?。！？；;])\s*")
_VALUE_END = re.compile(r"(?:[,;，；。！？!?]|\.(?:\s|$)|\s(?:and|but|because|so|since|which)\s|\s+now$|现在$)")


@dataclass(frozen=True)
class Claim:
    """What a statement says a thing's value is: `key` names the thing, `value` its value (both normalised)."""

    key: str
    value: str
    subject: str  # the words the key came from (for the LLM's question about near-equal subjects)


def _norm(text: str) -> str:
    return " ".join(text.casefold().replace("’", "'").split())


def _value(raw: str) -> str:
    cut = _VALUE_END.split(raw, maxsplit=1)[0]
    return _norm(cut.strip(" \"'“”‘’"))


def _subject(raw: str) -> str:
    words = _norm(raw)
    prev = None
    while prev != words:
        prev, words = words, _OWNER.sub("", words).strip()
    return words.replace("的", "")


@functools.lru_cache(maxsize=8192)
def claim_of(text: str) -> Claim | None:
    """The first claim a text makes (one per memory is enough), or None."""
    for sentence in _SENTENCE.split(core_text(text)):
        sentence = core_text(sentence)
        if not sentence:
            continue
        found = _match(sentence)
        if found is not None:
            return found
    return None


def _match(sentence: str) -> Claim | None:
    rules = _RULES_ZH if re.search(r"[\u4e00-\u9fff]", sentence) else _RULES_EN
    for kind, rx in rules:
        m = rx.match(sentence)
        if not m:
            continue
        groups = m.groupdict()
        value = _value(groups.get("val") or groups.get("val2") or "")
        if not value or len(value) > 80:
            continue
        if kind == "home":
            return Claim("home address", value, "home address")
        subject = _subject(groups.get("subj") or "")
        if not subject or subject in _PRONOUNS:
            continue
        subject = "home address" if subject in _HOME else subject
        if kind == "when" and not (_DATEISH.search(value) or re.search(r"[\d一二三四五六七八九十周日月号点]", value)):
            continue
        key = f"{'choice for ' if kind == 'choice' else ''}{subject}{' date' if kind == 'when' else ''}"
        return Claim(key, value, subject)
    return None
