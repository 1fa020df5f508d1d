"""A claim grammar: what thing a sentence gives a value for, in the many ways people say it — "Office address:
12 Elm St", "the build server is now X", "we switched the CI for api to X", "the team moved the sync to
Friday", "X uses Node 22", "went with X for the queue", "X → Y", "付款方式：支付宝", "小明搬到深圳了".

A Statement is (subject terms, relation, value). The subject is normalised (articles, possessives, owner words,
lead-ins such as "Noted:" or "Just a reminder:", Retain labels "W @x:", case, hyphens, stems) into a set of
terms that tiers/knowledge/things.py compares by overlap; the relation is "is" for every way of stating or
changing a value ("is", ":", "runs on", "moved to", "based in", "uses", …) and the predicate's own word where
it names a different relation ("allergic to", "prefers", "负责"), so "Bob is allergic to nuts" never stands in
for "Bob is on the data team". tiers/knowledge/subject.py's narrower claims come first where they match.
"""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass, replace

from memoryd.tiers.knowledge.restate import core_text
from memoryd.tiers.knowledge.subject import claim_of
from memoryd.tiers.retrieval import analyzer

IS = "is"
USES = "uses"
PREFERS = "prefers"
HAS = "has"
MANY_VALUED = {"uses": USES, "prefers": PREFERS, "has": HAS}  # relations whose new value never replaces an old one
# attributes a person or thing has many of: "New hobby: watercolour" is one more hobby, not the end of the last
_MANY_ATTR = re.compile(r"\b(?:hobby|hobbies|interests?|pets?|kids?|children|languages?|skills?|allerg(?:y|ies)|"
                        r"friends?|favou?rites?)\b|爱好|兴趣|宠物|孩子|语言|技能|朋友")
VERSIONED = re.compile(r"^[a-z][\w.+#-]*\s+v?\d+(?:\.\d+)*$")  # "node 20", "postgres 16", "python 3.12"
MAX_SUBJECT_WORDS = 8
MAX_VALUE = 80
HEAD_CHARS, HEAD_SENTENCES = 240, 3  # a memory states its value early; the rules read no further (speed)

_LABEL = re.compile(r"^\s*(?:[-*]\s+)?(?:[WBOS](?:\([^)]*\))?\s+)?@[^\s:：]+\s*[:：]\s*|^\s*[WBOS](?:\([^)]*\))?\s+(?=@)")
_LEAD = re.compile(
    r"^\s*(?:(?:(?:just\s+)?(?:a\s+)?(?:quick\s+)?reminder|as\s+i\s+(?:said|mentioned|told\s+you)(?:\s+(?:before|earlier))?|"
    r"heads[\s-]up|calendar\s+updated|updated?|btw|by\s+the\s+way|fyi|good\s+to\s+know|nice|great|cool|"
    r"ok(?:ay)?|noted|got\s+it|understood|sure|alright|right|yes|correct|done|perfect|for\s+the\s+record|"
    r"再提醒一下|提醒一下|明白了?|好的|收到|记住|注意|更新|对)(?:\s*[:：,，!！.。—–-]\s*)|"
    r"(?:(?:i'?ll|i\s+will)\s+(?:remember|note)(?:\s+that)?|(?:please\s+)?(?:remember|note)\s+that|"
    r"don'?t\s+forget(?:\s+that)?|keep\s+in\s+mind(?:\s+that)?)\s+(?=\S))", re.IGNORECASE)
_PRONOUN = frozenset("it this that there here everything nothing something he she they we i you who what which "
                     "也 他 她 它 他们 我们 我 你 这 那 这个 那个".split())
_OWNER = re.compile(r"^(?:(?:the|a|an|my|our|your|his|her|their|its|new|current|old|updated|latest|weekly|daily)\s+)+")
_VALUE_END = re.compile(r"(?:[,;，；。！？!?(（]|\.(?:\s|$)|\s(?:and|but|because|so|since|which|who|until|after|before|"
                        r"though|although|while)\s|\s—\s|\s-\s)")
_VALUE_TAIL = re.compile(r"(?:\s+(?:now|from now on|as of (?:today|now|this \w+)|starting (?:today|now|\w+day)|"
                         r"today|tonight|yesterday|last (?:night|week|month|year)|this (?:morning|week|month|quarter|year)|again|too|"
                         r"already|anymore|going forward|for now|instead|these days|currently))+$|"
                         r"(?:现在|了|啦|吧|呢|啊|工作|上班|住)+$")
