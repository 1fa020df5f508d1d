"""A change of a value, read only where the words say it: a statement that names the value it replaces.

"switched the booking app from Heroku to Fly", "Fly instead of Heroku", "no longer at Kestrel", "it's Thursday,
not Tuesday", "从 MySQL 换成 Postgres", "不再用 Kafka": the cue names the old value, so the memory it replaces is
one that states that value, about the same thing (it shares a word of the clause besides the two values), said
earlier, and not naming the new value itself. Anything less explicit ("the standup is at 10 now") changes
nothing here: the words alone cannot say which memory it replaces, so it is left as said (right or silent).

The cues are data, one file per language (tiers/knowledge/lang/*.json). A turn's speaker label ("Lena: …") is
cut before reading: a speaker is never the subject of what they say. One grammar for store, maintain and
retrieve: truth.place and maintain.derive both call `replaced`.
"""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Sequence

from memoryd.tiers.distillation.rxgate import Gated
from memoryd.tiers.knowledge.change_value import has as _has
from memoryd.tiers.knowledge.lang_words import LANGUAGES, lang_data
from memoryd.tiers.retrieval import analyzer

THING_WORDS = 4
_SPEAKER = re.compile(r"^\s*(?:[-*]\s+)?[^\s:：]{1,24}(?:\s[^\s:：]{1,24})?\s*[:：]\s+(?=\S)")
_LABEL = re.compile(r"^[WBOS](?:\([^)]*\))?\s+(?:@[\w.\-]+[:：]?\s*)*")
_ABOUT = re.compile(r"^(?:[WBOS](?:\([^)]*\))?\s+)?@([^:：]{1,60})[:：]")  # the entity a memory is kept under
# a full stop ends a clause before a space or the end only: `Fly.io`, `4.5`, `v2.1` are one value
_CLAUSE = re.compile(r"(?<=[.!?;])(?=\s|$)\s*|(?<=[。！？；])\s*|\s+(?:but|and then|so now)\s+|\n")
_DISTINCT = re.compile(r"[A-Z0-9\u3400-\u9fff._\-/@#:]")
_QUESTION = re.compile(r"[?？]\s*$")
_NEGATED = re.compile(r"(?i)\b(?:not|never|no)\b|n[’']t\b|不|没")
_DAY_PART = re.compile(r"(?i)(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?|"
                       r"(?:mon|tues|wednes|thurs|fri|satur|sun)day")
# a space between two Han characters is a break: Chinese typed fast or by voice leaves out the commas; a decimal
# point (`31.5元`) is none
_PARTS = re.compile(r"(?:\.(?!\d)|[;!?。；！？])\s*|,\s+(?:and\s+)?|，|、|\s+and\s+|(?<=[\u3400-\u9fff])\s+(?=[\u3400-\u9fff])")
_VALUE = re.compile(r"\d|\b[A-Z][\w\-]+\b(?<!^I)|[\u3400-\u9fff]{2,}")


@dataclass(frozen=True)
class Cue:
    """One clause naming a value it replaces: the old value, the new one (when said), the clause's other terms."""

    old: str
    new: str
    anchors: frozenset[str]
    clause: str
    thing: frozenset[str] = frozenset()   # the words naming what changed, just before the cue ("the garage code")
    rule: str = ""                         # which pattern read it: "<lang>:<id>" (tiers/knowledge/lang/*.json)
    act: bool = True                       # the rule supersedes by itself; else the pair becomes a review question

    def olds(self) -> list[tuple[str, frozenset[str]]]:
        """The old value as said, then its shorter tails that are still precise ("garage door's Somfy hub" →
        "Somfy hub"), each with the anchors it leaves (the words cut off say which thing it is about)."""
        out = [(self.old, self.anchors)]
        words = self.old.split()
        for i in range(1, len(words)):
            tail = " ".join(words[i:])
            if distinctive(tail) and not _DAY_PART.fullmatch(tail):  # `26 April` → `April`: any day of a month
                out.append((tail, self.anchors | frozenset(analyzer.terms(" ".join(words[:i])))))
        return out


@dataclass(frozen=True)
class _Rule:
    id: str
    act: bool                                # supersedes by itself; else it only asks (a review question)
    pattern: re.Pattern[str]
    new_whole: bool = False                  # its new value is a name said before the cue, kept whole


