"""Entities named in a memory, by seed 000's rules: repos, URL hosts, versions, dates, amounts, projects, people (en + zh).

Precision before recall: a person needs context (`with Alice`, `Alice said`, `@alice`, `老王`, `和张伟开会`), never
just a capital letter at the start of a sentence; a project needs CamelCase, quotes of capitalised words,
`project X` / `X project` / `X 项目`. A Retain line's `@tags` (metadata.entities) are taken as given.
"""
from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

from memoryd.tiers.distillation.lexicon import NOT_NAMES
from memoryd.tiers.knowledge.entity_names import light, norm

TYPES = ("person", "project", "repo", "url", "version", "date", "amount")
RULES_VERSION = "2"  # bumped when the rules change: every memory is read again


@dataclass(frozen=True)
class Entity:
    type: str
    name: str

    @property
    def key(self) -> str:
        """Stable identity: type and the case-folded name (`person:alice`, `repo:acme/warelay`)."""
        return f"{self.type}:{' '.join(self.name.split()).casefold()}"


_REPO_URL = re.compile(r"(?:https?://)?(?:www\.)?(github\.com|gitlab\.com)/([A-Za-z0-9][\w.-]*)/([A-Za-z0-9][\w.-]*)")
_REPO_SAID = re.compile(r"\b(?:repo(?:sitory)?|fork(?:ed)?|clone[ds]?|forked from)\s+(?:of\s+|at\s+)?[`\"']?"
                        r"([A-Za-z0-9][\w.-]*/[A-Za-z0-9][\w.-]*)")
_URL = re.compile(r"https?://([A-Za-z0-9.-]+)")
_VERSION = re.compile(r"(?<![A-Za-z0-9_.])(v?\d+\.\d+\.\d+(?:-[0-9A-Za-z.]+)?)(?![\w]|\.\d)")
_ISO_DATE = re.compile(r"(?<!\d)(\d{4})-(\d{2})-(\d{2})(?!\d)")
_ZH_DATE = re.compile(r"(\d{4})年(\d{1,2})月(\d{1,2})[日号]")
_MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
           "november", "december")
_EN_DATE = re.compile(r"\b(" + "|".join(m.capitalize() for m in _MONTHS) + r")\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})\b")
_MONEY_SIGN = re.compile(r"([$€£¥])\s?(\d[\d,]*(?:\.\d+)?)(\s?[kKmM万](?![A-Za-z]))?")
_MONEY_WORD = re.compile(r"(?<![A-Za-z0-9_.,])(\d[\d,]*(?:\.\d+)?)\s?(万元|万块|万|元|块钱|块|美元|欧元|dollars|euros|USD|EUR|CNY|RMB)(?![A-Za-z])")
_CAMEL = re.compile(r"(?<![\w@/.-])([A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+)(?![\w/-])")
_QUOTED = re.compile(r"[\"“「《]((?:[A-Z][\w-]*)(?:\s[A-Z][\w-]*){0,2}|[\u4e00-\u9fff]{2,10})[\"”」》]")
_PROJECT_BEFORE = re.compile(r"\b(?:[Pp]roject|codename|code-named|codenamed)\s+(?:[\"'“]([A-Za-z][\w.-]{1,40})|"
                             r"([A-Z][\w.-]{1,40}|[a-z][a-z]*[\d_-][\w.-]*))")
_PROJECT_AFTER = re.compile(r"\b([A-Za-z][\w.-]{1,40})\s+(?:project|repo)\b")
_PROJECT_ZH = re.compile(r"([A-Za-z][\w-]{1,30}|[\u4e00-\u9fff]{2,8}?)\s?项目")
_HANDLE = re.compile(r"(?<![\w@.])@([A-Za-z][\w-]{1,38})")
_EN_NAME = r"([A-Z][a-z]{1,19}(?:\s[A-Z][a-z]{1,19})?)"
_PERSON_BEFORE = re.compile(r"\b(?:told|asked|met|meeting|called|emailed|thanked|cc|pinged|messaged|texted|"
                            r"(?:talked|spoke|wrote|replied|said|sent it|handed it) to|spoke with|call with|"
                            r"lunch with|dinner with|met with|meeting with|coffee with|chat with)\s+" + _EN_NAME + r"\b")
# bare "with X" names a person only where a person's name ends ("with Bob.", "with Bob about"), not a
# company's ("the contract with Hetzner for the servers")
_PERSON_WITH = re.compile(r"\bwith\s+" + _EN_NAME + r"(?=\s*(?:[,.;:!?)]|$)|\s+(?:and|about|to|on|at|of|from|"
                          r"over|regarding|today|tomorrow|yesterday|tonight|this|next|last)\b)")
