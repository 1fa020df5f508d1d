"""People named in a memory (English and Chinese): a name needs a cue around it, never a capital letter alone.

English: a verb of speaking or meeting before or after it (`told Alice`, `Alice said`), `with Alice.`, a
possessive (`Alice's`), `Alice and Bob`, a title (`Dr. Odunsi`), a relation (`my sister Sunniva`), a handle
(`@alice`). Chinese: a surname from the 百家姓 with a cue before or after (`和张伟开会`,
`张伟说`), a familiar form (`老王`, `小李`), a title (`王总`), or a name written alone inside Latin text. The
vocabularies are data (tiers/knowledge/lang/entities_*.json).
"""
from __future__ import annotations

import re
from functools import lru_cache
from typing import Iterable

from memoryd.tiers.distillation.lexicon import NOT_NAMES
from memoryd.tiers.knowledge.entity_vocab import chinese, english
from memoryd.tiers.retrieval.when import MONTHS

# Vietnamese letters too (ĩ ũ ơ ư and the toned vowels of Latin Extended Additional, capitals at even code points)
_VI_UP = "ĨŨƠƯ" + "".join(map(chr, range(0x1EA0, 0x1EFA, 2)))
_VI_LOW = "ĩũơư" + "".join(map(chr, range(0x1EA1, 0x1EFA, 2)))
UP = "A-ZÀ-ÖØ-ÞĀĆČĎĐĒĘĚĞİŁŃŇŌŐŒŘŚŞŠŢŤŪŮŰŸŹŻŽ" + _VI_UP
LOW = "a-zß-öø-ÿāăąćčďđēėęěğıįłńňōőœřśşšţťūůűųźżž" + _VI_LOW
_TITLES = "Mr|Mrs|Ms|Dr|Prof"  # read before a name, the name being the person (`Dr. Odunsi`)
WORD = rf"(?:O['’](?=[{UP}])|Ma?c(?=[{UP}][{LOW}]))?[{UP}][{LOW}]{{1,19}}"  # O'Kelleher, McCarthy, MacLeod: one word
_NAME_PART = rf"{WORD}(?:-(?:{WORD}|[{LOW}]{{2,}}))?(?![\w-])"  # `Ye-rin`, `Jean-Luc`: one word of a name
# `Joost van der Berg`, `Ana de Souza`: a family name's lowercase particle between the two parts
_PARTICLE = r"(?:de|van|von|der|den|da|di|du|del|della|dos|das|le|la|ter|ten|bin|binti)(?:\s(?:der|den|la|los))?"
_NAME = rf"({_NAME_PART}(?:\s(?:{_PARTICLE}\s)?{_NAME_PART})?)"
_HAN = "\u4e00-\u9fff"


