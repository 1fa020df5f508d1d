"""What a question asks of: whose it is (the names and ids it asks about; in a Chinese question, the words before
its first 的, its word of now, or a 是 that a word of asking follows) and what it asks besides. Read once a question
(cached), by the placements of current values (current.py) and the latest band (latest.py)."""
from __future__ import annotations

import functools
import re

from memoryd.tiers.knowledge import change
from memoryd.tiers.retrieval import analyzer
from memoryd.tiers.retrieval.answer_shape import lang_data


# a name the question asks about, written capitalised inside it ("What car does Wren drive now?")
_ASKED_NAME = re.compile(r"(?<=\w )(?!I\b)[A-Z][\w'’-]+")


# a project's or a thing's own name: kebab-case, CamelCase, with a digit ("ledger-svc", "SlipTender", "rpt-dash-01")
_ID_NAME = re.compile(r"\b[A-Za-z][\w]*(?:-[\w]+)+\b|\b[A-Z]?[a-z]+[A-Z]\w*\b")


def asked_names(query: str) -> set[str]:
    """The terms of the names a question asks about."""
    return {t for m in _ASKED_NAME.finditer(query) for t in analyzer.terms(m.group(0))}


def _whose(query: str) -> set[str]:
    """The terms saying whose or which thing a question asks of (names, ids): not what it asks."""
    return asked_names(query) | {t for m in _ID_NAME.finditer(query) for t in analyzer.terms(m.group(0))}


@functools.lru_cache(maxsize=1)
def _question_words() -> frozenset[str]:
    data = lang_data("question_words")  # words of asking, not the words of where (`zh_not_whose`)
    return frozenset(data["zh"]) | frozenset(data["zh_query"])


# an English question's head: the words between `which` and its verb (`Which trade fair is …`, `On which day does …`)
_WHICH_HEAD = re.compile(r"^\s*(?:[A-Za-z]+\s+)?[Ww]hich\s+((?:[a-z][\w'’-]*\s+){1,4}?)"
                         r"(?=(?:is|are|was|were|does|do|did|will|has|have|can|should|would)\b)")


def which_head(query: str) -> frozenset[str]:
    """The terms of the thing a `which …` question names as its answer's kind (`trade fair`, `day of the week`);
    empty for any other question."""
    m = _WHICH_HEAD.match(query)
    return frozenset(analyzer.terms(m.group(1))) if m else frozenset()


@functools.lru_cache(maxsize=256)
def question_terms(query: str) -> tuple[frozenset[str], frozenset[str]]:
    """(whose: the names and ids a question asks of, asked: its terms without words of asking)."""
    asked = {t for t in analyzer.terms(query) if (t.isascii() or len(t) > 1) and t not in _question_words()}
    return frozenset(_whose(query)), frozenset(asked)


# a Chinese question naming whose before its first 的 (`檀溪路店的店长是谁？`, `Rosalind的合同…`), or before a 是 that a
# word of asking follows (`二号库是谁在管？`): what it asks follows
_ZH_OF = re.compile(r"^\s*([A-Za-z\u4e00-\u9fff]{2,}?)的(.+)$")
_ZH_IS = re.compile(r"^\s*([A-Za-z\u4e00-\u9fff]{2,}?)是(?=谁|什么|哪|多少|几|怎么)(.+)$")
# … or before its word of now (`苏禾公司现在在哪家银行开户？`: the company's, and what it asks is the bank)
_ZH_NOW = re.compile(r"^\s*([A-Za-z\u4e00-\u9fff]{2,}?)(?:现在|目前|如今)(.+)$")


# whose a Chinese question asks of: the characters before its first 的, word of now, or 是 that a word of asking
# follows (`晓岚现在住哪儿？`, `苏禾公司的开户行是哪家？`, `阿岚而家點樣返工？`)
_ZH_WHOSE = re.compile(r"^\s*([A-Za-z0-9\u4e00-\u9fff]{2,}?)(?:的|现在|現在|目前|如今|而家|"
                       r"是(?=谁|誰|什么|什麼|哪|多少|几|幾|怎么|怎麼))")


# a familiar name (`小禾`, `阿岚`, `禾禾`) says the given name's character: the full name (`林子禾`) holds that one only
_ZH_FAMILIAR = re.compile(r"^(?:[小老阿]([\u4e00-\u9fff])|([\u4e00-\u9fff])\2)$")


_ZH_WHEN_OR_WHICH = re.compile(r"这|這|那|今年|今天|最近|本周|本週|下周|下週")


