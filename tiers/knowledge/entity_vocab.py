"""The entity rules' vocabularies, read once from tiers/knowledge/lang/entities_<lang>.json (data, not code)."""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any


@lru_cache(maxsize=2)  # read by english()/chinese() and by the family-word and known-organisation rules: once
def vocabulary(code: str) -> dict[str, Any]:
    """One language's vocabularies as written in lang/entities_<code>.json (read only: shared by every caller)."""
    text = resources.files("memoryd.tiers.knowledge").joinpath(f"lang/entities_{code}.json").read_text("utf-8")
    return dict(json.loads(text))


def alternation(words: list[str]) -> str:
    """A regex alternation of `words`, longest first (so `汇报给` wins over `给`)."""
    return "|".join(re.escape(w) for w in sorted(set(words), key=lambda w: (-len(w), w)))


def _both_cases(words: list[str]) -> list[str]:
    """Each word as written and capitalised (a sentence may start with it): cheaper than (?i:) in a pattern."""
    return [w for word in words for w in (word, word[:1].upper() + word[1:])]


@dataclass(frozen=True)
class English:
    not_people: frozenset[str]
    business_words: frozenset[str]
    org_prefix_words: frozenset[str]
    products: frozenset[str]        # casefolded: the world's tools, not the person's own things
    acronyms: frozenset[str]
    hyphen_compounds: frozenset[str]
    hyphen_prefixes: frozenset[str]  # `pre-`, `mid-`: an English compound, not a repo
    hyphen_suffixes: frozenset[str]  # `-ish`, `-off`
    hyphen_inner: frozenset[str]  # `by-the-book`, `day-to-day`: a phrase's small word inside, no repo
    code_suffixes: tuple[str, ...]
    product_suffixes: tuple[str, ...]  # `…DB`, `…MQ`, `…JS`: how the world's tools are named
    project_stop: frozenset[str]
    determiners: frozenset[str]
    after_name_words: frozenset[str]
    project_followers: frozenset[str]
    person_verbs_after: str         # alternations, ready for a pattern
    person_cues_before: str         # … in both cases of their first letter (`Told`, `told`)
    relations: str
    place_cues: str
    work_cues: frozenset[str]
    possessive_org_nouns: frozenset[str]
    org_nouns_after: frozenset[str]
    speaker_labels: frozenset[str]
    known_places: frozenset[str]  # never a person's name, fine as a place
    street_endings: tuple[str, ...]  # `Wilgenhofstraat`, `Elm Street`: part of an address, not a place
    trade_verbs: str  # `ordered … from X`, `switched from X`: X is an organisation
    common_noun_endings: tuple[str, ...]  # `Supplier`, `Policy`: a role's or an abstract noun's ending
    named_thing_verbs: str  # `the Velvet Lapwings rehearse`: after `the` and two names, a verb makes it a name
    thing_endings: tuple[str, ...]  # `Sports Massage is`: a service's or an abstract noun's ending
    lead_verbs: frozenset[str]  # `Saved`, `Rang`: capitalised verbs that open a note, never a name's first word
    article_determiners: frozenset[str]  # `the X's filter`: X is a thing's name, no person's
    kind_words_after: frozenset[str]  # `Riverside Veterinary Centre`: goes on a company's name, starts none
    work_between: frozenset[str]  # `works nights at X`: what may stand between work and at/for
    family_titles: str  # `Auntie Grace`, `Uncle Rashid`: a family word before a name, part of how one is called
    formal_titles: str  # `Pani Ewa`, `Frau Weber`: a title of respect, read like `Mr`
    request_verbs: frozenset[str]  # `Chase Acme Plumbing`: a sentence's opening request, capitalised
    suits_subjects: frozenset[str]  # `Tuesday works for X`: suits X, no employer
    region_codes: frozenset[str]  # `cn-hangzhou`, `us-east-1`: a cloud region, a value
    of_heads: str  # `University of Limerick`, `Journal of Glacial Hydrology`: an institution named by what it is of
    name_numbers: frozenset[str]  # `Three Gables Diesel`: a number word starting a company's name mid-sentence
    account_words: frozenset[str]  # `our instagram is @…`: an @handle near one is an account, no person
    firm_relations: str  # `X is our client`: a relation a company holds too, no cue of a person after `is`
    acronym_org_nouns: frozenset[str]  # `the KBX technician`, `my QRB account`: after capitals, a body one deals with
    honorifics_after: str  # `Dervish bhai`, `Kasuri sahab`: a word of respect after a name, the name a person's
    honorifics_before: str  # `anh Lộc`, `chị Nguyệt`: a Vietnamese word of address before a given name
    name_particles: frozenset[str]  # `Ah Meng Plumbing`: a name's first word before two capitalised words
    study_endings: tuple[str, ...]  # `Geology`, `Proteomics`: a field of study, no person
    day_name_ends: frozenset[str]  # `Canada Day`, `Founders Day`: a day's own name, no person
    name_adjectives: frozenset[str]  # `at Western Maritime Institute`: no person, but a firm's first word mid-sentence