@lru_cache(maxsize=1)
def _en() -> dict[str, re.Pattern[str]]:
    v = english()
    streets = rf"(?!\s+(?i:{'|'.join(v.street_endings)})\b)"
    return {
        "before": re.compile(r"\b(?:" + v.person_cues_before + r")\s+" + _NAME + r"\b"),
        # bare "with X" names a person only where a person's name ends ("with Bob.", "with Bob about"), not a
        # company's ("the contract with Hetzner for the servers")
        "with": re.compile(r"\bwith\s+" + _NAME + r"(?=\s*(?:[,.;:!?)]|$)|\s+(?:and|about|to|on|at|of|from|over|"
                           r"regarding|today|tomorrow|yesterday|tonight|this|next|last)\b)"),
        "after": re.compile(r"(?<![\w-])" + _NAME + r"(?:\s+(?:" + v.person_verbs_after + r")\b|'s\s+([a-z]+))"),
        "and": re.compile(r"\b" + _NAME + r"\s+and\s+" + _NAME + r"\b"),
        # `Dr. Odunsi`: the name after the title; `Auntie Grace`: the family word is part of how she is called
        # (a dot only after an abbreviation: `Poor Mai. Ratings…` ends a sentence; `Baba <name> Road` is a street)
        "title": re.compile(rf"\b(?:(?:{_TITLES})\.?|{v.formal_titles})\s+({WORD})\b{streets}|"
                            rf"\b((?:{v.family_titles})\s+{WORD})\b{streets}"),
        # `my sister Sunniva`, and whose relation it is by name (`Dad's new partner, Linda`)
        "relation": re.compile(rf"(?:\b[Mm]y|\b[Oo]ur|\b[Hh]is|\b[Hh]er|\b[Tt]heir|\b{WORD}['’]s)\s+"
                               r"(?:(?:little|big|older|younger|elder|best|old|new)\s+)?(?:[a-z]+\s+)?(?:"
                               + v.relations + r"),?\s+" + _NAME + r"\b(?!['’]\w{2})"),  # `his cousin Tavish`, `our
        # dog walker Ines`; not the first letters of a title (`my unit manager Ma'am Oriel`: the title rule reads her)
        "relation_after": re.compile(r"\b" + _NAME + r",?\s+\(?(?:my|our)\s+(?:(?:little|big|older|younger|best)\s+)?"
                                     r"(?:" + v.relations + r")\b"),
        # `Maelis, Corentin's sister, runs`, `Tavish, his accountant,`: the relation said after a comma, whose it is
        # by name or pronoun; not `Trondheim, her sister's town` (the relation owns the next word)
        "apposition": re.compile(r"\b" + _NAME + rf",\s+(?:his|her|their|{WORD}['’]s)\s+"
                                 r"(?:(?:little|big|older|younger|elder|best|old|new)\s+)?(?:[a-z]+\s+)?(?:"
                                 + v.relations + r")\b(?!['’-])"),
        # `Eldwin (captain) says`, `Ines (our physio)`: a role in brackets after a name
        "role_bracket": re.compile(r"\b" + _NAME + r"\s+\((?:the\s+|my\s+|our\s+)?(?:[a-z]+\s+)?(?:"
                                   + v.relations + r")\)"),
        # `Nyokabi the driver rang`, `Odile Marchetti the treasurer will`: a role after `the` right after the name
        "role_the": re.compile(r"\b" + _NAME + r"\s+the\s+(?:[a-z]+\s+)?(?:" + v.relations
                               + r")\b(?!['’-])(?=\s*(?:[,.;:!?)]|$)|\s+(?:[a-z]+ed|[a-z]+s|will|would|can|could|"
                               r"has|had|is|was|who|on|at|for|from|of|in|and|rang|came|went|got|took|told|sent|saw|"
                               r"made|gave|left|knows|knew)\b)"),
        # `Sigrun is skipper on the ferry`, `Tomasz from Kovra is the contact`: a role said of a name with `is`;
        # not a relation a firm holds as often (`X is our client`), and the role ends its phrase (`is the
        # driver on`, not `is the developer tool`)
        "role_is": re.compile(r"\b" + _NAME + rf"(?:\s+from\s+{WORD}(?:\s{WORD})?)?\s+(?:is|was)\s+"
                              r"(?:(?:the|our|my|their|his|her|a|an)\s+)?(?:(?:new|old|head|main)\s+)?(?!(?:"
                              + v.firm_relations + r")\b)(?:" + v.relations + r")\b(?!['’-])"
                              r"(?=\s*(?:[,.;:!?)]|$)|\s+(?:on|at|for|of|in|and|who|now|too|there|here|since|"
                              r"again|anyway|though|then)\b)"),
        # `her manager is Ana Quintela`; not the first letters of a title (`is Ma'am Ana`: the title rule reads her)
        "relation_is": re.compile(r"\b(?:" + v.relations + r")\s+(?:is|was|will be)\s+" + _NAME
                                  + r"\b(?!['’]\w{2})"),
        # `Dervish bhai wants`, `Kasuri sahab quoted`: a word of respect after the name (not `ji`: kin words take it)
        "honorific": re.compile(rf"(?<![\w-])({WORD})\s+(?:{v.honorifics_after})\b(?![\w-])"),
        # `anh Lộc`, `chị Nguyệt`: a Vietnamese word of address before the name, typed lowercase
        "address": re.compile(rf"(?<![\w-])(?:{v.honorifics_before})\s+({WORD})(?![\w-])"),
        "and_i": re.compile(r"\b" + _NAME + r"\s+and\s+I\b|\b(?:me|I)\s+and\s+" + _NAME + r"\b"),
        # a full name with a verb after it ("Dana Whitfield is leaving"): two capitalised words, neither common
        "full": re.compile(rf"(?<![\w-])({WORD}\s{WORD})\s+"
                           r"(?:is|was|has|had|will|would|joined|left|leaves|starts|started|works|worked|lives|"
                           r"runs|said|says|thinks|wants|can|could|should|might|needs|does|did|coaches|teaches|"
                           r"manages|handles|owns|drives|leads|chairs|covers|" + v.person_verbs_after + r")\b|"
                           rf"(?<![\w-])({WORD}\s{WORD}),?\s+who(?:['’]s)?\b"),  # `Perpetua Varga, who teaches`
    }


