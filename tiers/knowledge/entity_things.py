"""Projects, organisations and places named in a memory, each by how people write them (the Chinese rules:
entity_things_zh.py).

Projects: CamelCase (`DockYard`), a `kebab-case` repo name used as a name (`ship-log has`, `in ship-log.`, `the
ship-log repo`; not `a follow-up` or `long-term plan`), `Project X` / `X project` / `X项目`. The world's
well-known products and code identifiers (`PostgreSQL`, `ValueError`) are not the person's projects.
Organisations: capitalised words ending in a company word (`Kestrel Cleaning`, `Acme Systems`), a venue word
before a name (`Café Nord`), work at a name (`works at Acme`), a name's office or budget (`Acme's office`),
`XX公司`. Places: a capitalised name after `in`, `near`, `moved to` …, `at the X`; a Chinese city, `XX区`.
Vocabularies are data (tiers/knowledge/lang/entities_*.json).
"""
from __future__ import annotations

import re
from functools import lru_cache
from typing import Callable

from memoryd.tiers.distillation.lexicon import NOT_NAMES
from memoryd.tiers.knowledge.entity_people import UP, WORD, is_person_name, sentence_start
from memoryd.tiers.knowledge.entity_vocab import chinese, english

Add = Callable[[str, str], None]
_HAN = "\u4e00-\u9fff"
_CAMEL = re.compile(r"(?<![\w@/.-])(?!Ma?c[A-Z][a-z]+\b)([A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+)(?![\w/-])")  # McCarthy: a surname
_KEBAB = re.compile(r"(?<![\w@/.:#-])([a-z][a-z0-9]*(?:-[a-z0-9]+)+)(?![\w/-]|\.[a-z0-9])")
_NEXT_WORD = re.compile(r"\s*('s\b|[A-Za-z]+|[^\sA-Za-z]|$)")
_PREV_WORD = re.compile(r"([A-Za-z]+)\s*$")
_SETTING = re.compile(r"\s*(?:=|:\s*(?:\d|true\b|false\b))")
_WORDS_BEFORE = re.compile(r"[A-Za-z]+")


@lru_cache(maxsize=1)
def _zh_follower() -> re.Pattern[str]:
    return re.compile(r"\s?(?:的)?(?:" + chinese().project_followers + ")")
# a name's words, a lowercase particle between two of them being part of it (`Heart of the Rockies`, `Bar do Zé`,
# `Costa da Caparica`): read alone, the first word was taken for the whole place
_PARTICLE = r"(?:of the|of|da|de|do|dos|das|del|della|di|du|van|von|der|den|la|le)"
_CAPS = rf"{WORD}(?:\s(?:{_PARTICLE}\s)?{WORD}){{0,2}}"
_PREPOSITIONS = frozenset(("At", "In", "On", "From", "For", "With", "By", "To", "Via"))  # `At X Architects?`: no name
_ACRONYM = rf"[{UP}]{{2,5}}"