_VALUE_HEAD = re.compile(r"^(?:on|at|in|to|from|for|the|a|an|now|currently|still)\s+")
_URL = re.compile(r"[\w-]+\.[a-z]{2,}[/:]\S|://|\S@\S+\.\w")
DATE_WORD = re.compile(r"\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\b|\b(?:mon|tues|wednes|thurs|fri|"
                        r"satur|sun)days?\b|[年月日号点周]|星期|[ap]m\b|\d:\d")
_DIGIT = re.compile(r"\d|[一二三四五六七八九十]月|周[一二三四五六日]|星期")

_MONTH = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?"
_DAY = r"(?:mon|tues|wednes|thurs|fri|satur|sun)days?"
_WHEN = (rf"(?:{_MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?|\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH}|"
         rf"{_DAY}(?:\s+(?:at\s+)?\d[\d:.]*\s*(?:am|pm)?)?)")
# "is" in all its tenses and changes, and the adjectives that keep "is" a value ("based in", "hosted on")
_COPULA = (r"(?:is|are|was|were|will be|has become|have become|became|becomes|has been|have been|"
           r"(?:has |have |was |is |got |has been |have been )?(?:changed|updated|set|switched|moved|reset) to|"
           r"is set for|is scheduled for|was scheduled for|is rescheduled (?:to|for)|(?:was |is |has been )?"
           r"(?:rescheduled|postponed|pushed|brought forward|moved) (?:to|for))")
_VALUE_ADJ = frozenset("based located hosted situated stationed living staying working running deployed kept stored "
                       "housed held scheduled set planned due available reachable".split())
_ADJ = r"(?P<adj>[a-z]+(?:ic|ible|able|ful|ous|ive|ent|ant|ed|ing|ar))"
_PREP = r"(?:to|of|for|with|in|at|about|on|from|by)"
# verbs that state where or on what a thing is ("runs on", "lives at", "uses")
_AT_VERB = (r"(?:runs?|running|lives?|sits?|works?|comes?|visits?|meets?|happens?|stays?|operates?|resides?|"
            r"takes? place|is held|are held|gets? built|builds?|deploys?|ships?)")
_CHANGE_VERB = (r"(?:switch(?:ed)?|mov(?:e|ed)|chang(?:e|ed)|migrat(?:e|ed)|upgrad(?:e|ed)|downgrad(?:e|ed)|"
                r"bump(?:ed)?|updat(?:e|ed)|set|reset|reschedul(?:e|ed)|postpon(?:e|ed)|push(?:ed)?|shift(?:ed)?|"
                r"transferr?(?:ed)?|relocat(?:e|ed)|renam(?:e|ed)|point(?:ed)?|repoint(?:ed)?|rais(?:e|ed)|"
                r"lower(?:ed)?|increas(?:e|ed)|reduc(?:e|ed)|cut)")
_WHO = r"(?:(?:we|i|they|you|he|she|someone|everyone|the team|[a-z][\w'-]*(?:\s+[a-z][\w'-]*)?)\s+)?"
_AUX = r"(?:(?:have|has|'ve|had|just|finally|already|also|will|'ll|asked to|wants? to|decided to|agreed to|" \
       r"need to|plan to|planned to|are going to|'re going to|going to)\s+)*"