@dataclass(frozen=True)
class _Lang:
    patterns: tuple[_Rule, ...]              # need a change word in the clause
    alone: tuple[_Rule, ...]                 # enough by themselves
    change_words: frozenset[str]
    filler: frozenset[str]
    trigger: re.Pattern[str]                 # one of these in a clause before any pattern is tried
    vague: frozenset[str]                    # words that name no value ("one thing", "another")
    cue_chars: str                           # Chinese cue characters: a term holding one is no anchor
    trailing: re.Pattern[str]                # words after a value that say when, not what ("… last week")
    trailing_day: re.Pattern[str]            # the day it happened, after a new value said last ("… on 3 May")
    hypothetical: frozenset[str]             # a clause holding one says what a change would do: its cue asks
    wished: re.Pattern[str]                  # a value said after one is what someone wants, not what is
    others: frozenset[str]                   # asked of in the same text: the change said is of a part
    when: re.Pattern[str]                    # words of when before a cue (`11月初`, `last week`): not what changed
    planned_before: re.Pattern[str]          # `you're moving from …`, `要从…`: under way or to come, not done
    planned_after: re.Pattern[str]           # `… is set for <day>`, `…还没决定`: a plan or an offer
    reason: re.Pattern[str]                  # why, before a cue (`X因兼容问题从…`): not what changed
    condition: re.Pattern[str]               # a value said after one is what would hold, not what does (`如果…就`)


@functools.lru_cache(maxsize=None)
def _lang(code: str) -> _Lang:
    data = lang_data(code)
    value = data["value"]

    def compile_all(key: str) -> tuple[_Rule, ...]:
        return tuple(_Rule(f"{code}:{p['id']}", bool(p["act"]),
                           re.compile(p["re"].replace("{V}", value).replace("{N}", data["tail"])
                                      .replace("{W}", data.get("word", "")), re.IGNORECASE),
                           bool(p.get("new_whole")))
                     for p in data[key])
    trigger = _triggers(data["triggers"])
    return _Lang(compile_all("patterns"), compile_all("patterns_alone"), frozenset(data["change_words"]),
                 frozenset(w.casefold() for w in data["filler_words"]), trigger,
                 frozenset(data.get("vague", ())), data.get("cue_chars", ""),
                 re.compile(data.get("trailing", "(?!)"), re.IGNORECASE),
                 re.compile(data.get("trailing_day", "(?!)"), re.IGNORECASE),
                 frozenset(w.casefold() for w in data.get("hypothetical", ())),
                 re.compile(data.get("wished", "(?!)"), re.IGNORECASE),
                 frozenset(w.casefold() for w in data.get("others", ())),
                 re.compile(data.get("when", "(?!)"), re.IGNORECASE),
                 re.compile(data.get("planned_before", "(?!)"), re.IGNORECASE),
                 re.compile(data.get("planned_after", "(?!)"), re.IGNORECASE),
                 re.compile(data.get("reason", "(?!)"), re.IGNORECASE),
                 re.compile(data.get("condition", "(?!)"), re.IGNORECASE))


def spoken(text: str) -> str:
    """The words of a memory without its speaker's label or a Retain line's label: what it says, not who."""
    return _SPEAKER.sub("", _LABEL.sub("", text.strip()), count=1)


def _trim(phrase: str, filler: frozenset[str]) -> str:
    words = phrase.strip(" '\"“”‘’").split()
    while words and words[0].casefold() in filler:
        words.pop(0)
    while words and words[-1].casefold() in filler:
        words.pop()
    out = " ".join(words)
    for f in sorted((f for f in filler if not f.isascii()), key=len, reverse=True):
        out = out.removeprefix(f).removesuffix(f)
    return out.strip()


def distinctive(value: str, vague: frozenset[str] = frozenset()) -> bool:
    """A value precise enough to find the memory it replaces: a name, a code, a number, Chinese words, or words
    none of which is vague ("Postgres 16", "Fly.io", "江汉路", "oat milk"; not "one thing", not "another")."""
    if not value or len(value) > 60 or value.casefold() in vague:
        return False
    if _DISTINCT.search(value):
        return not any(v in value for v in vague if not v.isascii())
    words = value.casefold().split()
    return not any(w in vague for w in words) and (len(words) >= 2 or len(value) >= 6)


def _head_new(new: str, old: str) -> str:
    """A new value said before its cue keeps as many words as the old one ("… is on Thursday, not Tuesday")."""
    words = new.split()
    return " ".join(words[-max(1, len(old.split())):]) if new.isascii() else new