@lru_cache(maxsize=1)
def _en() -> dict[str, re.Pattern[str]]:
    v = english()
    business = "|".join(sorted(v.business_words, key=len, reverse=True))
    prefix = "|".join(sorted(v.org_prefix_words, key=len, reverse=True))
    return {
        "project_before": re.compile(r"\b(?:[Pp]roject|codename|code-named|codenamed)\s+(?:[\"'“]([A-Za-z][\w.-]{1,40})|"
                                     r"([A-Z][\w.-]{1,40}|[a-z][a-z]*[\d_-][\w.-]*))"),
        "project_after": re.compile(r"\b([A-Za-z][\w.-]{1,40})\s+(?:project|repo)\b"),
        "business": re.compile(rf"\b((?:{WORD}\s){{1,3}}(?:{business}))\b(?!-\w)"),  # `Tarrow Co-work`: a word
        # `Veldman & Zonen said`; not `and`: `Imogen and Raj are` is two people far more often than a firm
        "firm": re.compile(rf"\b({WORD}\s&\s{WORD})\s+"
                           r"(?:said|says|sent|billed|charged|wants|asked|is|are|was)\b|"
                           rf"\b({WORD}\s&\s{WORD})\b"),
        # `the Gouden Spreeuw will`, `the Velvet Lapwings rehearse`, `the Velvet Lapwings' gig`: two names after `the`,
        # then a verb or a possessive: a named thing
        "the_named": re.compile(rf"\b(The\s|the\s)\s*({WORD}\s{WORD})(?:\s+(?:{v.named_thing_verbs})\b|['’]s?\s)"),
        "trip": re.compile(rf"\b(?:the|our|my|a|this|that)\s+({WORD})\s+(?:trip|holiday|vacation|getaway)\b"),
        # `ordered gloves from X`, `switched from X to Y`, `hired through X`: a deal is done with a company
        "trade": re.compile(rf"\b(?:{v.trade_verbs})\b(?:\s+[a-z][\w'-]*,?){{0,4}}\s+(?:from|through|via)\s+"
                            rf"({WORD}(?:\s{WORD})?)\b(?!\s*[-'’])"),
        # `switched to X`, `signed with X`: a provider or a firm one deals with (`switched the vans to X` too)
        "switch": re.compile(rf"\b(?:(?:[Ss]witch(?:ed|ing|es)?)\s+(?:[a-z]+\s+){{0,2}}?to|(?:[Ss]ign(?:ed|ing|s)?)\s+with)"
                             rf"\s+({WORD}(?:\s{WORD})?)\b(?!\s*[-'’&]|\s+{WORD})"),
        # `she runs Pellam Outdoor`, `he owns Tarn Bicycles`: two names after a verb of keeping a business, a firm
        "runs": re.compile(rf"\b(?:runs|owns|manages|founded|co-founded)\s+({WORD}\s{WORD})\b(?!\s*[-'’&]|\s+{WORD})"),
        # `comes from Pennock Weaving in Brixworth`, `go to Tansley Tyres in Wrenfield`: two names before `in` and a town
        # after from/at/to: a firm and where it is (a town after a person says where they live far less often)
        "org_in": re.compile(rf"\b(?:from|at|to)\s+({WORD}\s{WORD})\s+in\s+({WORD})\b(?![-'’]|\s{WORD})"),
        "venue": re.compile(rf"\b((?:{prefix})\s{WORD}(?:\s{WORD})?)\b"),
        # `the Journal of Glacial Hydrology`, `University of Limerick`: to the last capitalised word (three at most)
        "of_org": re.compile(rf"\b((?:{v.of_heads})\sof\s(?:the\s)?{WORD}(?:\s{WORD}){{0,2}})\b"),
        "possessive": re.compile(rf"\b({_CAPS}|{_ACRONYM})('s)?\s+([a-zA-Z]+)"),
        "work": re.compile(rf"\b(?:at|for)\s+(?:the\s+)?({_CAPS}|{_ACRONYM})\b"),
        "place": re.compile(rf"\b(?:{v.place_cues})\s+(?:to\s+|in\s+)?({_CAPS})\b"),
        "known_place": re.compile(rf"\b(?:in|from|to)\s+({WORD})\b"),
        "at": re.compile(rf"\bat\s+({_CAPS}|{_ACRONYM})\b"),
        # `at the Wolkenhuis on …`; not `to the Raghavachari family` (a word after it says what it is)
        "the": re.compile(rf"\b(?:at|to|towards|from|near|in|around|past|by|across)\s+the\s+({WORD})\b"
                          r"(?=\s*(?:[,.;:!?)—–]|$)|\s+(?:on|in|at|for|with|and|to|from|by|tonight|today|tomorrow|"
                          r"yesterday|this|next|last|again|yet|later|now|is|was|were|has|had|will|would)\b)"),
    }


def _plain(name: str) -> bool:
    """A name that is not a common capitalised word, a product or an acronym everyone uses."""
    v = english()
    first = name.split()[0]
    if name in v.known_places:
        return True
    return is_person_name(name) and name not in v.acronyms and first not in v.business_words and \
        name.casefold() not in v.products


