"""Importance without an LLM: intrinsic type (seed 001) + explicit and content signals (seeds 000/001), en + zh."""
from __future__ import annotations

import re

from memoryd.tiers.distillation.rxgate import Gated, GateSet, Scan

# Intrinsic types, highest first (seed 001): identity/health/safety 1.0, preference/relationship/status 0.8.
_INTRINSIC: tuple[tuple[str, float, tuple[str, ...]], ...] = (
    ("identity", 1.0, (r"my name is", r"call me", r"i am \d+ years old", r"i was born", r"my birthday",
                       r"我叫", r"我的名字", r"我是\d+岁", r"我的生日", r"出生于", r"身份证")),
    ("health", 1.0, (r"allerg\w*", r"diabet\w*", r"asthma", r"blood type", r"medication", r"prescription",
                     r"pregnan\w*", r"epilep\w*", r"my doctor", r"过敏", r"糖尿病", r"哮喘", r"血型", r"药物", r"怀孕", r"病史")),
    ("safety", 1.0, (r"emergency contact", r"emergency", r"never (?:ever )?(?:run|delete|share|give|use|push)",
                     r"danger\w*", r"unsafe", r"safety", r"紧急联系人", r"紧急", r"危险", r"安全", r"绝对不要", r"千万不要")),
    ("preference", 0.8, (r"i (?:really )?(?:prefer|like|love|hate|dislike|enjoy|can't stand)", r"prefers?", r"favou?rite",
                         r"i'd rather", r"喜欢", r"讨厌", r"偏好", r"更喜欢", r"不喜欢", r"最爱", r"习惯用")),
    ("relationship", 0.8, (r"my (?:wife|husband|partner|girlfriend|boyfriend|mother|mom|father|dad|son|daughter|"
                           r"brother|sister|friend|boss|manager|colleague|cofounder|co-founder)",
                           r"我(?:的)?(?:妻子|老婆|丈夫|老公|女朋友|男朋友|妈妈|母亲|爸爸|父亲|儿子|女儿|哥哥|姐姐|弟弟|妹妹|朋友|老板|同事|合伙人)")),
    ("status_change", 0.8, (r"(?:new|changed|switched|quit|left) (?:my )?jobs?", r"(?:i|we|i've|we've) (?:just )?moved to", r"got (?:married|divorced|engaged|promoted|hired|fired)",
                            r"started (?:working|a new)", r"i (?:now )?work (?:at|for)", r"换工作", r"搬家", r"搬到", r"结婚", r"离婚",
                            r"辞职", r"入职", r"升职", r"跳槽")),
)
_TEMPORARY = (r"today", r"tonight", r"this (?:morning|afternoon|evening|week)", r"tomorrow", r"right now", r"for now",
              r"in a (?:minute|moment|bit)", r"later today", r"今天", r"今晚", r"下午", r"上午", r"明天", r"刚才", r"马上", r"待会", r"稍后")
# Category prefixes that carry an intrinsic type on their own.
_CATEGORY_TYPES = (("identity", 1.0), ("health", 1.0), ("safety", 1.0), ("preferences", 0.8), ("preference", 0.8),
                   ("relationships", 0.8), ("people", 0.8), ("temp", 0.2), ("scratch", 0.2))

# Explicit signals (seed 001): how the user says it. Negated forms are checked first and masked.
_NEGATED = (("not_important", -0.2, (r"not (?:very |that |so )?important", r"unimportant", r"doesn't matter", r"不重要", r"无所谓")),
            ("no_remember", 0.0, (r"(?:don't|do not|can't|cannot|didn't|never) remember", r"不记得", r"记不住", r"忘了")))
_EXPLICIT = (("remember", 0.5, (r"remember", r"don't forget", r"never forget", r"from now on", r"always", r"keep in mind",
                                r"note that", r"记住", r"记得", r"以后都", r"永远", r"别忘了", r"不要忘记", r"保存")),
             ("important", 0.3, (r"important", r"critical", r"crucial", r"essential", r"must", r"key point",
                                 r"重要", r"关键", r"必须", r"务必")),
             ("by_the_way", -0.2, (r"by the way", r"btw", r"fyi", r"just saying", r"顺便说一下", r"顺便", r"随便说说")))