_CALLED_THING = re.compile(r"\b(?:a|an|the|one|something|thing|tool|app|project|company|place|team|repo|product|"
                           r"service|firm|shop|restaurant|band|book|game|site|bar|cafe|song|album|film|movie|show)\s+"
                           r"(?:[\w-]+\s+)?$")
_WORD_BEFORE = re.compile(r"([A-Za-z]+)\s+$")
_NUMBER_BEFORE = re.compile(r"\b\d+(?:st|nd|rd|th)?\s+$", re.IGNORECASE)
_HANDLE = re.compile(r"(?<![\w@.])@([A-Za-z][\w-]{1,38})")


def is_person_name(name: str) -> bool:
    """No word of it is a common capitalised word (`Monday`, `Thanks`, `Project`), a product or an acronym."""
    v = english()
    words = name.split()
    return bool(words) and all(w not in NOT_NAMES and w not in v.not_people and w.capitalize() not in v.not_people
                               and w.casefold() not in v.products and w not in v.known_places
                               and w not in v.lead_verbs for w in words)


def _verb_like(word: str) -> bool:
    """A first word that reads as a verb (`Reviewed`, `Calling`), not a name."""
    return len(word) > 4 and word.endswith(("ed", "ing"))


def person_part(name: str) -> str | None:
    """The name itself, or its last word when the first is no name ("Yesterday Bob said", "Reviewed Bob's PR");
    a name's word said twice ("Bob Bob") once."""
    words = name.split()
    if len(words) == 2 and words[0] == words[1]:
        words = words[:1]
    if len(words) == 2 and (family_title(words[0]) or words[0] in english().name_particles):
        return name if is_person_name(words[1]) else None  # `Auntie Grace`, `Ah Hock`: how one is called
    if len(words) == 2 and (words[1] in english().day_name_ends or words[0].lower() in english().article_determiners):
        return None  # `Launching Day's the first Friday`: a day's name; `The Travo's great`: a thing's, no person
    if len(words) == 2 and (_verb_like(words[0]) or not is_person_name(words[0])):
        words = words[1:]
    joined = " ".join(words)
    return joined if is_person_name(joined) and not any(map(_field_of_study, words)) else None


def _field_of_study(word: str) -> bool:
    """`Geology's a decent route`, `Proteomics and Metabolomics`: what one studies or a journal's field, no name."""
    return len(word) >= 6 and word.endswith(english().study_endings)


@lru_cache(maxsize=1)
def _titles() -> tuple[re.Pattern[str], re.Pattern[str]]:
    v = english()
    return re.compile(v.family_titles), re.compile(rf"(?:{_TITLES}|{v.formal_titles}|{v.family_titles})\.?")


def family_title(word: str) -> bool:
    """A family word said before a name as a title (`Auntie`, `Uncle`, `Abuela`): no name of its own."""
    return _titles()[0].fullmatch(word) is not None


def title(word: str) -> bool:
    """Any title said before a name (`Dr`, `Pani`, `Auntie`): never a first name of its own."""
    return _titles()[1].fullmatch(word) is not None


_OPENERS = ".!?…:;。！？：；(\"“"
_NUMBER_AFTER = re.compile(r"\s+#?\d")
_OWNER_BEFORE = re.compile(rf"\b{WORD}['’]s\s+$")
_BULLETS = "-–—*•"


def sentence_start(text: str, at: int) -> bool:
    """Whether `at` starts a sentence (the text's start, after a speaker label, a full stop, a bullet or a
    dash): there every word is capitalised, so the capital does not say it is a name."""
    before = text[:at].rstrip()
    if not before or before[-1] in _OPENERS or "\n" in text[len(before):at]:
        return True
    return before[-1] in _BULLETS and (len(before) == 1 or before[-2].isspace())


def _after_article(text: str, at: int) -> bool:
    """An article before the name, or before `X and` (`the Thimble and Wren's pies`: a pub's name, no person's)."""
    pair = _PAIR_BEFORE.search(text, max(0, at - 40), at)
    if pair:
        at = pair.start(1)
    before = _WORD_BEFORE.search(text, max(0, at - 20), at)
    return bool(before) and before.group(1).lower() in english().article_determiners