_RULES_EN: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("colon", re.compile(r"^(?P<subj>(?:[^:：=→]|:(?=\S)){1,60}?)\s*(?::\s|：|\s(?:→|->|=>|=)\s)\s*(?P<val>.+)$")),
    ("changed", re.compile(rf"^(?P<subj>.+?)\s+(?:has\s+|have\s+|was\s+|is\s+|got\s+)?(?:changed|moved|switched|"
                           rf"migrated|relocated|gone|went|upgraded|downgraded|shifted|been moved|been changed)\s+"
                           rf"(?:back\s+|over\s+)?(?:from\s+.+?\s+)?to\s+(?P<val>.+)$")),
    ("change", re.compile(rf"^{_WHO}{_AUX}{_CHANGE_VERB}\s+(?P<subj>.+?)\s+(?:back\s+|over\s+|up\s+|down\s+)?"
                          rf"(?:from\s+.+?\s+)?(?:to|into)\s+(?P<val>.+)$")),
    ("use", re.compile(rf"^{_WHO}{_AUX}(?:use|uses|used|are using|'re using|am using|'m using|chose|choose|picked|"
                       rf"pick|went with|go with|going with|settled on|opted for|switched to|moved to|migrated to|"
                       rf"standardi[sz]ed on|rely on)\s+(?P<val>.+?)\s+(?:for|as)\s+(?P<subj>.+)$")),
    # a change told as an event done: "finished the Atlas database upgrade to Postgres 16", "completed the move to X"
    ("event", re.compile(rf"^{_WHO}{_AUX}(?:finished|completed|did|done|started|began|wrapped up|kicked off|rolled out)"
                         rf"\s+(?:with\s+)?(?:the\s+|our\s+)?(?P<subj>.+?)\s+(?P<event>migration|upgrade|move|switch|"
                         rf"transition|cutover|rollout|relocation)\s+(?:from\s+.+?\s+)?to\s+(?P<val>.+)$")),
    # a team joined: "Bob starts with the billing team on Monday", "Ana joined the data team"
    ("joins", re.compile(r"^(?P<subj>.+?)\s+(?:starts?|started|is starting|will start)\s+(?:with|on|in)\s+"
                         r"(?P<val>(?:the\s+)?[\w -]+?\s+(?P<team>team|squad|group|department))\b|"
                         r"^(?P<subj2>.+?)\s+(?:joins|joined|is joining|will join)\s+"
                         r"(?P<val2>(?:the\s+)?[\w -]+?\s+(?P<team2>team|squad|group|department))\b")),
    # a preference: many-valued as "uses" (someone prefers many things), its value cut before a comparison
    ("prefers", re.compile(r"^(?P<subj>.+?)\s+(?:now\s+|still\s+|really\s+|much\s+)?(?:prefers|likes|loves|favou?rs)"
                           r"\s+(?P<val>.+?)(?:\s+(?:better than|rather than|more than|over|instead of)\s.*)?$")),
    ("uses", re.compile(r"^(?P<subj>.+?)\s+(?:now\s+|still\s+|currently\s+)?(?:uses|use|is using|are using|"
                        r"relies on|depends on|is built (?:on|with)|is written in|is powered by)\s+"
                        r"(?P<val>.+)$")),
    ("at", re.compile(rf"^(?P<subj>.+?)\s+(?:now\s+|still\s+|currently\s+|only\s+)?{_AT_VERB}\s+(?:now\s+)?"
                      rf"(?:on|in|at|from|out of|via|through|every|each)\s+(?P<val>.+)$")),
    ("copula", re.compile(rf"^(?P<subj>.+?)\s+{_COPULA}\s+(?:now\s+|currently\s+|still\s+|officially\s+)?"
                          rf"(?:{_ADJ}\s+{_PREP}\s+|(?P<prep>about|with|like|against|under|of|by)\s+)?(?P<val>.+)$")),
    # no verb, a number or date last: "garage code 6150", "call with Tom on March 19", "standup mondays at 9:30"
    ("bare", re.compile(rf"^(?P<subj>[a-z0-9](?:[\w' .-]|:(?=\S)){{1,50}}?)\s+(?:on\s+|at\s+|for\s+|from\s+)?"
                        rf"(?P<val>{_WHEN}|[€$£¥]\d[\w:.,/-]*(?:\s+(?:a|an|per)\s+[a-z]+|\s+[a-z]+)?|"
                        rf"#?\d{{3,}}[\w:./-]*|\d[\d.:/-]*\d[\d.:/-]*\d[\w.:/-]*)$")),  # a code, not "fact 3"
)
_ZH_IS = r"(?:现在|目前|已经|如今|还)?(?:是|为|改成了?|改为|换成了?|变成了?|更新为|更新成|调整为|定为|设为|[:：]|→)"
_ZH_AT = r"(?:现在|目前|已经|如今|还)?(?:搬到了?|搬去了?|调到了?|去了|住在|位于|在)"
_ZH_CHANGE = r"(?:改到了?|推迟到了?|提前到了?|定在了?|安排在了?|挪到了?)"
_ZH_REL = r"(?:负责|接手了?|接管了?|主管|管理|喜欢|偏好|过敏|讨厌|擅长)"
_ZH_SAME_REL = {"接手": "负责", "接手了": "负责", "接管": "负责", "接管了": "负责", "主管": "负责", "管理": "负责"}
_RULES_ZH: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("colon", re.compile(r"^(?P<subj>[^:：]{1,20}?)\s*[:：]\s*(?P<val>.+)$")),
    ("rel", re.compile(rf"^(?P<subj>[^，,。\s]{{1,10}}?)(?:现在|目前|已经|还)?(?P<rel>{_ZH_REL})(?P<val>.+)$")),
    ("is", re.compile(rf"^(?:我们|我|团队)?(?P<subj>[^，,。\s]{{1,14}}?){_ZH_IS}\s*(?P<val>.+)$")),
    ("at", re.compile(rf"^(?P<subj>[^，,。\s]{{1,14}}?){_ZH_AT}\s*(?P<val>.+)$")),
    ("change", re.compile(rf"^(?P<subj>[^，,。\s]{{1,14}}?)(?:现在|已经)?{_ZH_CHANGE}\s*(?P<val>.+)$")),
    ("use", re.compile(r"^(?:我们|我|团队)?(?P<subj>[^，,。\s]{1,10}?)(?:改用|选用|决定用|选择了?|采用|使用|用)(?P<val>.+)$")),
)
# CJK words of a subject that carry no thing of their own (function words, tense, place-holders)
_ZH_FILLER = re.compile(r"(?:说|表示|提到|告诉我|听说)(?:她|他|它|他们)?|所在|现在|目前|已经|这周|本周|上周|下周|今天|昨天|明天|这个月|下个月|上个月|开始|又|也|还|都|就|"
                        r"的|了|所|在")