# Content signals (seed 000's table), summed then capped at CONTENT_CAP so they refine rather than dominate.
_CONTENT = (("money", 0.20, (r"[$€£¥]\s?\d+(?:[.,]\d+)*", r"\d+(?:\.\d+)?\s?(?:万|块|元|美元|dollars?|usd|rmb|eur|k\b)",)),
            ("need", 0.15, (r"need", r"want", r"需要", r"想要")),
            ("error", 0.15, (r"bug", r"error", r"exception", r"crash\w*", r"traceback", r"报错", r"错误", r"异常", r"崩溃")),
            ("version", 0.10, (r"v?\d+\.\d+\.\d+",)),
            ("project", 0.10, (r"project", r"项目")),
            ("config", 0.10, (r"config\w*", r"settings?", r"\.env", r"配置")),
            ("success", 0.10, (r"completed", r"succeeded", r"success\w*", r"shipped", r"完成", r"成功")),
            ("credentials", 0.05, (r"api key", r"credentials?", r"凭证", r"密钥")),
            ("date", 0.05, (r"\d{4}-\d{2}-\d{2}", r"\d{1,2}\s?月\s?\d{1,2}\s?[日号]", r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)\w* \d{1,2}\b")))
CONTENT_CAP = 0.2
SHORT_CHARS = 20
DEFAULT = 0.5
TEMPORARY = 0.2
FLOOR = 0.05  # nothing a user chose to store starts out frozen


def _compile(words: tuple[str, ...]) -> Gated:
    """One alternation for lowercased text: English words get boundaries, CJK phrases match as substrings.
    Gated: a text holding none of the words' literal parts is not searched (most texts hold none)."""
    en = [w for w in words if not re.search(r"[\u4e00-\u9fff]", w)]
    zh = [w for w in words if re.search(r"[\u4e00-\u9fff]", w)]
    parts = ([r"(?<![\w])(?:" + "|".join(en) + r")(?![\w])"] if en else []) + (["|".join(zh)] if zh else [])
    return Gated("|".join(parts))


_INTRINSIC_RX = [(n, v, _compile(w)) for n, v, w in _INTRINSIC]
_TEMPORARY_RX = _compile(_TEMPORARY)
_NEGATED_RX = [(n, v, _compile(w)) for n, v, w in _NEGATED]
_EXPLICIT_RX = [(n, v, _compile(w)) for n, v, w in _EXPLICIT]
_CONTENT_RX = [(n, v, _compile(w)) for n, v, w in _CONTENT]
# every gate above, checked in one pass over the text per call (rxgate.Scan)
_GATES = GateSet([g for rows in (_INTRINSIC_RX, _NEGATED_RX, _EXPLICIT_RX, _CONTENT_RX) for _, _, g in rows]
                 + [_TEMPORARY_RX])


def _intrinsic(scan: Scan, category: str) -> tuple[float, str]:
    best, name = -1.0, ""
    may, text = scan.open, scan.text
    for kind, value, rx in _INTRINSIC_RX:
        if value > best and rx in may and rx.rx.search(text):
            best, name = value, kind
    head = category.strip("/").split("/")[0].lower() if category else ""
    for prefix, value in _CATEGORY_TYPES:
        if head == prefix and value > best and value > TEMPORARY:
            best, name = value, f"category:{prefix}"
    if best >= 0:
        return best, name
    if scan.search(_TEMPORARY_RX) or head in ("temp", "scratch"):
        return TEMPORARY, "temporary"
    return DEFAULT, "general"


def rule_importance(text: str, category: str = "") -> tuple[float, list[str]]:
    """Importance in 0..1 and the reasons for it (kept in the entry's metadata)."""
    text = (text or "").lower()
    scan = _GATES.scan(text)
    base, kind = _intrinsic(scan, category)
    reasons = [f"intrinsic:{kind}={base:g}"]
    score = base
    for name, delta, rx in _NEGATED_RX:
        if scan.search(rx):
            score += delta
            reasons.append(f"signal:{name}{delta:+g}")
            scan = _GATES.scan(rx.rx.sub(" ", scan.text))  # masked: later signals read what is left
    explicit = False
    may, masked = scan.open, scan.text
    for name, delta, rx in _EXPLICIT_RX:
        if rx in may and rx.rx.search(masked):
            score += delta
            explicit = explicit or delta > 0
            reasons.append(f"signal:{name}{delta:+g}")
    content = 0.0
    for name, delta, rx in _CONTENT_RX:
        if rx in may and rx.rx.search(masked):
            content += delta
            reasons.append(f"content:{name}+{delta:g}")
    if content:
        score += min(content, CONTENT_CAP)
    if len(text.strip()) < SHORT_CHARS and base == DEFAULT and not explicit:
        score *= 0.5  # seed 000: short text is rarely a durable fact
        reasons.append("short:x0.5")
    score = round(min(1.0, max(FLOOR, score)), 3)
    return score, reasons