@dataclass(frozen=True)
class Chinese:
    surnames: str
    compound_surnames: tuple[str, ...]
    not_names: frozenset[str]
    before_person: str
    after_person: str
    after_person_soft: str
    titles: str
    org_suffixes: str
    place_suffixes: str
    cities: frozenset[str]
    place_before: str
    clause_breaks: str
    not_bodies: frozenset[str]  # words before 公司/区/项目 saying which kind, not which one (`上家公司`, `可用区`)
    measure_before: str  # `这张表`, `一条路`: a surname character used as a measure word
    not_given: tuple[str, ...]  # what follows a surname character but is no given name (`周今天`)
    copulas: str  # between a role and a name (`组长是万某`)
    road_suffixes: str  # a district right before a numbered road is part of an address
    city_before: str  # a city name stands as a word after these (`去苏州`), not inside a word (`最大连接数`)
    project_followers: str  # after a kebab-case name in Chinese text: the person's project (`order-api 这个服务`)
    work_after: str  # `在X上班`: X is an organisation
    weak_place_ends: str  # 区, 街, 山 …: a place only where a place is said (`住在西湖区`), not `临界区`
    thing_measures: str  # `几块老X布`: 老/小 after a measure word of things is old/small, no familiar name
    demonstratives: tuple[str, ...]  # `那个记账项目`: a description before 项目, no name
    suffix_words: frozenset[str]  # `省事`, `市场`: a kind character starting a common word ends no name
    motion_endings: tuple[str, ...]  # `每周来工作室`: coming to a place, the kind word a common noun
    name_verbs: str  # `产品经理X提的`: a one-character verb after a two-character name, no part of it
    time_units: tuple[str, ...]  # `下个月`: after 个 a time unit, where no name starts
    time_words: str  # `谢总今天…`: a word of time after a title ends it
    common_endings: tuple[str, ...]  # `街坊`: a common word ending with a kind character ends no organisation
    lead_words: tuple[str, ...]  # `看澄睿科技`, `旁边咖啡馆`: opens a clause, cut from a name's front
    question_words: tuple[str, ...]  # `啥支付公司`: asks which one, no name
    date_units: str  # `2日入X幼儿园`: after a number, a date's unit …
    after_date: str  # … and a verb of going start no name
    project_verbs: str  # `赶项目`: a verb taking 项目 as its object
    agent_marks: str  # `这轮由X资本`: 由, 被 end the words before a name
    latin_after_person: str  # `Ottilie 說`, `Calloway 會`: after a Latin first name among Chinese words, a person's
    not_doubled_names: frozenset[str]  # `天天说`, `妈妈说`: a doubled character that is no pet name
    not_workplace: tuple[str, ...]  # `在家上班`, `在公司上班`: no workplace's name
    departments: tuple[str, ...]  # `在财务部上班`: a department of the workplace, no organisation
    city_kept_ends: tuple[str, ...]  # `湖州银行`, `湖州一院`: a city part of the name (a firm's is not: `湖州X五金`)
    trade_verbs: tuple[str, ...]  # `家做贸易的`: a verb of trade before a kind word, which names no firm then
    elder_words: str  # `钫哥`, `琇姐`: a given name's character and a word of an elder, how one is called
    not_elder_before: str  # `大哥`, `表姐`, `做姐姐`: characters before an elder word that make no name
    elder_cue_before: str  # `跟琇姐`, `叫他钫哥`: characters after which such a name may start
    not_elder_after: str  # `温哥华`, `哥们`: characters after an elder word that make a longer word
    org_before: str  # `找X旅行社办`: characters after which a firm's name may start inside a clause
    kin_full_name: str  # `妻子<full name>`: a word of family right before a three-character name
    kin_full_name_stops: str  # `<surname><given>仍…`: characters that end a clause, no given name's
    given_name_chars: frozenset[str]  # a name after a word of family has only these in its given name
    tibetan_name_parts: str  # a Tibetan name is two of these; one before a word of respect names one too
    tibetan_honorifics: str
    given_name_ends: str  # `<given>说`: a surname-less given name's last character is one of these
    transliteration_chars: str  # `阿<x>尔`: after 阿 and one character, these go on a transliterated name
    ah_not: str  # `阿好`, `阿是`: 阿 asking a question in Wu before these, no familiar name
    full_name_after: str  # `<full name>的`, `<full name>说`: after a cue-less full name, what makes it a person's