_ZH_ATTR = re.compile(r"(城市|地址|住址|地点|位置|电话|号码|手机号|邮箱|生日|预算|价格|费用|房租|工资|版本|端口|名字|"
                      r"日期|时间|团队|部门|职位|角色|联系人|负责人|密码|供应商|区域|服务器)")
# what a sentence must hold for a rule to match it at all: one cheap search instead of a rule's backtracking
_GATES = {
    "colon": re.compile(r":\s|：|→|->|=>|\s=\s"),
    "changed": re.compile(r"\b(?:changed|moved|switched|migrated|relocated|gone|went|upgraded|downgraded|shifted|"
                          r"been moved|been changed)\s"),
    "change": re.compile(rf"\b{_CHANGE_VERB}\s"),
    "use": re.compile(r"\b(?:use|uses|used|using|chose|choose|picked|pick|went|go|going|settled|opted|switched|moved|"
                      r"migrated|standardi[sz]ed|rely)\b"),
    "uses": re.compile(r"\b(?:uses|use|using|relies|depends|built|written|powered)\b"),
    "event": re.compile(r"\b(?:migration|upgrade|move|switch|transition|cutover|rollout|relocation)\s+(?:from\s.+\s)?to\s"),
    "prefers": re.compile(r"\b(?:prefers|likes|loves|favou?rs)\s"),
    "joins": re.compile(r"\b(?:starts?|started|starting|start|joins|joined|joining|join)\s.*\b(?:team|squad|group|department)\b"),
    "at": re.compile(rf"\s{_AT_VERB}\s+(?:now\s+)?(?:on|in|at|from|out of|via|through|every|each)\s"),
    "copula": re.compile(rf"\s{_COPULA}\s"),
    "bare": re.compile(r"\d"),
}
_ZH_REL_END = re.compile(rf"({_ZH_REL})$")
# words naming what kind of thing a subject is, not which one ("Project Orion" is "Orion")
KIND_WORDS = frozenset("project compani inc ltd corp mr ms mrs dr".split())
# a business's trade after its name ("Brightline Accounting" is "Brightline", "Kestrel Cleaning" is "Kestrel"):
# dropped from a subject only where it follows a capitalised name, so "the accounting team" keeps its word
_TRADE = re.compile(r"\b[A-Z][\w&'-]+\s+(Accounting|Consulting|Cleaning|Services|Solutions|Partners|Labs?|Studios?|"
                    r"Agency|Systems|Technologies|Holdings|Bank|Insurance|Legal|Logistics|Group|GmbH|LLC|Co)\b")