_CALLED_THING = re.compile(r"\b(?:a|an|the|one|something|thing|tool|app|project|company|place|team|repo|product|"
                           r"service|firm|shop|restaurant|band|book|game|site|bar|cafe)\s+(?:[\w-]+\s+)?$")
_PERSON_AFTER = re.compile(r"\b" + _EN_NAME + r"(?:\s+(?:said|says|told|asked|thinks|wants|prefers|mentioned|"
                           r"suggested|agreed|decided|likes|hates|replied|wrote|called)\b|'s\s+[a-z])")
_PERSON_AND = re.compile(_EN_NAME + r"\s+and\s+" + _EN_NAME + r"\b")
_TITLE = re.compile(r"\b(?:Mr|Mrs|Ms|Dr|Prof)\.?\s+([A-Z][a-z]{1,19})\b")
_ZH_SURNAMES = "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘蒋蔡杜叶程苏魏吕丁沈姚卢姜崔钟谭陆汪范"
_ZH_FAMILIAR = re.compile(r"([老小][" + _ZH_SURNAMES + r"])(?![\u4e00-\u9fff]{0,1}(?:时|心|组|学|区|说明))")
_ZH_NAME = r"([" + _ZH_SURNAMES + r"][\u4e00-\u9fff]{1,2}?)"
_ZH_PERSON_BEFORE = re.compile(r"(?:和|跟|与|同|给|告诉|问|找|约|让|请|联系)" + _ZH_NAME +
                               r"(?=说|讨论|聊|开会|一起|确认|沟通|见面|吃饭|打电话|商量|的|，|,|。|$)")
_ZH_PERSON_AFTER = re.compile(_ZH_NAME + r"(?=说|认为|提到|觉得|表示|建议|同意|决定|答应|负责)")
# two-character words that begin with a surname character but name no one
_ZH_NOT_NAMES = frozenset("周末 周一 周二 周三 周四 周五 周六 周日 高兴 金额 方案 方法 马上 白天 程序 许多 高级 黄金 曾经 "
                          "陆续 叶子 张开 林子 范围 杜绝 丁点 田地 崔嵬 钟头 蔡家 潘多 何时 何况 朱红 宋体 唐突 "
                          "王国 李子 刘海 陈述 杨树 黄色 赵家 吴语 徐徐 孙子 胡说 郭外 罗列 郑重 梁上 谢谢 韩国 冯唐 "
                          "邓家 曹操 彭湃 肖像 董事 袁家 蒋家 苏醒 魏国 吕宋 沈阳 姚家 卢家 姜汤 谭家 汪洋 "
                          "高度 高手 高效 程度 周期 周围 周年 马路 许可 黄昏 张贴 林业 陈旧 方便 范例".split())