def _camel(text: str, add: Add) -> None:
    v = english()
    for m in _CAMEL.finditer(text):
        name = m.group(1)
        if name not in NOT_NAMES and name.casefold() not in v.products and not name.endswith(v.code_suffixes) \
                and not name.endswith(v.product_suffixes) and _named_in_chinese(text, m.end()):
            add("project", name)


_HAN_NEXT = re.compile(r"\s?[\u4e00-\u9fff]")


def _named_in_chinese(text: str, end: int) -> bool:
    """A CamelCase word followed by Chinese words is the person's project only where a project word follows
    (`LedgerKit 这个服务`, `LedgerKit 的负责人`): `NebulaGraph 做关系图` names a tool. Elsewhere the word decides."""
    if not _HAN_NEXT.match(text, end):
        return True
    return bool(_zh_follower().match(text, end))


def _kebab_is_name(text: str, m: re.Match[str]) -> bool:
    """A hyphenated lowercase word used as a name: not a common compound, not after `a`/`the` unless a project
    word follows (`the ship-log repo`), and followed by what follows a name (a verb, a preposition, an end)."""
    v = english()
    word = m.group(1)
    parts = word.split("-")
    if word in v.hyphen_compounds or parts[-1].isdigit() or len(word) < 5 or parts[0] in v.hyphen_prefixes \
            or parts[-1] in v.hyphen_suffixes or not v.hyphen_inner.isdisjoint(parts[1:-1]) \
            or (parts[0] in v.region_codes and len(parts) <= 3):  # `cn-hangzhou`, `eu-west-2`: a region
        return False
    if _SETTING.match(text, m.end()):
        return False  # `fetch-depth: 0`, `max-age=3`: a setting and its value
    after = _NEXT_WORD.match(text, m.end())
    nxt = (after.group(1) if after else "").lower()
    if nxt in v.project_followers or _zh_follower().match(text, m.end()):
        return True  # `order-api 这个服务`, `order-api 的负责人`; a tool's name (`docker-compose 起了`) is not
    if parts[-1].endswith("s") and len(parts[-1]) > 3:
        return False  # `no-shows`: a plural noun
    before = _PREV_WORD.search(text[:m.start()])
    if before and before.group(1).lower() in v.determiners:
        return False
    return nxt in v.after_name_words or nxt == "'s" or nxt in ("", ".", ",", ";", ":", "!", "?", ")", "'", '"', "`")


_DESCRIBED = re.compile(r"(?i)\b(?:my|his|her|our|their|your|new|old|side|pet|big|small|little|main|other)\s+$")


def projects(text: str, add: Add) -> None:
    v = english()
    rx = _en()
    _camel(text, add)
    for m in _KEBAB.finditer(text):
        if _kebab_is_name(text, m):
            add("project", m.group(1))
    for key in ("project_before", "project_after"):
        for m in rx[key].finditer(text):
            if key == "project_after" and m.group(1).endswith("."):
                continue  # `… owns it. repo is X`: a sentence ends before the word
            name = (m.group(1) or m.group(2) if key == "project_before" else m.group(1)).rstrip(".")
            if key == "project_after" and name.isalpha() and name.islower() and _DESCRIBED.search(text[:m.start(1)]):
                continue  # `his mouse project`, `the new motor project`: a description (`the quokka project` names)
            if name.casefold() not in v.project_stop and not name.isdigit() and name.casefold() not in v.products \
                    and name not in v.not_people:
                add("project", name)


_POST_TOWN = re.compile(rf"(?<![\w-])({WORD}),?\s+[A-Z]{{1,2}}\d[A-Z\d]?\s\d[A-Z]{{2}}\b")
_ORG_IN = re.compile(rf"\s+in\s+({WORD})\b(?![-'’]|\s{WORD})")
_NAME_GOES_ON = re.compile(rf"'s\s+{WORD}")  # `at King's College`: the place is the whole name, not `King`
_KEEPS = ("runs", "owns", "manages", "founded")  # the words the `runs` rule opens with, as substrings
_QUOTED = re.compile(r"\"[^\"\n]{1,60}\"|“[^”\n]{1,60}”|「[^」\n]{1,60}」")
_HOUSE_NUMBER = re.compile(r"\s\d{1,4}[a-zA-Z]?\b")