_PAIR_BEFORE = re.compile(r"\b([A-Z][a-z]+)\s+(?:and|&)\s+$")


def is_business(name: str) -> bool:
    return name.split()[-1] in english().business_words


# `Corran, Idris, Ody, Yusuf and Big Tam`: three or more names in one list, one of them a person by its cue
_LIST = re.compile(r"\b([A-Z][a-z]+(?: [A-Z][a-z]+)?(?:, (?:and |& )?[A-Z][a-z]+(?: [A-Z][a-z]+)?){2,}"
                   r"(?:,? (?:and|&) [A-Z][a-z]+(?: [A-Z][a-z]+)?)?)(?![\w'’])")
_LIST_SPLIT = re.compile(r",? (?:and|&) |, ")


def english_people(text: str) -> Iterable[str]:
    """People named in English text; a name in a list with a person found by its cue is a person too."""
    found = list(_cued_people(text))
    yield from (name for name, _ in found)
    cued = {name for name, by_cue in found if by_cue}  # not `X and Y` alone: `Crewe and Hull` are towns
    if "," in text and cued:
        known = {name for name, _ in found}
        for m in _LIST.finditer(text):
            names = [n.strip() for n in _LIST_SPLIT.split(m.group(1)) if n.strip()]
            if len(names) >= 3 and any(n in cued for n in names):
                yield from (n for n in names if n not in known and is_person_name(n))


_CUT_WORD = re.compile(r"['’](?!s\b)[a-z]")  # an apostrophe inside a word (`Ma'am`), not a possessive (`Tin's`)
_NEEDS = {"apposition": (", ",), "role_bracket": ("(",), "role_the": (" the ",), "role_is": (" is ", " was ")}


def _cued_people(text: str) -> Iterable[tuple[str, bool]]:
    """(name, found by a cue word around it): `X and Y` and two capitalised words alone are weaker."""
    rx = _en()
    v = english()
    for key in ("before", "with", "after", "title", "relation", "relation_after", "relation_is", "apposition",
                "role_bracket", "role_the", "role_is"):
        if key in _NEEDS and not any(w in text for w in _NEEDS[key]):
            continue  # a pattern opening on any capitalised word is tried only where its fixed words are
        for m in rx[key].finditer(text):
            if key == "before" and m.group(0).startswith("called") and _CALLED_THING.search(text[:m.start()]):
                continue  # "a tool called Zed" names a thing
            if key == "after" and (is_business(m.group(1)) or (m.group(2) or "") in v.possessive_org_nouns):
                continue  # "Kestrel Cleaning said", "Acme's office": a company
            if key == "after" and _after_article(text, m.start(1)):
                continue  # "the Brakvold's filter", "a Marlowe's hull": a thing's name, no person's
            if key == "after" and m.group(2) and _OWNER_BEFORE.search(text, 0, m.start(1)):
                continue  # "Tobin's Travo's got a dent": what a person owns (a van), no person of its own
            if key == "after" and " " not in m.group(1) and sentence_start(text, m.start(1)) \
                    and m.group(1).casefold().endswith(v.common_noun_endings):
                continue  # "Supplier said", "Receptionist's desk": a role's capital at a sentence's start
            group = 2 if key == "title" and m.group(2) else 1
            if _CUT_WORD.match(text, m.end(group)):
                continue  # `Ma'am Joy`: `Ma` is the start of a word, not a name
            yield m.group(group), True
    for m in rx["and_i"].finditer(text):
        yield m.group(1) or m.group(2), True
    for key in ("honorific", "address"):
        for m in rx[key].finditer(text):
            if is_person_name(m.group(1)) and not family_title(m.group(1)):
                yield m.group(1), True
    for m in rx["full"].finditer(text):
        name = m.group(1) or m.group(2)
        words = name.split()
        before = _WORD_BEFORE.search(text, 0, m.start())
        if before and before.group(1).lower() in v.determiners:
            continue  # `a Marathon Plus might`: a thing's name, no person's
        if before and before.group(1)[:1].isupper() and not text[before.end(1):m.start()].strip() and \
                (is_person_name(before.group(1)) or not sentence_start(text, before.start(1))):
            continue  # `Hot Stone Massage is`, `… after Ah Teck Renovation was`: the end of a longer capitalised
            # title, no person's two names
        if sentence_start(text, m.start()) and words[-1].casefold().endswith(v.thing_endings):
            continue  # `Sports Massage is our bestseller`: a service title-cased, no person
        if is_person_name(name) and not is_business(name) and not any(map(_verb_like, words)):
            yield name, False
    for m in rx["and"].finditer(text):
        before = _WORD_BEFORE.search(text, 0, m.start())
        if before and before.group(1).lower() in v.determiners:
            continue  # `at the Fox and Hound`: one named thing, no two people
        if _NUMBER_BEFORE.search(text, 0, m.start()):
            continue  # `on 12th Ave and Tolland`, `at 5th and Larch`: a corner of two streets, no two people
        if is_person_name(m.group(1)) and is_person_name(m.group(2)) and not is_business(m.group(2)):
            yield m.group(1), False  # `Anidaso Savings and Loans`: one lender's name
            if not _NUMBER_AFTER.match(text, m.end(2)):  # `Lyle and Crew 4`: a crew's number, no person `Crew`
                yield m.group(2), False
    for m in _HANDLE.finditer(text):
        if not _an_account(text, m.start()):
            yield m.group(1), True