def _lead(new: str, old: str) -> str:
    """A new value's first words, as many as the old value has when that is two or more (`8 March 2027` against
    `14 February`: `8 March`); a name followed by common words, the name; else the whole value (`QuickBooks
    Online …` against `Xero`: one word would find `QuickBooks Desktop`)."""
    words, n = new.split(), len(old.split())
    lead = " ".join(words[:n])
    if new.isascii() and len(words) > n >= 2 and distinctive(lead):
        return lead
    if new.isascii() and len(words) > 1 and _NAMED.fullmatch(words[0].rstrip(",;:")) and not _NAMED.match(words[1]):
        return words[0].rstrip(",;:")  # a name and then common words (`Cytopoint injections`, `Azure in Q4`)
    return new


_NAMED = re.compile(r"[A-Z][\w.\-]*[\w]|\w*\d\w*")


@functools.lru_cache(maxsize=1)
def _any_trigger() -> Gated:
    """Every language's trigger in one regex, gated by the words a match must hold (most texts hold none:
    ~1 µs instead of the alternation's ~10)."""
    # read from the vocabularies, so that a language's rules are compiled only when a text holds one of its triggers
    return Gated(_triggers([t for code in LANGUAGES for t in lang_data(code)["triggers"]]))


def _triggers(words: Iterable[str]) -> re.Pattern[str]:
    return re.compile("|".join(map(re.escape, words)), re.IGNORECASE)


@functools.lru_cache(maxsize=16384)
def cues(text: str) -> tuple[Cue, ...]:
    """Every clause of `text` that names a value it replaces."""
    if not _any_trigger().search(text):
        return ()
    out: list[Cue] = []
    clauses = [c.strip() for c in _CLAUSE.split(spoken(text)) if c and c.strip()]
    part = _asks_of_others(clauses)
    for clause in clauses:
        if _QUESTION.search(clause):
            continue  # "did you switch from X to Y?" asks; it tells nothing
        words = _words(clause)
        for code in LANGUAGES:
            lang = _lang(code)
            if not lang.trigger.search(clause):
                continue
            found = [(r, m) for r in lang.alone for m in r.pattern.finditer(clause)]
            if words & lang.change_words:
                found += [(r, m) for r in lang.patterns for m in r.pattern.finditer(clause)]
            for rule, m in found:
                old = _trim(lang.trailing.sub("", m.group("old")), lang.filler)
                new = _trim(lang.trailing.sub("", m.groupdict().get("new") or ""), lang.filler)
                if new and m.start("new") < m.start("old") and not rule.new_whole:
                    new = _head_new(new, old)
                elif new:
                    new = lang.trailing_day.sub("", new) or new
                if not distinctive(old, lang.vague) or old.casefold() == new.casefold():
                    continue
                rest = clause[:m.start("old")] + " " + clause[m.end("old"):]
                if new:
                    rest = rest.replace(new, " ")
                anchors = {t for t in analyzer.terms(rest) if not _cue_term(t, lang)}
                values = set(analyzer.terms(old + " " + new))
                named = m.groupdict().get("thing")  # `<new> replaced <old> as <role>`: the role, said after
                head = named.split()[-1] if named else \
                    lang.when.sub(" ", lang.reason.sub(" ", _thing_before(clause[:m.start()], lang)))
                thing = frozenset(t for t in analyzer.terms(head)
                                  if not _cue_term(t, lang)) - cue_terms(code) - values
                # no new value: it may not say what it became; what would be or is wanted (`he wants to …`): not done
                told = not _hypothetical(clause, words, lang) and not lang.planned_after.search(clause[m.start():]) \
                    and not any(r.search(clause[:m.start()]) for r in (lang.wished, lang.planned_before))  # or a plan
                out.append(Cue(old, new, frozenset(anchors - cue_terms(code) - values), clause, thing, rule.id,
                               rule.act and bool(new) and told and not part))
    return tuple(out)


def _says_any(clause: str, words: set[str], vocab: frozenset[str]) -> bool:
    """The clause holds one of `vocab`: English words whole (`words`, the clause's), Chinese ones anywhere."""
    return bool(words & vocab) or any(v in clause for v in vocab if not v.isascii())


def _hypothetical(clause: str, words: set[str], lang: _Lang) -> bool:
    """The clause says what would happen (`… and it would clash with …`, 如果…的话)."""
    return _says_any(clause, words, lang.hypothetical)