_SAINT = re.compile(rf"\b(?:St\.?|Saint)\s+({WORD})['’]s((?:\s+(?:{WORD}|[A-Z]{{2,5}})\b)*)")
_SAINT_MORE = re.compile(r"\S+")


def saints(text: str, add: Add) -> str:
    """A school, a church, a hospital or a club named after a saint (`St Ninian's`, `St. Senan's GAA`, `St Enda's
    Primary`): one organisation, its kind words after it kept. The text comes back with those names blanked, so
    no rule reads `Ninian` as a person in them."""
    if "St" not in text and "Saint" not in text:
        return text
    v = english()
    spans = []
    for m in _SAINT.finditer(text):
        # `St Ninian's Community College`: up to the last kind word after the name; not `… Monday`
        kinds = [w for w in _SAINT_MORE.finditer(m.group(2)) if w.group(0) in v.business_words
                 or w.group(0) in v.kind_words_after or (w.group(0).isupper() and len(w.group(0)) > 1)]
        end = m.start(2) + kinds[-1].end() if kinds else m.start(2)
        add("org", f"St {m.group(1)}'s" + " ".join([""] + text[m.start(2):end].split()))
        spans.append((m.start(), end))
    for a, b in reversed(spans):
        text = text[:a] + " " * (b - a) + text[b:]
    return text


def orgs_and_places(text: str, add: Add) -> None:
    """Organisations and places; a quoted title (`"Dust in the Wind"`) names neither, and a street with its
    house number (`Elm Street 12`) is an address, not a place one comes back to."""
    v = english()
    rx = _en()
    text = _QUOTED.sub(lambda m: " " * len(m.group(0)), text)
    _businesses(text, add)
    for m in rx["firm"].finditer(text) if "&" in text else ():
        name = m.group(1) or m.group(2)
        sides = [w for w in name.replace("&", " ").split() if w != "and"]
        if all(_plain(w) or w in v.not_people for w in sides) and any(_plain(w) for w in sides):
            # `Ladle & Stripe`: a common word or a known name beside a name is one firm's name (two known ones,
            # `Visa & Mastercard`, stay two)
            add("org", _words_before(text, m.start(1) if m.group(1) else m.start(2)) + name)
    for m in rx["the_named"].finditer(text):  # `The Velvet Lapwings` written so: the article is part of the name
        if all(_plain(w) for w in m.group(2).split()) and m.group(2).split()[-1] not in v.business_words:
            add("org", ("The " if _article_kept(text, m) else "") + m.group(2))
    for m in rx["trade"].finditer(text):
        name = m.group(1)
        if _plain(name) and name not in v.known_places and not _HOUSE_NUMBER.match(text, m.end()):
            add("org", name)
    for m in rx["org_in"].finditer(text) if " in " in text else ():
        name, town = m.group(1), m.group(2)
        if _plain(name) and _plain(town) and not any(w in v.known_places for w in name.split()) \
                and not _HOUSE_NUMBER.match(text, m.end()) and not _person_cue_before(text, m.start(1)):
            add("org", name)  # the town only says which branch: a place rule reads it where a cue says one
    keeps = any(map(text.__contains__, _KEEPS))  # the cheap test first: most texts say none of the words
    for m in rx["runs"].finditer(text) if keeps else ():
        name = m.group(1)
        if _plain(name) and not any(w in v.known_places for w in name.split()):
            add("org", name)
    for m in rx["switch"].finditer(text):
        name = m.group(1)
        if _plain(name) and name not in v.known_places and not _HOUSE_NUMBER.match(text, m.end()):
            add("org", name)
    for m in rx["venue"].finditer(text):
        if not rx["of_org"].match(text, m.start(1)):
            add("place", m.group(1))
    for m in rx["of_org"].finditer(text) if " of " in text else ():
        add("org", m.group(1))
    for m in rx["possessive"].finditer(text):
        nouns = v.possessive_org_nouns if m.group(2) else v.org_nouns_after
        if not m.group(2) and m.group(1).isupper() and len(m.group(1)) > 1:
            nouns = nouns | v.acronym_org_nouns  # `the KBX technician`, `my QRB account`: letters of a body
        if m.group(3) in nouns and _plain(m.group(1)):
            add("org", m.group(1))
    for m in rx["work"].finditer(text):  # `works at Acme`: the word before `at` says it is work
        before = _WORDS_BEFORE.findall(text, max(0, m.start() - 30), m.start())[-2:]  # `works nights at X`
        said = _WORDS_BEFORE.findall(text, max(0, m.start() - 40), m.start())[-3:]
        if len(said) >= 2 and said[-1].lower() in ("works", "worked") and said[-2].lower() in v.suits_subjects:
            continue  # `Tuesday works for X`: it suits X
        cue = bool(before) and (before[-1].lower() in v.work_cues or (
            len(before) == 2 and before[-1] in v.work_between and before[0].lower() in v.work_cues))
        if cue and (_plain(m.group(1)) or m.group(1).isupper()) \
                and m.group(1) not in v.acronyms:
            add("org", m.group(1))
    _places(text, add)