_WORDS = re.compile(r"[A-Za-z]+")


def account_handle(text: str, handle: str) -> bool:
    """`@handle` is written in `text` as an account (a tag a note or a distiller took from it names no one)."""
    at = text.find("@" + handle)
    return at >= 0 and _an_account(text, at)


def _an_account(text: str, at: int) -> bool:
    """An @handle said as an account (`our instagram is @…`, `follow our new page: @…`): a value, no person."""
    before = _WORDS.findall(text[max(0, at - 40):at])[-4:]
    return any(w.casefold() in english().account_words for w in before)


@lru_cache(maxsize=1)
def _zh() -> dict[str, re.Pattern[str]]:
    v = chinese()
    compound = "|".join(v.compound_surnames)
    name = f"(?<![{v.measure_before}])((?:{compound})[{_HAN}]{{1,2}}?|[{v.surnames}][{_HAN}]{{1,2}}?)"
    return {
        # `和张伟开会`, and a role said with a copula between (`组长是张伟，`)
        "before": re.compile(f"(?:{v.before_person})(?:了|过)?(?:{v.copulas})? ?" + name +
                             f"(?= |{v.after_person}|{v.after_person_soft}|$)"),
        "after": re.compile(name + f"(?= ?(?:{v.after_person}))"),
        # `老王`, `小李`; not after a measure word of things (`几块老蓝布`: old, not a familiar name), nor in a word
        # (小时, 小朋友, 小程序: a mini program)
        "familiar": re.compile(f"(?<![{v.thing_measures}])([老小][{v.surnames}])"
                               f"(?![{_HAN}]{{0,1}}(?:时|心|组|学|区|说明|孩|朋友|序))"),
        # `小敏说`, `阿杰觉得`: a nickname (小/阿 and one character) before a verb of a person
        "nick": re.compile(f"(?<![{_HAN}])((?:小|阿)[{_HAN}])(?={v.after_person})|(?<=[，。！？、；：\\s])((?:小|阿)[{_HAN}])"
                           f"(?={v.after_person})|"
                           # `表妹阿蕙帮我看`, `叫阿渠拍照`: 阿 and one character after a cue of a person, whatever follows
                           f"(?:{v.before_person})(阿[{_HAN}])"),
        # `王总`, `李老师`: followed by a particle, a break or another script (`王总监`: a title, not 王总)
        "title": re.compile(f"([{v.surnames}](?:{v.titles}))(?=[{re.escape(v.clause_breaks)}说]|[^{_HAN}]|$|"
                            f"{v.time_words}|{v.after_person})"),  # `谢总今天心情不错`: a time word after it
        # `跟白老师学书法`, `给卢老师发邮件`: after a cue of a person, a surname and a title whatever follows
        "cue_title": re.compile(f"(?:{v.before_person})([{v.surnames}](?:{v.titles}))"),
        # `沅沅说`, `跟沅沅一起`: a pet name of one character said twice, at a clause's start before a verb of a
        # person or after a cue of one (kin words, adverbs and laughs said so are no names: not_doubled_names)
        "doubled": re.compile(f"(?:(?<![{_HAN}])|(?<=[{re.escape(v.clause_breaks)}]))([{_HAN}])\\1(?={v.after_person})|"
                              f"(?:{v.before_person})([{_HAN}])\\2(?={v.after_person}|{v.after_person_soft})"),
        # `钫哥`, `琇姐`, `蕤叔`: a given name's character and a word of an elder, at a word's start or after a cue
        # of a person (`跟琇姐`, `叫他钫哥`; in `芃芸姐` the name has two characters); not `大哥`, `表姐`, nor inside a
        # longer word (`温哥华`, `哥们`): lang/entities_zh.json
        "elder": re.compile(f"(?:(?<![{_HAN}])|(?<=[{v.elder_cue_before}]))"
                            f"((?![{v.not_elder_before}])[{_HAN}](?:{v.elder_words}))(?![{v.not_elder_after}])"),
        # `<given>姐`, `跟<given>哥`: a given name of two characters and a word of an elder, where the one-character
        # rule stays silent (`芃芸姐`): both characters of a given name, at a word's start or after a cue of a person
        "given_elder": re.compile(f"(?:(?<![{_HAN}])|(?<=[{v.elder_cue_before}]))"
                                  f"([{''.join(sorted(v.given_name_chars))}][{v.given_name_ends}])(?:{v.elder_words})"
                                  f"(?![{v.not_elder_after}])"),
        # `<given>说`, `跟<given>说`: a given name of two characters said without its surname, before a verb of a
        # person, at a clause's start or after a cue of one; its last character one that ends given names, not words
        "given": re.compile(f"(?:(?:{v.before_person})|(?<![{_HAN}])|(?<=[{re.escape(v.clause_breaks)}]))"
                            f"([{''.join(sorted(v.given_name_chars))}][{v.given_name_ends}])(?={v.after_person})"),
        # `阿<x>住…`, `阿<x>今晚…`: 阿 and a character of a given name, at a word's start or after a break, is a familiar
        # name whatever follows; not before a character of a transliterated name, nor 妈/们 (a group of elders), nor
        # where 阿 asks a question in Wu (`阿好`): lang/entities_zh.json `_about_ah`
        "ah": re.compile(f"(?:(?<![{_HAN}])|(?<=[{re.escape(v.clause_breaks)}]))"
                         f"(阿(?![{v.ah_not}])[{''.join(sorted(v.given_name_chars))}])"
                         f"(?![{v.transliteration_chars}妈們们])"),
        "kind_end": re.compile(f"(?:{v.org_suffixes}|{v.place_suffixes})$"),
        "alone": re.compile(f"(?<![{_HAN}\\w])((?:" + "|".join(v.compound_surnames) + f")[{_HAN}]{{1,2}}|"
                            f"[{v.surnames}][{_HAN}]{{1,2}})(?![{_HAN}\\w])"),
        # `表哥<surname><given>在…`: a word of family right before a full name of three characters (two after a
        # compound surname); the character after the name is read too (a time word it opens ends the name early)
        "kin_full": re.compile(f"(?:{v.kin_full_name})((?:{compound})[{_HAN}]{{2}}|[{v.surnames}][{_HAN}]{{2}})"
                               f"(?=(.?))"),
        # `<surname><given>的…`, `，<surname><given>说`: a full name of three characters with no cue before it, at a
        # word's start or after a break; its given name's characters common in given names, its last one that ends
        # them, and then a possessive, a verb of saying or another script: before other Han characters such a run
        # opens a common word as often (lang/entities_zh.json `_about_full_name_after`)
        "full": re.compile(f"(?:(?<![{_HAN}])|(?<=[{re.escape(v.clause_breaks)}]))"
                           f"([{v.surnames}][{''.join(sorted(v.given_name_chars))}][{v.given_name_ends}])"
                           f"(?=(?:{v.full_name_after})|[^{_HAN}]|$)"),
        # Tibetan names, no surname: two common words of a name together, or one before a word of respect
        # (the first characters first: most characters of a text start none, and fail there at once)
        "tibetan": re.compile(f"(?=[{''.join(sorted({w[0] for w in v.tibetan_name_parts.split('|')}))}])"
                              f"(?:((?:{v.tibetan_name_parts}){{2}})|({v.tibetan_name_parts})(?={v.tibetan_honorifics}))"),
        # `樊志鹏（阿鹏）`, `岑姐（岑秀娥）`: a full name and, in brackets, what it is also called, or the other way round
        "aka": re.compile(f"{name}[（(]([{_HAN}]{{1,3}})[）)]|([{_HAN}]{{1,3}})[（(]{name}[）)]"),
    }


