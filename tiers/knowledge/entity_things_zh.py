"""Chinese projects, organisations and places named in a memory, each by how people write them: `X项目`, `XX公司`
and the other kinds of organisation (`X五金`, `X一院`), where one works (`在X上班`), a city, `XX区`. Vocabularies are
data (tiers/knowledge/lang/entities_zh.json); the English rules are entity_things.py.
"""
from __future__ import annotations

import re
from functools import lru_cache

from memoryd.tiers.knowledge.entity_things import Add
from memoryd.tiers.knowledge.entity_vocab import chinese, english, kind_word_in

_HAN = "\u4e00-\u9fff"


@lru_cache(maxsize=1)
def _zh() -> dict[str, re.Pattern[str]]:
    v = chinese()
    cities = "|".join(sorted(v.cities, key=len, reverse=True))
    edge = f"(?:(?<=[{re.escape(v.clause_breaks)}])|(?<![{_HAN}])|(?<=[{v.org_before}]))"
    body = f"(?:(?![{re.escape(v.clause_breaks)}在要会能想说刚才正叫住])[{_HAN}])"  # `去X 住Y湖`: two places
    # a park, a fee, 一院子, 三中全会, 中学; 大学生 (a student), 银行卡 (a card), 大学城 (a town of colleges)
    not_org = "(?!园|大厦|大楼|费|产业|子|全会|(?<=[一二三四五六七八九十]中)学|(?<=学)生|(?<=行)卡|(?<=大学)城)"
    kept = "|".join(sorted(v.city_kept_ends, key=len, reverse=True))
    return {
        "project": re.compile(r"([A-Za-z][\w-]{1,30})\s?项目|" + edge + f"({body}{{2,6}}?)项目"),
        "org": re.compile(edge + f"({body}{{2,4}}?(?:{v.org_suffixes})){not_org}"),
        # an address's (a value): a district before a numbered road (`涧西区南昌路41号`), a road's first words (`紫金山路`)
        "place": re.compile(edge + f"({body}{{2,4}}?(?:{v.place_suffixes}))"
                            f"(?!\\d|[{_HAN}]{{1,6}}?(?:{v.road_suffixes})\\d|(?:{v.road_suffixes})(?![口边上]))"),
        # a name opening with its city, province, district or town (`潍坊市第七人民医院`, `X镇中心小学`) runs longer
        "city_org": re.compile(f"((?:(?:{cities})(?:省|市|区)?|{edge}{body}{{2}}[区镇县乡])"
                               f"(?:(?![{re.escape(v.clause_breaks)}的了我你他她们是和在去上下有没不也都就还要会能想说刚才正叫把被给从到过着这那个找])"
                               f"[{_HAN}]){{1,8}}?(?:{v.org_suffixes})){not_org}"),
        # `考上<city>大学`, `看看<city>银行`: a city's own school, hospital or bank named by the city alone, wherever
        # it stands (a firm of another kind is named by more than its city: city_org)
        "city_own": re.compile(f"(?=[{''.join(sorted({c[0] for c in v.cities}))}])"
                               f"((?:{cities})(?:省|市)?(?:{kept})){not_org}"),
        "kept_end": re.compile(kept),  # the cheap test first: most texts name no school, hospital or bank
        "org_end": re.compile(f"(?:{v.org_suffixes})$"),
        "place_end": re.compile(f"(?:{v.place_suffixes})$"),
        # a city stands as a word: after a break or a cue (`去苏州`), or before a break (`苏州可以`: the start);
        # not inside a longer word (`最大连接数` holds no 大连), nor opening a hospital's or a school's name
        # (`佛山一院`, `苏州中学`, `北京医院`: the organisation, not the city)
        # `在字节跳动上班`: where one works, two to six characters that are no kind word (`在家`, `在公司`)
        "work": re.compile(f"(?<![现正实存所自])在((?:(?![{re.escape(v.clause_breaks)}])[{_HAN}A-Za-z]){{2,6}}?)(?:{v.work_after})"),
        # the first characters of the names first: most places in a text start no name, and fail there at once
        "city": re.compile(f"(?=[{''.join(sorted({c[0] for c in v.cities}))}])(?:"
                           f"(?:(?<![{_HAN}])|(?<=[{re.escape(v.clause_breaks)}])|(?<=[{v.city_before}]))({cities})"
                           f"(?![路街巷道区号]|[一二三四五六七八九]?[院中小医])|({cities})(?=[{re.escape(v.clause_breaks)}市]|[^{_HAN}]|$|那边|这边|那里|这里))"),
    }