# a value naming a role makes "X is <value>" X's role ("Alice is head of platform", "Bob is a tech lead")
_ROLE = re.compile(r"^(?:an?\s+|the\s+)?(?:[\w-]+\s+){0,2}?(?:lead|head|manager|director|engineer|developer|designer|"
                   r"architect|analyst|cto|ceo|cfo|coo|vp|president|founder|co-founder|intern|owner|chair|officer|"
                   r"scientist|researcher|consultant|advisor|principal|maintainer|editor-in-chief)(?:\s+(?:of|for|at|on)\b.*)?$")
# a value naming a person's place for someone ("the Brightline contact", "our accountant at Kestrel")
_HOLDER = re.compile(r"^(?:the|our|my|your|their)\s+((?:[\w&'-]+\s+){0,3}?(?:contact|point of contact|accountant|lawyer|"
                     r"dentist|doctor|landlord|account manager|rep|representative|liaison))$")
_SENTENCE = re.compile(r"(?<=[!?。！？；;])\s*|(?<=[^\s.]{2}\.)\s+|(?<=\.)$")


@dataclass(frozen=True)
class Statement:
    """What a sentence says a thing's value is: subject terms, the relation, the value (normalised)."""

    subject: frozenset[str]
    rel: str
    value: str
    words: str  # the subject as written (normalised), for logs and the LLM's question

    @property
    def shape(self) -> str:
        """The kind of value: "url", "number" (digits, dates) or "word": a new value keeps its thing's shape."""
        return value_shape(self.value)


def value_shape(value: str) -> str:
    if _URL.search(value):
        return "url"
    if not _DIGIT.search(value):
        return "word"
    alnum = [c for c in value if c.isalnum()]
    digits = sum(c.isdigit() for c in alnum)
    # a code, an amount, a date or a time — not a name that happens to hold a digit ("Harbor-5G")
    numeric = digits * 10 >= 3 * len(alnum) or value[:1] in "0123456789#€$£¥" or DATE_WORD.search(value)
    return "number" if numeric else "word"


def norm_value(raw: str) -> str:
    """A value as compared: cut at the end of its clause, without lead prepositions, articles or time words."""
    cut = _VALUE_END.split(raw, maxsplit=1)[0]
    value = " ".join(cut.casefold().replace("’", "'").strip(" \"'“”‘’`*").split())
    prev = None
    while prev != value:
        prev = value
        value = _VALUE_TAIL.sub("", value).strip()
        value = _VALUE_HEAD.sub("", value).strip()
    return value.strip(" \"'“”‘’`*.")


def subject_terms(words: str) -> frozenset[str]:
    """The subject's terms: stems of its Latin words (possessives, stop words and hyphens gone), its CJK run
    split at known attribute words with function characters dropped ("王芳所在城市" → {王芳, 城市})."""
    out: set[str] = set()
    for part in re.split(r"([\u3400-\u9fff]+)", words):
        if not part.strip():
            continue
        if re.match(r"[\u3400-\u9fff]", part):
            for piece in _ZH_ATTR.split(_ZH_FILLER.sub(" ", part)):
                out.update(w for w in piece.split() if w)
        else:
            out.update(_SHORT.get(t, t) for t in analyzer.terms(part))
    return frozenset(out)


# a subject's short words as their long ones ("Orion prod region" is "Orion production region")
_SHORT = {"prod": "product", "env": "environ", "config": "configur", "cfg": "configur", "doc": "document",
          "dev": "develop", "k8s": "kubernet"}


def _clean_subject(raw: str) -> str:
    words = " ".join(raw.casefold().replace("’", "'").strip(" \"'“”*").split())
    words = re.sub(r"^(?:(?:so|and|also|btw|then|well|oh)\s+)+", "", words)
    return _OWNER.sub("", words).strip()


def _lead_cut(sentence: str) -> str:
    prev = None
    while prev != sentence:
        prev = sentence
        cut = _LEAD.sub("", sentence, count=1)
        sentence = cut if cut.strip() else sentence
    return sentence


@functools.lru_cache(maxsize=16384)
def statement_of(text: str) -> Statement | None:
    """The first statement of a value a text makes, or None (a question, small talk, an opinion)."""
    text = _LABEL.sub("", text.strip())
    said = _SPEAKER.match(text)
    if said and (_sentence_like(said.group(1), not text.isascii()) or _spoken(text[:said.start(1)], said.group(1))):
        text = said.group(1)  # "Hugo: Good! Still asking when I'll visit.": a speaker's line, not "Hugo is good"
    for sentence in _SENTENCE.split(text[:HEAD_CHARS], maxsplit=HEAD_SENTENCES)[:HEAD_SENTENCES]:
        asked = sentence.strip().endswith(("?", "？"))
        sentence = core_text(_lead_cut(core_text(sentence.strip()))) if sentence.strip() else ""
        if not sentence or asked or re.match(r"^(?:what|which|who|where|when|how|why|"
                                                                      r"do|does|did|can|could|should|is|are)\b",
                                                                      sentence, re.IGNORECASE):
            continue
        sentence = _unreported(sentence)
        found = _from_claim(sentence) or _match(sentence, _trade(sentence))
        if found is not None:
            return _placed(found, sentence.casefold())
    return None