_NOT_PEOPLE = NOT_NAMES | frozenset("""
Hi Hello Hey Dear Yes No Ok Okay Sure Thanks Thank Good Great Nice Well So Now Here There What When Where Why How
Who Which If Once After Before During Since Until While Because Although Though However Maybe Perhaps Also Still
Morning Evening Night Week Month Year Weekend Christmas Easter Spring Summer Autumn Winter Europe America Asia
China Japan Germany France India London Paris Berlin Tokyo Beijing Shanghai Node Ruby Swift Kotlin Java Perl
Postgresql Sqlite Mysql Mongo Nginx Apache Chrome Firefox Safari Android Ios Iphone Ubuntu Debian Fedora Zoom
Teams Notion Jira Figma Stripe Paypal Visa Uber Netflix Spotify Twitter Facebook Instagram Reddit Discord
Telegram Whatsapp Wechat Signal Email Mail Phone Api Cli Ui Db Ai Llm Gpt Openai Anthropic Openclaw Memoryd
Project Repo Release Version Bug Issue Meeting Call Review Lunch Dinner Team Office Home Work Doctor Dentist
Let Lets Don Can Could Would Should Will Shall Must Might Did Do Does Is Are Was Were Has Have Had Get Got Make
Made Take Took Give Gave Go Went Come Came See Saw Look Tell Ask Send Check Try Use Keep Put Set Run Remember
Remind Note Noted Sounds Sorry Cool Fine Right Wait Stop Start Finish Done All Some Any Every Each Both Either
Neither None Many Much More Most Few Less Other Another Such Same Only Even Ever Never Always Often Sometimes
Usually Really Actually Probably Definitely Anyway Otherwise Meanwhile Finally First Second Third Lastly Overall
Basically Honestly Unfortunately Luckily Hopefully Apparently Besides Instead Again Already Almost Soon Later
Earlier Lately Recently Currently Me Him Them Us Mine Yours Ours Theirs Not Oh Ah Hmm Wow Yeah Yep Nope Haha Lol
Happy Glad Welcome Anytime Understood Everybody Somebody Anyone Anybody Nothing Something Everything Tonight
Mom Dad Mum Boss Client Customer Landlord Manager Heads Plan Idea Deadline Budget Launch Sprint Standup Demo
Quick Anyway Apart Despite Unless Whether Whatever Whenever Wherever Although Moved Switched Bumped Pushed Signed
Finished Ordered Bought Sent Opened Closed Fixed Added Removed Updated Deployed Shipped Merged Tested Spent Need
Needs Hello Goodbye Bye Cheers Congrats Kudos Sweet Awesome Perfect Excellent Alright Indeed Exactly Agreed
""".split())
# words after a name that make it a company, a shop or a service rather than a person ("Kestrel Cleaning")
_BUSINESS = frozenset("""
Cleaning Accounting Consulting Labs Lab Systems Services Solutions Studio Studios Partners Group Bank Capital Media
Software Technologies Tech Health Logistics Legal Design Foods Motors Airlines Insurance Realty Properties Ventures
Holdings Industries Networks Cloud Ltd Inc Llc Gmbh Corp Co Company Limited Plumbing Electric Dental Clinic Law
Agency Bakery Cafe Restaurant Hotel Books Press Games Works Garage Repairs Movers Construction Security Energy
""".split())
_PROJECT_STOP = frozenset("""
the a an this that these those our my your their his her its new old same other another whole big small side
pet main first last next current open-source opensource github gitlab git a-new this-new any every each one
which what some such research school work team personal client internal group huge tiny
with for to from and or in on at of by is was are were be been that as into about over after before then but
""".split())


def _valid_date(y: str, m: str, d: str) -> str | None:
    try:
        return dt.date(int(y), int(m), int(d)).isoformat()
    except ValueError:
        return None


def _host(raw: str) -> str:
    host = raw.lower().rstrip(".")
    return host[4:] if host.startswith("www.") else host


def _strip_repo(name: str) -> str:
    name = name.rstrip(".,;:!?)")
    return name[:-4] if name.endswith(".git") else name


def _people(text: str) -> Iterable[str]:
    for rx in (_PERSON_BEFORE, _PERSON_WITH, _PERSON_AFTER, _TITLE):
        for m in rx.finditer(text):
            if m.group(0).startswith("called") and _CALLED_THING.search(text[:m.start()]):
                continue  # "a tool called Zed" names a thing
            if rx is _PERSON_AFTER and _is_business(m.group(1)):
                continue
            yield m.group(1)
    for m in _PERSON_AND.finditer(text):
        yield m.group(1)
        yield m.group(2)


def _is_business(name: str) -> bool:
    return name.split()[-1] in _BUSINESS


def _is_person_name(name: str) -> bool:
    words = name.split()
    return bool(words) and all(w not in _NOT_PEOPLE and w.capitalize() not in _NOT_PEOPLE for w in words)


def _person_part(name: str) -> str | None:
    """The name itself, or its last word when the first is no name ("Yesterday Bob said" → Bob)."""
    if _is_person_name(name):
        return name
    words = name.split()
    return words[-1] if len(words) == 2 and _is_person_name(words[-1]) else None


def _zh_people(text: str) -> Iterable[str]:
    for rx in (_ZH_PERSON_BEFORE, _ZH_PERSON_AFTER):
        for m in rx.finditer(text):
            name = m.group(1)
            if name[:2] not in _ZH_NOT_NAMES and name not in _ZH_NOT_NAMES:
                yield name
    for m in _ZH_FAMILIAR.finditer(text):
        yield m.group(1)


@dataclass(frozen=True)
class Reading:
    """What one memory names: its entities, and for some of them other ways it writes their name."""

    entities: list[Entity]
    aliases: dict[str, tuple[str, ...]] = field(default_factory=dict)  # entity key → names (light form)


def extract(text: str, metadata: Mapping[str, Any] | None = None) -> list[Entity]:
    """Every entity `text` names (and its Retain `@tags`), each once, in the order first named."""
    return read(text, metadata).entities