def _zh_name_ok(name: str) -> bool:
    v = chinese()
    given = name[2:] if name[:2] in v.compound_surnames else name[1:]
    return name not in v.not_names and name[:2] not in v.not_names and name not in v.cities and \
        not _zh()["kind_end"].search(name) and name[-1] not in _NOT_NAME_ENDS and \
        not (name[0] not in "老小" and given.startswith(v.not_given)) and \
        not any(c in v.clause_breaks for c in given)  # `周今天请假`: 周 and a time word; `孙婷的`: a particle


_NOT_NICKS = frozenset(("小孩", "小心", "小时", "小区", "小学", "小组", "小姐", "小伙", "小朋", "小编", "小二", "小哥",
                        "小妹", "小弟", "小姨", "小舅", "小叔", "阿姨", "阿婆", "阿公", "阿伯", "阿里", "小米", "小红",
                        "阿拉", "阿们", "阿們"))
_NOT_NAME_ENDS = frozenset("路街道巷号站楼区市省县镇村桥门店馆院厅")


@lru_cache(maxsize=1)
def _latin_in_han() -> re.Pattern[str]:
    v = chinese()
    # a Han character is a word character too: the name's edges are Latin letters, not \w (`跟Calloway打`)
    return re.compile(rf"(?<![A-Za-z{LOW}0-9_-])({WORD})\s?(?=(?:{v.after_person}|{v.latin_after_person}|和我|跟我))|"
                      rf"(?:{v.before_person})\s?({WORD})(?![A-Za-z{LOW}0-9_-])"
                      rf"(?=\s?(?:{v.after_person}|{v.after_person_soft}|[{_HAN}]|$))|"
                      rf"(?<![{_HAN}])阿({WORD})(?![A-Za-z{LOW}0-9_-])")  # `阿<name>`: a Cantonese familiar name