def zh_whose(query: str) -> frozenset[str]:
    """The terms (two characters, a Latin word, a familiar name's own character) of whose a Chinese question asks
    of; empty for any other question, or where the words before say where, not whose (`家里的…`, `我们的…`)."""
    m = _ZH_WHOSE.match(query) if analyzer.has_cjk(query) else None
    if m is None or m.group(1) in lang_data("question_words")["zh_not_whose"]:
        return frozenset()
    whose = _ZH_WHEN_OR_WHICH.split(m.group(1), maxsplit=1)[0]  # `禾禾这个冬天上的…`: 禾禾's
    familiar = _ZH_FAMILIAR.match(whose)
    if familiar:
        return frozenset(familiar.group(1) or familiar.group(2))
    return frozenset(t for t in analyzer.terms(whose) if t.isascii() or len(t) > 1)


@functools.lru_cache(maxsize=256)
def what_asked(query: str, after_now: bool = False) -> frozenset[str]:
    """What a question asks, besides whose it is: its terms less the names and ids; in a Chinese question the terms
    after its first 的, or after 是 and a word of asking (the characters before say whose: `檀溪路店`, `二号库`);
    `after_now`: or after its word of now (`苏禾公司现在…`), read only to find that neither memory speaks of it
    (the newer may say its change in other words than the question: `迁到` under `部署在哪`)."""
    names, asked = question_terms(query)
    zh = _ZH_OF.match(query) or _ZH_IS.match(query) or (_ZH_NOW.match(query) if after_now else None)
    if zh is None:
        return asked - names
    said = frozenset(t for t in analyzer.terms(_asking_cut(zh.group(2))) if len(t) > 1) - names
    if not said and zh.re is _ZH_IS:  # `<whose><what>是哪天？`: what is asked stands before 是, with whose it is
        said = frozenset(t for t in analyzer.terms(zh.group(1)) if len(t) > 1) - names
    return said


def _asking_cut(text: str) -> str:
    """`text` with its words of asking made spaces: the character pairs that straddle one (`几点到几点` gives `点到`,
    `有多少人` gives `有多`, `少人`) are pieces of the asking, not of what is asked."""
    return _asking_words().sub(lambda m: " " * len(m.group()), text)


@functools.lru_cache(maxsize=1)
def _asking_words() -> re.Pattern[str]:
    return re.compile("|".join(map(re.escape, sorted(_question_words(), key=len, reverse=True))))


_HAN_LEAD = re.compile(r"\s*([\u4e00-\u9fff])(?:(?<=[阿小老])([\u4e00-\u9fff]))?")


def han_subject_unsaid(query: str, said: str) -> bool:
    """A Chinese question starts with whose it asks (`岑墨早读值班是周几？`, `岚舟账本部署在哪？`): when neither memory
    holds its first character (a surname, a name's first), they speak of someone or something else. After a
    familiar name's 阿, 小 or 老 (`阿蘅`, `小岑`) the name's own character must be held too: another 阿-name is
    someone else."""
    lead = _HAN_LEAD.match(query)
    if not lead or lead.group(1) in _question_words_chars():
        return False
    return any(c not in said for c in lead.groups() if c)


def han_familiar_lead(query: str) -> str:
    """The familiar name a Chinese question opens with (`老<surname>…`, `阿<name>…`), or ''."""
    lead = _HAN_LEAD.match(query)
    return lead.group(0).strip() if lead and lead.group(2) else ""


_ZH_NOW_LEAD = re.compile(r"^\s*(?:现在|現在|目前|如今|而家)?([\u4e00-\u9fff]{2})")


def han_thing_unsaid(query: str, said: set[str]) -> bool:
    """`<whose>的<thing><what is asked>` (`…的<a product>起订量是多少？`): the thing's first two characters are in
    neither memory, a word after them is: the memories tell that fact of another thing (another product's minimum)."""
    thing, told = _han_thing_asked(query)
    return bool(thing) and not thing & said and bool(told & said)


@functools.lru_cache(maxsize=256)
def _han_thing_asked(query: str) -> tuple[frozenset[str], frozenset[str]]:
    """The terms of the thing a `<whose>的<thing><what>` question names, and of the words after it (read once a
    question, not once a pair of memories)."""
    of = _ZH_OF.match(query)
    lead = _ZH_NOW_LEAD.match(of.group(2)) if of else None
    if of is None or lead is None or lead.group(1)[0] in _question_words_chars():
        return frozenset(), frozenset()
    told = {t for t in analyzer.terms(of.group(2)[lead.end():]) if len(t) > 1}
    return frozenset(analyzer.terms(lead.group(1))), frozenset(told - _question_words() - change.cue_terms("zh"))


@functools.lru_cache(maxsize=1)
def _question_words_chars() -> frozenset[str]:
    return frozenset(w[0] for w in _question_words() if not w.isascii())