@lru_cache(maxsize=1)
def _person_cue() -> re.Pattern[str]:
    return re.compile(r"\b(?:" + english().person_cues_before + r")\s+$")


def _person_cue_before(text: str, start: int) -> bool:
    """`sent it to X Y in Brixworth`, `spoke to X Y`: a cue of a person right before the name."""
    return bool(_person_cue().search(text, max(0, start - 30), start))


_CAPS_BEFORE = re.compile(rf"(?:(?:{WORD}|{_ACRONYM})\s){{1,3}}$")


def _words_before(text: str, start: int) -> str:
    """The capitalised words right before a firm's `X & Y` that are its name too (`KRV Coastal Glazes &
    Coatings`), less a sentence's opening word (`Thanks`, `Saved`)."""
    m = _CAPS_BEFORE.search(text, max(0, start - 60), start)
    if m is None:
        return ""
    words = m.group(0).split()
    v = english()
    while words and (words[0] in v.lead_verbs or words[0] in v.not_people or words[0] in NOT_NAMES):
        words.pop(0)
    return " ".join(words) + " " if words else ""


def _businesses(text: str, add: Add) -> None:
    """Capitalised words ending in a company word (`Kestrel Cleaning`), and the town after `in` (`Harbour Dental in
    Portree`)."""
    v = english()
    for m in _en()["business"].finditer(text):
        words = m.group(1).split() + _more_kind_words(text, m.end())
        if (also := _AND_KIND.match(text, m.end())) and also.group(1) in v.business_words:
            words += ["and", also.group(1)]  # `Anidaso Savings and Loans`: one lender
        starts = [m.start(1) + w.start() for w in re.finditer(r"\S+", m.group(1))]
        pair = _KIND_PAIR.search(text, max(0, m.start(1) - 40), m.start(1))  # `the Lakes and Dales Club`: one
        if pair and pair.group(1) not in v.not_people and pair.group(1) not in NOT_NAMES:  # club, `and` in its name
            words, starts = [pair.group(1), "and", *words], [pair.start(1)] * 2 + starts
        while words and (words[0] in v.lead_verbs or words[0] in _PREPOSITIONS and sentence_start(text, starts[0])
                         or (words[0] in v.not_people or words[0] in NOT_NAMES)
                         and not (len(words) > 2 and words[1].casefold() in v.street_endings)
                         and not (words[0] in v.name_adjectives
                                  and (len(words) > 2 or not sentence_start(text, starts[0])))
                         and not (len(words) > 2 and words[0] in v.name_particles)
                         and not (len(words) > 2 and words[0] in v.name_numbers
                                  and not sentence_start(text, starts[0]))):
            # "The", "Thanks", a note's opening verb ("Saved"): no part of the company's name; one named after its
            # street keeps it (`Kiln Road Garage`), a number mid-sentence (`Three Gables Diesel`), `Ah` (`Ah Meng X`),
            # a word of where or what size mid-sentence (`at Western Maritime Institute`), or before two more words
            words.pop(0)
            starts.pop(0)
        if len(words) >= 3 and words[0] in v.request_verbs and sentence_start(text, m.start(1)):
            words.pop(0)  # `Reminder set: Chase Fife Council`: what the note asks, not the council's name
        if len(words) >= 2 and words[0].casefold() not in v.products:  # `MacBook Air`: a product's model
            add("org", " ".join(words))
            where = _ORG_IN.match(text, m.end())
            if where and _plain(where.group(1)) and not _HOUSE_NUMBER.match(text, where.end()):
                add("place", where.group(1))