def latin_people_in_chinese(text: str) -> Iterable[str]:
    """A Latin first name among Chinese words, by the same cues as a Han name (`<name> 说`, `跟 <name> 对接口`), or
    after the familiar 阿 (`阿<name>`)."""
    for m in _latin_in_han().finditer(text):
        name = m.group(1) or m.group(2) or m.group(3)
        month = m.group(3) is not None and name.casefold() in MONTHS  # `阿<a month's name>`: a given name there
        if (month or is_person_name(name)) and name.casefold() not in english().products:
            yield name


def chinese_people(text: str, latin_around: bool) -> Iterable[str]:
    """Chinese names; `latin_around`: the text is mostly Latin, so a Han name written alone is a name."""
    rx = _zh()
    for key in ("before", "after", "familiar", "title", "cue_title", "nick", "ah"):
        if key in ("familiar", "nick") and "老" not in text and "小" not in text and "阿" not in text or \
                key == "ah" and "阿" not in text:
            continue
        for m in rx[key].finditer(text):
            group = next(i for i, g in enumerate(m.groups(), 1) if g)
            name = m.group(group)
            name = _without_verb(name) if key == "before" else name
            if _zh_name_ok(name) and (key not in ("nick", "ah") or name not in _NOT_NICKS) \
                    and not _ends_a_title(text, m.start(group)) \
                    and not _given_before(text, m.start(group)):
                yield name
    for m in (*rx["given"].finditer(text), *rx["given_elder"].finditer(text)):
        if _given_ok(m.group(1)):
            yield m.group(1)
    for m in rx["full"].finditer(text):
        if _full_name_whole(m.group(1), ""):
            yield m.group(1)
    for m in rx["kin_full"].finditer(text):
        if _full_name_whole(m.group(1), m.group(2)):
            yield m.group(1)
    for m in rx["tibetan"].finditer(text):
        yield m.group(1) or m.group(2)
    for m in rx["elder"].finditer(text):
        if m.group(1) not in chinese().not_names:
            yield m.group(1)
    for m in rx["doubled"].finditer(text):
        name = (m.group(1) or m.group(2)) * 2
        if name not in chinese().not_doubled_names and name not in chinese().not_names:
            yield name
    if latin_around:
        for m in rx["alone"].finditer(text):
            if _zh_name_ok(m.group(1)) and _latin_cue_around(text, m.start(1), m.end(1)):
                yield m.group(1)