def read(text: str, metadata: Mapping[str, Any] | None = None) -> Reading:
    """extract() with the aliases: a tag that is another spelling of a name in the text (`@alice-chen` for
    Alice Chen, `@priya` for Priya Natarajan, `@atlas-api` for acme/atlas-api), a name's longer form
    (`Kestrel Cleaning` beside `@kestrel`) and a name given in another script (`张伟 (Zhang Wei)`)."""
    found = _from_text(text)
    aliases: dict[str, set[str]] = {}
    tagged: list[Entity] = []
    tags = [t.strip().lstrip("@").strip() for t in (metadata or {}).get("entities") or [] if isinstance(t, str)]
    for tag in filter(None, tags):  # a Retain line's text starts with its `@tag`: that handle is the tag
        found.pop(Entity("person", tag).key, None)
    for tag in filter(None, tags):
        tagged.append(_place_tag(tag, text, found, aliases))
    ents = _drop_shadowed(list(dict.fromkeys(tagged + list(found.values()))))
    for e in ents:
        aliases.setdefault(e.key, set()).update(_longer_forms(text, e))
    out = {e.key: tuple(sorted(a for a in aliases.get(e.key, ()) if a and a != light(e.name))) for e in ents}
    return Reading(ents, {k: v for k, v in out.items() if v})


_OTHER_SCRIPT = re.compile(r"\s*[(（](?:[A-Z][A-Za-z .'-]{1,40}|[\u4e00-\u9fff]{2,4})[)）]")


def _from_text(text: str) -> dict[str, Entity]:
    found: dict[str, Entity] = {}

    def add(kind: str, name: str) -> None:
        name = " ".join(name.split()).strip()
        if name:
            ent = Entity(kind, name)
            found.setdefault(ent.key, ent)

    repo_spans: list[tuple[int, int]] = []
    for m in _REPO_URL.finditer(text):
        add("repo", f"{m.group(2)}/{_strip_repo(m.group(3))}")
        repo_spans.append(m.span())
    for m in _REPO_SAID.finditer(text):
        if not any(a <= m.start(1) < b for a, b in repo_spans) and "." not in m.group(1).split("/")[0]:
            add("repo", _strip_repo(m.group(1)))
    for m in _URL.finditer(text):
        if not any(a <= m.start() < b for a, b in repo_spans):
            add("url", _host(m.group(1)))
    for m in _VERSION.finditer(text):
        if not _ISO_DATE.fullmatch(m.group(1)):
            add("version", m.group(1) if m.group(1).startswith("v") else "v" + m.group(1))
    for rx in (_ISO_DATE, _ZH_DATE):
        for m in rx.finditer(text):
            day = _valid_date(*m.groups())
            if day:
                add("date", day)
    for m in _EN_DATE.finditer(text):
        day = _valid_date(m.group(3), str(_MONTHS.index(m.group(1).lower()) + 1), m.group(2))
        if day:
            add("date", day)
    for m in _MONEY_SIGN.finditer(text):
        add("amount", m.group(1) + m.group(2) + (m.group(3) or "").strip())
    for m in _MONEY_WORD.finditer(text):
        add("amount", m.group(1) + (" " if m.group(2).isascii() else "") + m.group(2))
    _projects(text, add)
    text = _OTHER_SCRIPT.sub("", text)  # "张伟 (Zhang Wei) 说", "Zhang Wei (张伟) said": the name beside its cue
    for raw in _people(text):
        name = _person_part(raw)
        if name:
            add("person", name)
    for m in _HANDLE.finditer(text):
        add("person", m.group(1))
    if not text.isascii():
        for name in _zh_people(re.sub(r"(?<=[\u4e00-\u9fff])\s+(?=[\u4e00-\u9fff])", "", text)):
            add("person", name)
    return found


def _projects(text: str, add: Any) -> None:
    for m in _CAMEL.finditer(text):
        if m.group(1) not in NOT_NAMES:
            add("project", m.group(1))
    for m in _QUOTED.finditer(text):
        if m.group(1) not in _NOT_PEOPLE:
            add("project", m.group(1))
    for rx in (_PROJECT_BEFORE, _PROJECT_AFTER):
        for m in rx.finditer(text):
            name = (m.group(1) or m.group(2) if rx is _PROJECT_BEFORE else m.group(1)).rstrip(".")
            if name.casefold() not in _PROJECT_STOP and not name.isdigit():
                add("project", name)
    if not text.isascii():
        for m in _PROJECT_ZH.finditer(text):
            name = m.group(1)
            if name.casefold() not in _PROJECT_STOP and name not in ("这个", "那个", "整个", "新的", "我们", "一个"):
                add("project", name[-4:] if not name.isascii() and len(name) > 4 else name)