# reported speech: "Alice said again she likes async updates" is "Alice likes async updates"; so is a pronoun
# standing for the name that opened the sentence
_REPORTED = re.compile(r"^(?P<who>[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)?)\s+(?:said|says|mentioned|mentions|told (?:me|us)|"
                       r"confirmed|confirms|reminded (?:me|us))(?:\s+(?:again|today|yesterday|earlier|once more))?"
                       r"(?:\s+that)?\s+(?:she|he|they)(?P<be>'s|'re)?\s+(?P<rest>\S.*)$")


# a name, a clause about them, then a pronoun standing for them: "Alice got promoted, she is head of platform"
_THEN_PRONOUN = re.compile(r"^(?P<who>[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)?)\s+[^,;:]{1,40},\s+(?:and\s+)?(?:she|he|they)"
                           r"(?P<be>'s|'re|\s+is|\s+are)\s+(?P<rest>\S.*)$")  # what they are now, not were


def _unreported(sentence: str) -> str:
    said = _REPORTED.match(sentence) or _THEN_PRONOUN.match(sentence)
    if said is None:
        return sentence
    return f"{said.group('who')} {'is ' if said.group('be') else ''}{said.group('rest')}"


def _from_claim(sentence: str) -> Statement | None:
    claim = claim_of(sentence)
    if claim is None:
        return None
    words = claim.key.removeprefix("choice for ")  # "went with X for the cache": the cache is the thing
    return Statement(subject_terms(words), IS, norm_value(claim.value), words)


def _trade(sentence: str) -> frozenset[str]:
    """Stems of the trade words following a capitalised name in the sentence (see _TRADE)."""
    return frozenset(t for m in _TRADE.finditer(sentence) for t in analyzer.terms(m.group(1)))


def _match(sentence: str, trade: frozenset[str] = frozenset()) -> Statement | None:
    zh = re.search(r"[\u4e00-\u9fff]", sentence) is not None
    low = _VALUE_TAIL.sub("", sentence.casefold().replace("’", "'").rstrip(" .!。！")) or sentence.casefold()
    for kind, rx in _RULES_ZH if zh else _RULES_EN:
        gate = None if zh else _GATES.get(kind)
        if gate is not None and not gate.search(low):
            continue
        m = rx.match(low)
        if not m:
            continue
        if kind == "colon" and _sentence_like(m.group("val"), zh):
            # "Melanie: I've had 20 glasses today.": a speaker or a heading, then a sentence of its own
            return _match(sentence[len(sentence) - len(m.group("val")):], trade) \
                if len(m.group("val")) < len(low) else None
        found = _statement(kind, m.groupdict(), zh, trade)
        if found is not None:
            return found
    return None


# verbs that only ever say where someone or something is: the value is the subject's place ("Priya relocated to
# Pune" is Priya's city, as "Priya's city: Pune" is); "moved to" is not one ("the standup moved to Friday")
_PLACE_VERB = re.compile(r"\b(?:relocated|relocating|based|located|situated|stationed|lives|living|resides|residing)"
                         r"\s+(?:to|in|at|out of)\s|\b(?:works?|working) (?:remotely )?from\s")


_HOST_VERB = re.compile(r"\b(?:hosted|hosting)\s+(?:on|by|at|with)\s")  # "Orion is hosted on Fly.io": its host


def _placed(found: Statement, low: str) -> Statement:
    if found.rel != IS or found.shape == "number":
        return found
    for verb, attribute in ((_PLACE_VERB, "city"), (_HOST_VERB, "host")):
        if verb.search(low) and (attribute == "host" or found.shape == "word"):
            return replace(found, subject=found.subject | frozenset(analyzer.terms(attribute)))
    return found