def _given_before(text: str, start: int) -> bool:
    """`秋菊姐`: the surname-and-title at `start` (`菊姐`) ends a given name of two and a word of an elder."""
    m = _zh()["given_elder"].match(text, max(0, start - 1)) if start else None
    return bool(m) and m.start() == start - 1 and _given_ok(m.group(1))


def _given_ok(given: str) -> bool:
    """A given name said alone: no word that only looks like one (not_names, a kin word said twice, a time word)."""
    v = chinese()
    return given not in v.not_names and given not in v.not_doubled_names and not given.startswith(v.not_given) \
        and not any(c in v.clause_breaks for c in given) and given[-1] not in _NOT_NAME_ENDS


def _full_name_whole(name: str, after: str) -> bool:
    """A three-character name after a word of family is one only where both characters of its given name are
    common in given names (`我妈高血压`: a surname's character opening a common noun), none ends a clause
    (`女儿高兴就好`) and its last opens no word of time with the next (`<surname><given>明天`): else silent."""
    v = chinese()
    given = name[2:] if name[:2] in v.compound_surnames else name[1:]
    stops = v.clause_breaks + v.name_verbs + v.kin_full_name_stops
    return _zh_name_ok(name) and all(c in v.given_name_chars and c not in stops for c in given) and \
        not re.match(v.time_words, given[-1] + after) and not re.fullmatch(v.titles, given)


def aka_people(text: str) -> Iterable[str]:
    """A Chinese full name beside, in brackets, what it is also called (`樊志鹏（阿鹏）`, `岑姐（岑秀娥）`): one person
    when the two share a character (`卜雅琴（降压药）`, a name's form and a medicine, share none). Read before the
    brackets are cut (entity_rules: `张伟 (Zhang Wei)`)."""
    rx = _zh()
    for m in rx["aka"].finditer(text):
        full, other = (m.group(1), m.group(2)) if m.group(1) else (m.group(4), m.group(3))
        if set(full) & set(other):
            # both may be written as names (`岑姐（岑秀娥）`): each is one
            yield from (n for n in (full, other) if _zh_name_ok(n) and rx["alone"].fullmatch(n))


def _without_verb(name: str) -> str:
    """`产品经理张磊提的`: after a cue, a one-character verb ends the clause, not the given name (张磊, not 张磊提)."""
    v = chinese()
    given = name[2:] if name[:2] in v.compound_surnames else name[1:]
    return name[:-1] if len(given) == 2 and given[-1] in v.name_verbs else name


@lru_cache(maxsize=1)
def _long_titles() -> tuple[str, ...]:
    return tuple(t for t in chinese().titles.split("|") if len(t) > 1)


def _ends_a_title(text: str, start: int) -> bool:
    """`杨师傅刚打电话`: the character that closes a title (傅 of 师傅) starts no name of its own."""
    return any(text.startswith(t, start + 1 - len(t)) for t in _long_titles() if start + 1 >= len(t))


_MORE_VERBS = ("is|was|has|had|will|can|would|just|also|still|runs|ran|leads|led|works|worked|lives|lived|moved|"
               "joined|left|came|comes|went|goes|got|gets|needs|knows|knew|does|did|sent|sends|made|makes|helps|"
               "helped|uses|used|changed|wants")


@lru_cache(maxsize=1)
def _latin_cues() -> tuple[re.Pattern[str], re.Pattern[str]]:
    v = english()
    before = re.compile(r"(?:\b(?:" + v.person_cues_before + r"|with|and)|(?:\b(?:[Mm]y|[Oo]ur|his|her|their)|['’]s)"
                        r"\s+(?:\w+\s+)?(?:" + v.relations + r"|mother|father|mom|mum|dad|wife|husband)|[,(])\s*$")
    after = re.compile(r"\s*(?:(?:" + v.person_verbs_after + r"|and\s+I|" + _MORE_VERBS + r")\b|['’]s\b|[,)]|\()")
    return before, after


def _latin_cue_around(text: str, start: int, end: int) -> bool:
    """A Han word alone inside Latin text is a name where a Latin sentence says a person there (`with 张伟`,
    `张伟 said`, `my cousin 张伟`, `张伟's`); `my 叶酸 supplements` or `a bowl of 陈皮 tea` say none."""
    before, after = _latin_cues()
    return bool(before.search(text, max(0, start - 40), start) or after.match(text, end))