@lru_cache(maxsize=1)
def _suffix_chars() -> dict[str, frozenset[str]]:
    d = chinese()
    return {"org": frozenset(w[-1] for w in d.org_suffixes.split("|")),
            "place": frozenset(w[-1] for w in d.place_suffixes.split("|"))}


def _has_suffix(text: str, key: str) -> bool:
    return not _suffix_chars()[key].isdisjoint(text)


_ZH_NOT_PROJECT, _MEASURED = frozenset(("这个", "那个", "整个", "新的", "我们", "一个")), frozenset("那这一哪每两几")
_PLACE_BEFORE_EN = re.compile(r"\b(?:in|near|at|to|from|around|on|off|past|via)\s*$", re.IGNORECASE)


def _place_said(text: str, start: int, name: str, body: str) -> bool:
    """A name ending in a one-character place word (区, 街, 山, 岛 …) is a place only where a place is said: after
    a place cue (`住在`, `去`, `in`, `near`) or with a city in it (`杭州西湖区`); `临界区`, `灰度区`, `信息孤岛` are
    things of work. Longer place words (`公园`, `火车站`) and 省/市/县 say it themselves."""
    zh = chinese()
    if len(name) - len(body) > 1 or name[-1] not in zh.weak_place_ends:
        return True
    if _city_lead(body):
        return True
    before = text[max(0, start - 6):start].rstrip()
    return bool(_place_before().search(before) or _PLACE_BEFORE_EN.search(before))


@lru_cache(maxsize=1)
def _place_before() -> re.Pattern[str]:
    return re.compile(f"(?:{chinese().place_before})$")


def _zh_verb_phrase(text: str, start: int, end: int, body: str) -> bool:
    """A kind word that starts a common word (`图省事`: save trouble), a name that would start inside a time word
    (`下个月上幼儿园`), or a kind word after a verb of coming (`每周来工作室`, `没来过公司`: where one goes, the kind
    word a common noun), or after a verb of trade (`家做贸易的`); a two-character name ending so stays (`未来工作室`)."""
    zh = chinese()
    if text[end - 1:end + 1] in zh.suffix_words or (text[start - 1:start] == "个" and
                                                    text.startswith(zh.time_units, start)):
        return True
    if body.endswith(zh.trade_verbs):
        return True  # `找了家做贸易的`: what a firm does, the kind word a trade
    verb = next((e for e in zh.motion_endings if body.endswith(e)), "")
    return bool(verb) and len(body) - len(verb) != 1


def _lead_cut(text: str, start: int, name: str) -> int | None:
    """How many characters at the front of a Han name found at `start` open the clause instead (`看澄睿科技`: 1,
    `9月2日入X幼儿园`: 2); None when the words ask which one (`啥支付公司`)."""
    zh = chinese()
    cut = 1 if name[:1] == "家" and text[start - 1:start] in _MEASURED else 0  # `那家X民宿`: 家 counts the shop
    if start and text[start - 1].isdigit() and name[:1] in zh.date_units:
        cut = 2 if name[1:2] in zh.after_date else 1
    while lead := next((w for w in zh.lead_words if name.startswith(w, cut)), ""):
        cut += len(lead)
    if name.startswith(zh.question_words, cut):
        return None  # `啥支付公司`, `选什么软件` (the lead word cut): the words ask which one
    marks = [i for i, c in enumerate(name[:-2]) if c in zh.agent_marks and i >= cut]
    return marks[-1] + 1 if marks else cut