def _asks_of_others(clauses: list[str]) -> bool:
    """A question of the text asks whether the others change too (`其他品也一起换吗？`): the change it says is of a
    part, and which part a rule cannot tell."""
    return any(_says_any(c, _words(c), _lang(code).others) for c in clauses if _QUESTION.search(c) for code in LANGUAGES)


def _words(clause: str) -> set[str]:
    return {w.casefold() for w in re.findall(r"[A-Za-z']+", clause)}


def _conditioned(sentence: str, old: str) -> bool:
    """The value said as what follows from a condition (`if they pay <price>, two`, `要是…就订<old>`): what would hold;
    one named inside the condition (`要是<supplier>再涨价…`) is what holds now."""
    at = sentence.casefold().find(old.casefold())
    return at > 0 and any(_lang(code).condition.search(sentence, 0, at) for code in LANGUAGES)


def _wished(said: str, old: str) -> bool:
    """The sentence saying `old` says it as what someone wants or asks for (`she wants to move me to Thursdays`)."""
    for sentence in _CLAUSE.split(said):
        if sentence and _has(sentence, old):
            head = sentence[:sentence.casefold().find(old.split()[0].casefold())]
            return any(_lang(code).wished.search(head) for code in LANGUAGES)
    return False


def _thing_before(head: str, lang: _Lang) -> str:
    """The words between the last change word (or a comma) and the cue: what the clause says changed ("we moved
    the office from …" → "the office"; "Selim no longer …" → "Selim"); at most THING_WORDS words."""
    head = re.split(r"[,，、:：]", head)[-1]
    words = head.split()
    for i in range(len(words) - 1, -1, -1):
        if words[i].casefold().strip("'\"") in lang.change_words:
            # "the office" in "we moved the office from …"; the subject in "the Skerrin refit moved from …"
            words = words[i + 1:] or words[:i]
            break
    return " ".join(words[-THING_WORDS:])


def _cue_term(term: str, lang: _Lang) -> bool:
    """A Chinese term too short or made of the cue's own characters to say what the clause is about."""
    if term.isascii():
        return False
    return len(term) < 2 or any(ch in lang.cue_chars for ch in term)


@functools.lru_cache(maxsize=None)
def cue_terms(code: str) -> frozenset[str]:
    """The terms of a language's change words and filler: words of changing, not of what changed."""
    lang = _lang(code)
    extra = "instead longer anymore replace swap trade actual correct sorry wait mean leave left".split()
    return frozenset(t for w in (*lang.change_words, *lang.filler, *extra) for t in analyzer.terms(w))


WHOLE, PART = "whole", "part"


@functools.lru_cache(maxsize=65536)
def states(memory_text: str, cue: Cue) -> str | None:
    """Whether a memory states the value `cue` replaces, about the same thing: it names the old value, not the
    new one nor as a value it says itself was replaced, shares a word of the cue's clause besides the values, and
    asks nothing. PART when it also states something else in another clause (a name, a number, a code): that other
    fact stays current, so the memory is updated in part; WHOLE otherwise; None when it does not state the old value."""
    said = _ASKED.sub(" ", spoken(memory_text)).strip()  # what it asks states nothing (`X moved to Y. Is it for
    # good?` states Y); a memory that only asks states nothing at all
    history = tuple(own.old for own in cues(memory_text))  # the values the memory says itself were replaced
    now_said = _without(said, history)  # `from <new> to <old>`: the new value is history there, no restatement
    if not said or (cue.new and (_has(now_said, cue.new) or _has(now_said, _lead(cue.new, cue.old))
                                               or _names_new(said, cue, history))):
        return None  # it states the new value already (`… to 8 March` before `… to 8 March 2027`): a restatement
    terms = set(analyzer.terms(said))
    if not _names_thing(cue.thing, said, terms | about(memory_text)):
        return None  # "the garage code" changed: "the bike lock code is 4417" is another thing
    old = _stated_old(said, terms, cue)
    if old is None or any(_has(gone, old) for gone in history):
        return None  # it says itself that the old value was replaced (`now on AWS, no longer on Hetzner`): history
    clause = next((c for c in _PARTS.split(said) if _has(c, old)), "")
    sentence = _sentence_of(said, old)
    if not _names_thing(cue.thing, sentence, set(analyzer.terms(sentence)) | about(memory_text)):
        return None  # `thinking about the reunion. we go to my aunt in <old>`: thing and value, two sentences
    if len(cue.thing) == 1 and not any(t.isascii() for t in cue.thing) and not _names_thing(cue.thing, clause):
        return None  # a one-word thing (a name): `A继续住<old>，帮<name>搬完家` names it, but not with the old value
    if _NEGATED.search(clause) or _without_thing(clause, cue):
        return None  # `monthly releases aren't happening`, `a Monday without standup`: it denies the value
    if _wished(said, old) or _conditioned(sentence, old):
        return None  # `she wants to move me to Thursdays`, `if they pay <price>, we take two`: no value it states
    others = [c for c in _PARTS.split(said) if c.strip() and not _has(c, old)]
    return PART if any(_VALUE.search(c) for c in others) or _more_in_clause(said, old, cue) else WHOLE