@lru_cache(maxsize=1)
def english() -> English:
    d = vocabulary("en")
    return English(
        frozenset(d["not_people"]), frozenset(d["business_words"]), frozenset(d["org_prefix_words"]),
        frozenset(w.casefold() for w in d["products"]), frozenset(d["acronyms"]),
        frozenset(d["hyphen_compounds"]), frozenset(d["hyphen_prefixes"]), frozenset(d["hyphen_suffixes"]),
        frozenset(d["hyphen_inner"]),
        tuple(d["code_suffixes"]), tuple(d["product_suffixes"]),
        frozenset(d["project_stop"]),
        frozenset(d["determiners"]), frozenset(d["after_name_words"]), frozenset(d["project_followers"]),
        alternation(d["person_verbs_after"]), alternation(_both_cases(d["person_cues_before"])), alternation(d["relations"]), alternation(_both_cases(d["place_cues"])),
        frozenset(d["work_cues"]), frozenset(d["possessive_org_nouns"]), frozenset(d["org_nouns_after"]),
        frozenset(d["speaker_labels"]),
        frozenset(d["known_places"]), tuple(d["street_endings"]), alternation(_both_cases(d["trade_verbs"])),
        tuple(d["common_noun_endings"]), alternation(d["named_thing_verbs"]), tuple(d["thing_endings"]),
        frozenset(w.capitalize() for w in d["note_verbs"] + d["person_verbs_after"] + d["trade_verbs"]),
        frozenset(d["article_determiners"]), frozenset(d["kind_words_after"]), frozenset(d["work_between"]),
        alternation(d["family_titles"]), alternation(d["formal_titles"]),
        frozenset(w.capitalize() for w in d["request_verbs"]),
        frozenset(d["suits_subjects"]), frozenset(d["region_codes"]), alternation(d["of_heads"]),
        frozenset(d["name_numbers"]), frozenset(d["account_words"]), alternation(d["firm_relations"]),
        frozenset(d["acronym_org_nouns"]), alternation(d["honorifics_after"]),
        alternation(d["honorifics_before"]), frozenset(d["name_particles"]),
        tuple(d["study_endings"]), frozenset(d["day_name_ends"]), frozenset(d["name_adjectives"]))


@lru_cache(maxsize=1)
def chinese() -> Chinese:
    d = vocabulary("zh")
    return Chinese(
        d["surnames"], tuple(d["compound_surnames"]), frozenset(d["not_names"]), alternation(d["before_person"]),
        alternation(d["after_person"]), alternation(d["after_person_soft"]), alternation(d["titles"]),
        alternation(d["org_suffixes"]), alternation(d["place_suffixes"]), frozenset(d["cities"]),
        alternation(d["place_before"]), d["clause_breaks"], frozenset(d["not_bodies"]),
        d["measure_before"], tuple(d["not_given"]), alternation(d["copulas"]), alternation(d["road_suffixes"]),
        d["city_before"], alternation(d["project_followers"]), alternation(d["work_after"]),
        d["weak_place_ends"], d["thing_measures"], tuple(d["demonstratives"]), frozenset(d["suffix_words"]),
        tuple(sorted(d["motion_endings"], key=len, reverse=True)), d["name_verbs"], tuple(d["time_units"]),
        alternation(d["time_words"]), tuple(d["common_endings"]),
        tuple(sorted(d["lead_words"], key=len, reverse=True)), tuple(d["question_words"]), d["date_units"],
        d["after_date"], d["project_verbs"], d["agent_marks"], alternation(d["latin_after_person"]),
        frozenset(d["not_doubled_names"]), tuple(d["not_workplace"]), tuple(d["departments"]),
        tuple(d["city_kept_ends"]), tuple(d["trade_verbs"]), alternation(d["elder_words"]), d["not_elder_before"],
        d["elder_cue_before"], d["not_elder_after"], d["org_before"], alternation(d["kin_full_name"]),
        d["kin_full_name_stops"], frozenset(d["given_name_chars"]), alternation(d["tibetan_name_parts"]),
        alternation(d["tibetan_honorifics"]), d["given_name_ends"], d["transliteration_chars"],
        d["ah_not"], alternation(d["full_name_after"]))


@lru_cache(maxsize=1)
def _school_names() -> tuple[tuple[str, ...], tuple[str, ...]]:
    d = vocabulary("zh")["school_names"]
    return tuple(d["words"]), tuple(d["before"])


def kind_word_in(body: str, name: str) -> bool:
    """`body` holds a word saying which kind, not which one (`上家公司`, `可用区`), other than a word that names a
    school right before a school word (`城东实验小学`: the experimental school is its name)."""
    words, schools = _school_names()
    school_word = next((w for w in words if body.endswith(w)), "") if name.endswith(schools) else ""
    return any(w in body[:len(body) - len(school_word)] for w in chinese().not_bodies)