def chinese_things(text: str, add: Add) -> None:
    v = english()
    zh = chinese()
    rx = _zh()
    for m in rx["project"].finditer(text) if "项目" in text else ():
        name = m.group(1) or m.group(2)
        if name.casefold() not in v.project_stop and name not in _ZH_NOT_PROJECT and name not in zh.not_bodies \
                and name not in v.acronyms \
                and (name.isascii() or not any(w in name for w in zh.not_bodies)) \
                and not (m.group(2) and text.endswith(zh.demonstratives, 0, m.start(2))) \
                and not (m.group(2) and (name[-1] in zh.project_verbs or name.startswith(zh.question_words))):
            add("project", name)  # 那个记账项目: a description; 赶项目: a verb's; 什么项目: asked
    for m in rx["work"].finditer(text) if "在" in text else ():
        body = m.group(1)
        kind = rx["org_end"].search(body)  # `在超市上班`, `在县城饭店上班`: a kind alone or which kind, no name;
        # `在财务部上班`, `在冲压车间上班`: a department of the workplace, no organisation of its own
        if body not in zh.not_bodies and not any(w in body for w in zh.not_workplace) and body not in zh.cities \
                and not (kind and (not kind.start() or body[:kind.start()] in zh.not_bodies)) \
                and not any(body.endswith(d) and len(body) - len(d) <= 2 for d in zh.departments):
            # a firm without its city; with no kind word (`在<city>油田上班`) the whole is kept
            add("org", _without_city(body, body[:kind.start()]) if kind else body)
    for key in ("org", "place"):
        if not _has_suffix(text, key):
            continue  # no kind word, no name: the cheap test first (ingest reads every memory)
        for m in rx[key].finditer(text):
            cut = _lead_cut(text, m.start(1), m.group(1))
            if cut is None:
                continue
            cut = _city_own_start(m.group(1), cut) if key == "org" else cut
            suffix = rx[key + "_end"].search(m.group(1))
            body = m.group(1)[cut:suffix.start()] if suffix else m.group(1)[cut:]
            if len(body) < 2 or (len(body) == 2 and body[0] == body[1]):
                continue  # `旁边咖啡馆`: a kind word alone names nothing; `糖糖学校`: a child's pet name and its school
            if key == "place" and body in zh.cities:
                continue  # `四川省`, `苏州市`: the city rule reads the place by its bare name
            if m.group(1).endswith(zh.common_endings):
                continue  # `好多老街坊`: neighbours, no workshop
            if body not in zh.not_bodies and not body.endswith(("家", "分")) \
                    and not kind_word_in(body, m.group(1)) and not _zh_verb_phrase(text, m.start(1), m.end(1), body) \
                    and (key == "org" or _place_said(text, m.start(1), m.group(1), body)):  # 上海分公司: a branch
                add(key, _without_city(m.group(1)[cut:], body) if key == "org" else m.group(1)[cut:])
    for m in rx["city"].finditer(text):
        add("place", m.group(1) or m.group(2))
    for m in rx["city_own"].finditer(text) if rx["kept_end"].search(text) else ():
        add("org", m.group(1))
    for m in rx["city_org"].finditer(text) if _has_suffix(text, "org") else ():
        body = m.group(1)[:rx["org_end"].search(m.group(1)).start()]
        city = _city_lead(body)
        rest = body[len(city):] if city else body[3:]
        rest = rest[1:] if rest[:1] in "省市区" else rest
        if rest and rest not in zh.not_bodies and rest[0] not in "分总":  # 上海分公司: a branch, its city the place
            add("org", _without_city(m.group(1), body, city))


def _city_own_start(name: str, cut: int) -> int:
    """Where a city's own school, hospital or bank starts inside a name read from a clause's start (`考上<city>大学`:
    the verb before the city opens the clause), else `cut`."""
    if not name.endswith(chinese().city_kept_ends):
        return cut
    own = _zh()["city_own"]
    return next((i for i in range(cut + 1, len(name) - 2) if own.fullmatch(name, i)), cut)


_MEASURED_FIRM = ("一家", "这家", "那家", "某家", "两家", "几家")


@lru_cache(maxsize=1)
def _cities_longest_first() -> tuple[str, ...]:
    return tuple(sorted(chinese().cities, key=len, reverse=True))


def _city_lead(body: str) -> str:
    """The city a name opens with (the longest that fits), or ""."""
    return next((c for c in _cities_longest_first() if body.startswith(c)), "")


def _without_city(name: str, body: str, city: str | None = None) -> str:
    """A firm is called without its city (`湖州X五金` is `X五金`, the city a place of its own); a bank, a hospital or
    a school keeps it (`湖州银行`, `湖州一院`, `苏州中学`: city_kept_ends). `body`: the name without its kind word;
    `city`: the city it opens with, when the caller has looked already."""
    if name.endswith(chinese().city_kept_ends):
        return name
    city = _city_lead(body) if city is None else city
    rest = body[len(city):]
    rest = rest[1:] if city and rest[:1] in "省市" else rest
    if not city or len(rest) < 2 or rest.startswith(_MEASURED_FIRM):
        return name  # `<city>一家X公司`: a firm described, no name without its city either
    return name[len(body) - len(rest):]