_ASKED = re.compile(r"[^.!?。！？]*[?？][\s?？]*")  # a sentence ending in a question mark


def _sentence_of(said: str, value: str) -> str:
    return next((s for s in _SENTENCES.split(said) if _has(s, value)), said)


_SENTENCES = re.compile(r"(?<=[.!?])\s+|(?<=[。！？；])|\n")


def label(memory_text: str) -> str:
    """The entity a memory is kept under (`@Tollbridge: …`), case-folded; "" when none (a speaker's name is none)."""
    found = _ABOUT.match(memory_text.strip())
    return found.group(1).strip().casefold() if found else ""


def about(memory_text: str) -> set[str]:
    return set(analyzer.terms(label(memory_text)))  # the terms of the entity it is kept under: what it speaks of


def names_thing(thing: frozenset[str], text: str) -> bool:
    return _names_thing(thing, text)


def _names_thing(thing: frozenset[str], text: str, terms: set[str] | None = None) -> bool:
    """`text` names the changed thing, also with a 的 between its words (`X直播间` is `X的直播间`)."""
    return _same_thing(thing, set(analyzer.terms(text)) if terms is None else terms) or \
        ("的" in text and _same_thing(thing, set(analyzer.terms(text.replace("的", "")))))


def _same_thing(thing: frozenset[str], terms: set[str]) -> bool:
    """The memory names the changed thing: every term of it, or, for a Chinese thing of three characters or more, all
    but its last pair (`公休日`, a day off, said as `公休`: the same word without its last character)."""
    missing = thing - terms
    if not missing:
        return True
    said = thing - missing
    return len(missing) == 1 and bool(said) and all(not t.isascii() and len(t) == 2 for t in thing) and \
        any(p[-1] == m[0] for m in missing for p in said) and not any(m[-1] == p[0] for m in missing for p in said)


def _without_thing(clause: str, cue: Cue) -> bool:
    """The clause says the changed thing is absent (`without standup`): not the thing's value, the day without it."""
    return any(set(analyzer.terms(m.group(1))) & (cue.thing | cue.anchors) for m in _WITHOUT.finditer(clause))


_WITHOUT = re.compile(r"(?i)\bwithout\s+(?:(?:the|a|an|any|our|my|your|their)\s+)?([\w][\w'’-]*)")


def _names_new(said: str, cue: Cue, history: tuple[str, ...]) -> bool:
    """The memory tells of the change itself, in its own words: it has a change word and names what the new value
    names and the old one does not (`moved today, out of the old hall and now in the hostel at <new>` before
    `moved from <old> into a private hostel in <new>`). A name alone is not enough: a memory weighing the new
    value (`on <new> you'd write …`) still states the old one."""
    if not any(_says_any(said, _words(said), _lang(code).change_words) for code in LANGUAGES):
        return False
    # not a name of the old value, nor of a value the memory says itself was replaced (`from <new's name> Desktop`)
    gone = {w.casefold() for v in (cue.old, *history) for w in v.split()}
    names = [w for w in _NAME.findall(cue.new) if w.casefold() not in gone]
    return any(_has(c, w) and not any(_hypothetical(c, _words(c), _lang(code)) for code in LANGUAGES)
               for c in _CLAUSE.split(said) if c for w in names)  # `if she moves it would be <new>`: no change told


_NAME = re.compile(r"(?<![\w.\-])[A-Z][\w\-]{2,}")  # a capitalised name of three letters or more, not a number


def _without(said: str, values: tuple[str, ...]) -> str:
    """The memory's words less `values` (those it says itself were replaced)."""
    for v in values:
        said = re.sub(re.escape(v), " ", said, flags=re.IGNORECASE)
    return said