def _place_tag(tag: str, text: str, found: dict[str, Entity], aliases: dict[str, set[str]]) -> Entity:
    """The entity a Retain `@tag` names: one the text names already when the tag is its name in another
    spelling (recorded as an alias), else a person or a project by the tag's own look."""
    wanted = norm(tag)
    for e in found.values():
        words = norm(e.name).split()
        if len(words) == 1 and e.type == "person":
            continue  # "Kestrel asked" beside @kestrel: the tag's own look decides, the same in every memory
        if (norm(e.name) == wanted or (e.type == "repo" and norm(e.name.split("/")[-1]) == wanted)
                or (e.type in ("person", "project") and wanted.split() == words[:len(wanted.split())])):
            aliases.setdefault(e.key, set()).add(light(tag))
            return e
    spelled = _spelled_in(tag, text)
    if spelled is not None:
        person = len(spelled.split()) >= 2 and _is_person_name(spelled) and not _is_business(spelled)
        ent = Entity("person" if person else "project", spelled)
        if light(tag) != light(spelled):
            aliases.setdefault(ent.key, set()).add(light(tag))
        return ent
    person = bool(tag.isalpha() and tag[0].isupper() and tag not in _NOT_PEOPLE) or bool(_ZH_WHOLE_NAME.fullmatch(tag))
    return Entity("person" if person else "project", tag)


_ZH_WHOLE_NAME = re.compile(r"[" + _ZH_SURNAMES + r"][\u4e00-\u9fff]{1,2}|[老小][" + _ZH_SURNAMES + r"]")
_CAP_WORD = r"[A-Z][a-z]{1,19}"


def _spelled_in(tag: str, text: str) -> str | None:
    """The tag written as a capitalised name of two words or more in the text (`alice-chen` → `Alice Chen`,
    `priya` → `Priya Natarajan`; not `kestrel` → `Kestrel Cleaning`, a business)."""
    parts = [p for p in re.split(r"[-_\s]+", tag) if p]
    if not parts or not all(p.isascii() and p.isalpha() for p in parts):
        return None
    rx = r"(?<![\w@/-])" + r"[\s-]+".join(re.escape(p) for p in parts) + \
        (r"(?![\w-])" if len(parts) > 1 else r"\s" + _CAP_WORD + r"(?![\w-])")
    for m in re.finditer(rx, text, re.IGNORECASE):
        words = m.group(0).replace("-", " ").split()
        if len(words) >= 2 and all(w[0].isupper() for w in words) and _is_person_name(" ".join(words)) \
                and not _is_business(words[-1]):
            return " ".join(words)
    return None


def _longer_forms(text: str, e: Entity) -> set[str]:
    """Other ways this text writes `e`: followed by capitalised words (`Kestrel Cleaning`), or beside a
    name in another script in brackets (`张伟 (Zhang Wei)`, `Zhang Wei（张伟）`)."""
    out: set[str] = set()
    if e.type not in ("person", "project"):
        return out
    name = re.escape(e.name)
    if e.name.isascii():
        for m in re.finditer(r"(?<![\w@/-])((?i:" + name + r"))((?:\s" + _CAP_WORD + r"){1,2})(?![\w-])", text):
            extra = m.group(2).split()
            if m.group(1)[0].isupper() and all(w not in _NOT_PEOPLE for w in extra):
                out.add(light(m.group(1) + " " + " ".join(extra)))
    for m in re.finditer(r"(?<![\w])" + name + r"\s*[(（]([^()（）]{1,40})[)）]", text):
        if m.group(1).strip().isascii() != e.name.isascii():
            out.add(light(m.group(1).strip()))
    other = r"([A-Z][a-z]+(?:\s[A-Z][a-z]+){0,2}|[\u4e00-\u9fff]{2,4})"
    for m in re.finditer(other + r"\s*[(（]" + name + r"[)）]", text):
        if m.group(1).isascii() != e.name.isascii():
            out.add(light(m.group(1)))
    return out


def _drop_shadowed(ents: list[Entity]) -> list[Entity]:
    """A name taken as a project or repo is not also a person (`with OpenClaw`), nor a handle a repo owner."""
    things = {e.name.casefold() for e in ents if e.type in ("project", "repo")}
    return [e for e in ents if not (e.type == "person" and e.name.casefold() in things)]