_SPEAKER = re.compile(r"^[^:：\n]{1,40}?(?::\s|：)\s*(.+)$", re.DOTALL)
_SPEAKS = re.compile(r"^(?:i|i'm|i've|i'll|i'd|we|we're|we've|you|you're|he|she|they|it|it's|that|this|there|"
                     r"just|so|oh|yeah|yes|no|well|haha|hey|hi|wow|thanks|sorry|really|actually|hmm)\b|[.!?]\s+\S|"
                     r"[我你他她们].{0,3}[了过着在是想要会]|[。！？].|[?？]\s*$|"
                     r"^(?:my|our)\s+\S+\s+\S+\s+\S")  # "my sister", "our trademark filing": values


def _spoken(left: str, right: str) -> bool:
    """"Ana: Ten days went way too fast.": one capitalised name before the colon and four words or more after
    it is a speaker's line (a transcript's turn), not a value of "Ana" ("Maya: nurse" stays a value); so is
    "李娜：迟到的生日快乐！": a Chinese name (no attribute word) before it and an utterance after it (a sentence's
    punctuation, a pronoun, a question or mood particle), where "付款方式：支付宝" stays a value."""
    name = left.rstrip(" :：")
    if re.fullmatch(r"[\u4e00-\u9fff]{2,4}", name):
        return _ZH_ATTR.search(name) is None and bool(re.search(r"[，。！？!?,]|[我你他她]|[吗呢吧啊呀嘛]", right))
    return bool(re.fullmatch(r"[A-Z][a-z]+", name)) and len(right.split()) >= 4


def _sentence_like(value: str, zh: bool) -> bool:
    """A colon's right side that is a sentence, not a value: a pronoun or interjection first, or long."""
    value = value.strip()
    return bool(_SPEAKS.search(value)) or (len(value) > 24 if zh else len(value.split()) > 8)


def _statement(kind: str, groups: dict[str, str | None], zh: bool, trade: frozenset[str] = frozenset()
               ) -> Statement | None:
    if kind == "joins":  # either wording, and the team is the subject's attribute ("Bob Martinez team: …")
        groups = {"subj": (groups.get("subj") or groups.get("subj2") or "") + " team",
                  "val": groups.get("val") or groups.get("val2")}
    words = _clean_subject(groups.get("subj") or "")
    if groups.get("event") and words:  # "the Orion migration": Orion's something changed, not Orion itself
        words = f"{words} {groups['event']}"
    value = norm_value(groups.get("val") or "")
    if not words or not value or len(value) > MAX_VALUE or words in _PRONOUN:
        return None
    if not zh and (len(words.split()) > MAX_SUBJECT_WORDS or words.split()[0].split("'")[0] in _PRONOUN):
        return None
    if kind == "colon" and not zh and len(words.split()) > 5:
        return None
    rel = MANY_VALUED.get(kind, IS)  # a thing uses many things: "uses" never replaces a value …
    if rel == IS and _MANY_ATTR.search(words):
        rel = HAS
    if rel == USES and VERSIONED.match(value):
        rel = IS  # … but one version of each: "uses Node 20", later "runs on Node 22"
    adj = groups.get("adj")
    if adj and adj not in _VALUE_ADJ:
        rel = analyzer.terms(adj)[0] if analyzer.terms(adj) else adj
    if groups.get("prep"):
        rel = str(groups["prep"])
    if groups.get("rel"):
        rel = _ZH_SAME_REL.get(str(groups["rel"]), str(groups["rel"]))
    elif zh and (verb := _ZH_REL_END.search(words)):  # "李娜负责：…": the verb stood before the colon
        rel, words = _ZH_SAME_REL.get(verb.group(1), verb.group(1)), words[:verb.start()]
    subject = subject_terms(words) - KIND_WORDS - trade or subject_terms(words)
    if not subject or subject <= _PRONOUN:
        return None
    if kind == "copula" and rel == IS and not zh and _ROLE.match(value):
        subject |= {"role"}  # canonical as things.py's @role: "Alice Chen role: …" is the same thing
    elif kind == "copula" and rel == IS and not zh and (whose := _HOLDER.match((groups.get("val") or "").strip(" .!"))) and len(words.split()) <= 3:
        # "Hannah Okafor is the Brightline contact": the value names whose contact; she is its value
        return Statement(subject_terms(whose.group(1)), IS, norm_value(words), whose.group(1))
    return Statement(subject, rel, value, words)