def _stated_old(said: str, terms: set[str], cue: Cue) -> str | None:
    """The form of the cue's old value the memory says, beside a word of the cue's clause. A tail's anchors hold the
    words cut off it (`Somfy hub` of `garage door's Somfy hub`: which thing); of an old value that is one name
    (`<Name> Academy`) they are the name itself, so a memory saying that name whole needs an anchor beside it (else
    any line naming the academy would pass)."""
    whole = set(analyzer.terms(cue.old)) if _ONE_NAME.fullmatch(cue.old) and _has(said, cue.old) else set()
    return next((o for o, anchors in cue.olds()
                 if _has(said, o) and anchors & (terms - whole - set(analyzer.terms(o)))), None)


def _more_in_clause(said: str, old: str, cue: Cue) -> bool:
    """The clause stating the old value also states a value the change does not speak of (`an appointment with Dr
    Anne Tolland at KVH on 17 February` when `Dr Tolland's appointment moved to 3 March`: KVH stays true): a number or
    a capitalised name the new clause does not say, other than a value this memory itself says was replaced (`from
    4417 to 6238`: 4417 is history); Han words not so (every one would count): HAN_MORE characters the change does
    not say (`<数量>这批交给<名字>验货`)."""
    clause = next((c for c in _PARTS.split(said) if _has(c, old)), "")
    rest = clause
    for gone in [old] + [c.old for c in cues(clause)]:
        rest = re.sub(re.escape(gone), " ", rest, flags=re.IGNORECASE)
    told = set(analyzer.terms(cue.clause))
    unsaid = {ch for ch in rest if "\u3400" <= ch <= "\u9fff"} - set(cue.clause) - _HAN_LIGHT
    return len(unsaid) >= HAN_MORE or any(not set(analyzer.terms(v.group(0))) <= told
                                          for v in _MORE_VALUE.finditer(rest, 1))


_ONE_NAME = re.compile(r"[A-Z][\w'’&.-]*(?:\s+(?:[A-Z0-9][\w'’&.-]*|of|de|the|and|&))*")  # `Larkspur Hill Academy`
_MORE_VALUE = re.compile(r"\d[\d:.,/-]*|(?<![\w'’])[A-Z][\w\-]+")
HAN_MORE, _HAN_LIGHT = 4, frozenset("的了是在我你他她它们也都就还又很这那个把被给和与跟")  # words of grammar, no fact
Memory = Mapping[str, Any]


def replaced(new: Memory, held: Iterable[Memory], earlier: Any) -> list[tuple[Memory, Cue, str]]:
    """The held memories `new` replaces (WHOLE) or updates in part (PART), with the cue that says so.
    `earlier(a, b)`: a was said before b."""
    found = cues(str(new.get("text", "")))
    if not found:
        return []
    out = []
    for m in held:
        if m.get("id") == new.get("id"):
            continue
        for c in found:
            how = states(str(m.get("text", "")), c)
            if how is not None:
                if earlier(m, new):
                    out.append((m, c, how))
                break
    return out


def cue_part(cue: Cue) -> str:
    """The part of the cue's clause (a clause or a list item, as `states` reads them) that names the old value."""
    return next((p for p in _PARTS.split(cue.clause) if p and _has(p, cue.old)), cue.clause)


def parts(memory_text: str, newer_text: str) -> tuple[str, list[str]] | None:
    """The part of a memory holding the value `newer_text` says was replaced, and its other parts (each a clause
    or a list item, as `states` reads them); None when the newer says no change of a value the memory states."""
    said = spoken(memory_text)
    pieces = [p for p in _PARTS.split(said) if p and p.strip()]
    for c in cues(newer_text):
        old = _stated_old(said, set(analyzer.terms(said)), c) if states(memory_text, c) else None
        changed = next((p for p in pieces if _has(p, old)), None) if old else None
        if changed is not None:
            return changed, [p for p in pieces if p is not changed]
    return None


def lookup_terms(text: str) -> Sequence[str]:
    """Terms to find the memories a text may replace (its cues' old values), or none when it has no cue."""
    return list(dict.fromkeys(t for c in cues(text) for old, _ in c.olds()[-1:] for t in analyzer.terms(old)))


def lookups(text: str) -> list[tuple[list[str], frozenset[str]]]:
    """Per cue: the terms of the value it replaces (a memory stating it holds all of them) and the clause's other
    terms (it holds one of those too)."""
    return [(t, anchors) for c in cues(text) for old, anchors in c.olds()
            if (t := list(dict.fromkeys(analyzer.terms(old)))) and anchors]