_NEXT_CAP = re.compile(rf"\s({WORD})\b")
_AND_KIND = re.compile(rf"\s(?:and|&)\s({WORD})\b")
_KIND_PAIR = re.compile(rf"\b(?:the|The)\s({WORD})\sand\s$")


def _more_kind_words(text: str, end: int) -> list[str]:
    """`Riverside Veterinary Centre`: kind words right after a company's business word are its name too."""
    more: list[str] = []
    while (m := _NEXT_CAP.match(text, end)) and len(more) < 2 and m.group(1) in english().kind_words_after:
        more.append(m.group(1))
        end = m.end()
    return more


def _article_kept(text: str, m: re.Match[str]) -> bool:
    """`The` is part of the name capitalised inside a sentence, or opening one before a group's plural name (`The
    Velvet Lapwings rehearse`); a sentence's capital before one thing (`The Grey Heron moved`) says nothing."""
    if m.group(1) != "The ":
        return False
    last = m.group(2).split()[-1]
    return not sentence_start(text, m.start(1)) or (last.endswith("s") and not last.endswith("ss"))


_STREET_NEXT = re.compile(rf",\s*((?:{WORD}\s){{0,2}}{WORD})\b")


def _before_street(text: str, end: int) -> bool:
    """`Thornbank, Millbrae Road`: a house's name before its street is part of an address (a value)."""
    m = _STREET_NEXT.match(text, end)
    return bool(m) and m.group(1).split()[-1].casefold().endswith(english().street_endings)


def _places(text: str, add: Add) -> None:
    """Places: a known one after in/from/to, one before `trip`, one after a place cue, `at X`, `to the X`."""
    v = english()
    rx = _en()
    for m in rx["known_place"].finditer(text):
        if m.group(1) in v.known_places:
            add("place", m.group(1))
    for m in _POST_TOWN.finditer(text) if any(c.isdigit() for c in text) else ():
        if _plain(m.group(1)) and not m.group(1).casefold().endswith(v.street_endings):
            add("place", m.group(1))  # `22 Mill Street, Portwenna PW4 2JD`: the town of an address
    for m in rx["trip"].finditer(text):  # `the Lanjiaoshan trip`: where one goes
        if _plain(m.group(1)):
            add("place", m.group(1))
    for key in ("place", "at", "the"):
        for m in rx[key].finditer(text):
            name = m.group(1)
            if key == "at" and name.isupper():
                continue  # `at CPD`, `at GP surgery`: letters of a course or a service, no place one goes
            kind = _more_kind_words(text, m.end())  # `at Brisley Heath Leisure Centre`: its kind word is its name too
            end = m.end() + sum(len(w) + 1 for w in kind)
            if _NEXT_CAP.match(text, end):
                continue  # the name goes on past what a rule reads: a part of it would be a wrong name
            if (_plain(name) or (name.isupper() and name not in v.acronyms)) and name.split()[-1] not in \
                    v.business_words and not _HOUSE_NUMBER.match(text, end) and text[end:end + 1] != "-" \
                    and not name.split()[-1].casefold().endswith(v.street_endings) \
                    and not _NAME_GOES_ON.match(text, end) and not _before_street(text, end):
                add("place", " ".join([name, *kind]))  # a street (`Elm Street`) is part of an address: a value
