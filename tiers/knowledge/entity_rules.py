"""Entities named in a memory: people, projects, organisations, places and repos (English and Chinese).

Precision before recall: each kind needs the way people write it (tiers/knowledge/entity_people.py,
entity_things.py), never just a capital letter at the start of a sentence. A Retain line's `@tags`
(metadata.entities) are taken as given. Dates, amounts, versions and URLs are values, not entities: the
filters `--since/--until/--url` and the words find them, and a page about `$40` helps no one.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Mapping

from memoryd.tiers.knowledge.entity_kin import kin_people
from memoryd.tiers.knowledge.entity_known import known_orgs
from memoryd.tiers.knowledge.entity_names import KIND_WORDS, light, norm
from memoryd.tiers.knowledge.entity_people import (LOW, WORD, account_handle, aka_people, chinese_people,
                                                   english_people, is_business, is_person_name,
                                                   latin_people_in_chinese, person_part)
from memoryd.tiers.knowledge.entity_shops import chinese_firms, chinese_shops
from memoryd.tiers.knowledge.entity_things import orgs_and_places, projects, saints
from memoryd.tiers.knowledge.entity_things_zh import chinese_things
from memoryd.tiers.knowledge.entity_vocab import chinese, english
from memoryd.tiers.knowledge.han_script import as_written, simplified

TYPES = ("person", "project", "org", "place", "repo")
RULES_VERSION = "37"  # bumped when the rules change: every memory is read again


@dataclass(frozen=True)
class Entity:
    type: str
    name: str

    @property
    def key(self) -> str:
        """Stable identity: type and the case-folded name (`person:alice`, `repo:acme/warelay`)."""
        return f"{self.type}:{' '.join(self.name.split()).casefold()}"


_REPO_URL = re.compile(r"(?:https?://)?(?:www\.)?(github\.com|gitlab\.com|codeberg\.org)/([A-Za-z0-9][\w.-]*)/"
                       r"([A-Za-z0-9][\w.-]*)")
_REPO_SAID = re.compile(r"\b(?:repo(?:sitory)?|fork(?:ed)?|clone[ds]?|forked from)\s+(?:of\s+|at\s+)?[`\"']?"
                        r"([A-Za-z0-9][\w.-]*/[A-Za-z0-9][\w.-]*)")
_ZH_SURNAME_START = re.compile("[" + chinese().surnames + "]")


def _strip_repo(name: str) -> str:
    name = name.rstrip(".,;:!?)")
    return name[:-4] if name.endswith(".git") else name


def _tidy(name: str) -> str:
    """One space between words, a word said twice in a row once (`Bob Bob` → `Bob`)."""
    words = name.split()
    return " ".join(w for n, w in enumerate(words) if n == 0 or w.casefold() != words[n - 1].casefold())


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
    Alice Chen, `@priya` for Priya Raghavachari, `@atlas-api` for acme/atlas-api), a name's longer form
    (`Kestrel Cleaning` beside `@kestrel`) and a name given in another script (`张伟 (Zhang Wei)`)."""
    found = dict(_from_text(text))  # a copy: the tags below change it
    aliases: dict[str, set[str]] = {}
    tagged: list[Entity] = []
    tags = [t.strip().lstrip("@").strip() for t in (metadata or {}).get("entities") or [] if isinstance(t, str)]
    tags = [t for t in tags if not account_handle(text, t)]  # `our instagram is @…`: a value, no entity
    for tag in filter(None, tags):  # a Retain line's text starts with its `@tag`: that handle is the tag
        found.pop(Entity("person", tag).key, None)
    tags = [h for h in (_retain_head(t, text) for t in tags if t) if h.casefold() not in KIND_WORDS]
    for tag in filter(None, tags):
        thing = bool(_ARTICLE.match(tag)) and len(tag.split()) > 1  # `@the Velmaro:` names a thing, not a person
        tagged.append(_place_tag(_ARTICLE.sub("", tag, count=1) if thing else tag, text, found, aliases, thing))
    ents = _drop_shadowed(list(dict.fromkeys(tagged + list(found.values()))))
    for e in ents:
        aliases.setdefault(e.key, set()).update(_longer_forms(text, e))
    out = {e.key: tuple(sorted(a for a in aliases.get(e.key, ()) if a and a != light(e.name))) for e in ents}
    return Reading(ents, {k: v for k, v in out.items() if v})


_OTHER_SCRIPT = re.compile(r"\s*[(（](?:[A-Z][A-Za-z .'-]{1,40}|[\u4e00-\u9fff]{2,4})[)）]")


@lru_cache(maxsize=4096)  # one text is read again: an echo read back, a memory met by two refreshes, a rebuild
def _from_text(text: str) -> dict[str, Entity]:
    found: dict[str, Entity] = {}

    def add(kind: str, name: str) -> None:
        name = _tidy(name).strip()
        if name and name.casefold() not in KIND_WORDS:
            ent = Entity(kind, name)
            found.setdefault(ent.key, ent)

    repo_spans: list[tuple[int, int]] = []
    for m in _REPO_URL.finditer(text):
        add("repo", f"{m.group(2)}/{_strip_repo(m.group(3))}")
        repo_spans.append(m.span())
    for m in _REPO_SAID.finditer(text):
        if not any(a <= m.start(1) < b for a, b in repo_spans) and "." not in m.group(1).split("/")[0]:
            add("repo", _strip_repo(m.group(1)))
    known_orgs(text, add)  # before hosts are cut: `Fly.io`
    plain = _URLS.sub(" ", text) if "." in text else text  # a host or a path names no project, person or place
    plain = saints(plain, add)
    projects(plain, add)
    orgs_and_places(plain, add)
    if not plain.isascii() and ("（" in plain or "(" in plain):  # before the brackets are cut, and only with some
        bracketed = simplified(plain)
        for name in aka_people(bracketed):
            add("person", as_written(name, bracketed, plain))
    plain = _OTHER_SCRIPT.sub("", plain)  # "张伟 (Zhang Wei) 说", "Zhang Wei (张伟) said": the name beside its cue
    for raw in english_people(plain):
        name = person_part(raw) if not raw.islower() else raw
        if name:
            add("person", name)
    for name in kin_people(plain):  # `my dad`, `Mum`, `我妈`: the owner's family
        add("person", name)
    if not plain.isascii():
        han = len(re.findall(r"[\u4e00-\u9fff]", plain))
        joined = _HAN_SPACE.sub("", plain)
        read_as = simplified(joined)  # the vocabularies are simplified: `醫院` is read as `医院`, named as written
        # a space between Han characters parts words in a voice-typed or casual line (`护理长是X X 听说…`): people are
        # read with one kept where it stood; things and shops without it (a place's name would start after one)
        spaced = _HAN_SPACE.sub(" ", plain) if len(joined) < len(plain) else joined
        spaced_read = simplified(spaced) if spaced is not joined else read_as
        for name in chinese_people(spaced_read, latin_around=han * 3 < len(plain)):
            add("person", as_written(name, spaced_read, spaced))
        if han:
            for name in latin_people_in_chinese(plain):
                add("person", name)
        chinese_things(read_as, lambda kind, name: add(kind, as_written(name, read_as, joined)))
        chinese_shops(read_as, lambda kind, name: add(kind, as_written(name, read_as, joined)))
        for firm in (as_written(name, read_as, joined) for name in chinese_firms(read_as)):
            # a firm's trade name starts the name: words before it (a verb) are none of it
            for key in [k for k, e in found.items() if e.name.endswith(firm) and e.name != firm]:
                del found[key]
            add("org", firm)
    return found


_HAN_SPACE = re.compile(r"(?<=[\u4e00-\u9fff])\s+(?=[\u4e00-\u9fff])")
_URLS = re.compile(r"(?:https?://|www\.)\S+|\b[\w-]+(?:\.[\w-]+)+(?::\d+)?(?:/\S*)?")


def _place_tag(tag: str, text: str, found: dict[str, Entity], aliases: dict[str, set[str]], thing: bool = False
               ) -> Entity:
    """The entity a Retain `@tag` names: one the text names already when the tag is its name in another
    spelling (recorded as an alias), else a person or a project by the tag's own look."""
    wanted = norm(tag)
    for e in found.values():
        words = norm(e.name).split()
        if len(words) == 1 and e.type == "person":
            continue  # "Kestrel asked" beside @kestrel: the tag's own look decides, the same in every memory
        if (norm(e.name) == wanted or (e.type == "repo" and norm(e.name.split("/")[-1]) == wanted)
                or (e.type in ("person", "project", "org") and wanted.split() == words[:len(wanted.split())])):
            aliases.setdefault(e.key, set()).add(light(tag))
            return e
    spelled = _spelled_in(tag, text)
    if spelled is not None:
        person = len(spelled.split()) >= 2 and is_person_name(spelled) and not is_business(spelled)
        ent = Entity("person" if person else "project", spelled)
        if light(tag) != light(spelled):
            aliases.setdefault(ent.key, set()).add(light(tag))
        return ent
    words = tag.split()
    person = not thing and ((all(map(_name_word, words)) and len(words) <= 3 and is_person_name(tag)
                             and not is_business(tag))
                            or bool(_ZH_WHOLE_NAME.fullmatch(tag)))  # `@Defne Tarımgül`, `@Kwok Siu-ling`: people too
    # `@Verco's Garage:` ends in a company's word: the organisation the text finds under that name, no project
    return Entity("person" if person else "org" if len(words) > 1 and is_business(tag) else "project", tag)


def _name_word(word: str) -> bool:
    """A capitalised word of letters, or one with a lowercase part after a hyphen (`Siu-ling`; not `The-Castle`)."""
    head, hyphen, rest = word.partition("-")
    return head.isalpha() and head[0].isupper() and (not hyphen or (rest.isalpha() and rest.islower()))


_ZH_WHOLE_NAME = re.compile(r"[" + chinese().surnames + r"][\u4e00-\u9fff]{1,2}|[老小][" + chinese().surnames + r"]")
_CAP_WORD = WORD


def _spelled_in(tag: str, text: str) -> str | None:
    """The tag written as a capitalised name of two words or more in the text (`alice-chen` → `Alice Chen`,
    `priya` → `Priya Raghavachari`; not `kestrel` → `Kestrel Cleaning`, a business)."""
    parts = [p for p in re.split(r"[-_\s]+", tag) if p]
    if not parts or not all(p.isascii() and p.isalpha() for p in parts):
        return None
    rx = (r"(?<![\w/-])" if len(parts) > 1 else r"(?<![\w@/-])") + r"[\s-]+".join(re.escape(p) for p in parts) + \
        (r"(?![\w-])" if len(parts) > 1 else r"\s" + _CAP_WORD + r"(?![\w-])")
    for m in re.finditer(rx, text, re.IGNORECASE):
        words = m.group(0).replace("-", " ").split()
        if len(words) >= 2 and all(w[0].isupper() for w in words) and is_person_name(" ".join(words)) \
                and not is_business(words[-1]):
            return " ".join(m.group(0).split())  # as the text writes it (`Odunsi-Quenby` keeps its hyphen)
    return None


_MORE_CAPS = re.compile(r"((?:\s" + WORD + r"){1,2})(?![\w-])")
_BRACKETED = re.compile(r"\s*[(（]([^()（）]{1,40})[)）]")
_BEFORE_BRACKET = re.compile(r"([A-Z][a-z]+(?:\s[A-Z][a-z]+){0,2}|[\u4e00-\u9fff]{2,4})\s*$")


def _longer_forms(text: str, e: Entity) -> set[str]:
    """Other ways this text writes `e`: followed by capitalised words (`Kestrel Cleaning`), or beside a
    name in another script in brackets (`张伟 (Zhang Wei)`, `Zhang Wei（张伟）`). Static patterns tried where
    the name is (str.find): a pattern compiled per name would be compiled again for every memory."""
    out: set[str] = set()
    if e.type not in ("person", "project"):
        return out
    latin = e.name.isascii()
    # an ASCII name found in any case: lower() of the text with every other letter as `?` keeps the offsets
    hay, needle = (text.encode("ascii", "replace").decode().lower(), e.name.lower()) if latin else (text, e.name)
    bracket = "(" in text or "（" in text
    at = hay.find(needle)
    while at >= 0:
        end = at + len(e.name)
        said = text[at:end]
        if at == 0 or not (text[at - 1].isalnum() or text[at - 1] in "_@/-"):
            m = _MORE_CAPS.match(text, end) if latin and said[:1].isupper() else None
            if m and all(w not in english().not_people for w in m.group(1).split()):
                out.add(light(said + " " + " ".join(m.group(1).split())))
            b = _BRACKETED.match(text, end) if bracket and said == e.name else None
            if b and b.group(1).strip().isascii() != latin:
                out.add(light(b.group(1).strip()))
            inside = bracket and said == e.name and at > 0 and text[at - 1] in "(（" and text[end:end + 1] in ")）"
            before = _BEFORE_BRACKET.search(text, 0, at - 1) if inside else None
            if before and before.group(1).isascii() != latin:
                out.add(light(before.group(1)))
        at = hay.find(needle, end)
    return out


def _drop_shadowed(ents: list[Entity]) -> list[Entity]:
    """One name, one kind: a project or repo is not also an organisation, person or place (`with OpenClaw`), an
    organisation not also a person or place (`Acme said`), a person not also a place (`flew to Lisbon with
    Maria` is fine; `talked to Maria` after `with Maria` keeps the person), and a word of a longer name in the
    same memory is that name (`Veldman & Zonen says`: not a person `Zonen`; a rule that reads two words of
    `Harbour Medical Supplies` gives no `Harbour Medical` beside it)."""
    order = {"repo": 0, "project": 0, "org": 1, "person": 2, "place": 3}
    best: dict[str, int] = {}
    for e in ents:
        name = e.name.casefold()
        best[name] = min(best.get(name, 9), order.get(e.type, 9))
    parts = {w for e in ents if e.type in ("person", "org", "place") and len(e.name.split()) > 1
             for w in e.name.casefold().replace("&", " ").split()}
    longer = [f" {e.name.casefold()} " for e in ents if e.type in ("person", "org", "place") and " " in e.name]
    han_orgs = [e.name for e in ents if e.type == "org" and not e.name.isascii()]
    return [e for e in ents if order.get(e.type, 9) <= best[e.name.casefold()] and not (
        e.type == "org" and any(e.name in n and e.name != n for n in han_orgs)) and not (  # 阿里巴巴 of 阿里巴巴集团
        e.type in ("person", "org", "place") and " " not in e.name and e.name.casefold() in parts) and not (
        e.type in ("person", "org", "place") and " " in e.name  # `Carrick Medical` of `Carrick Medical Supplies`
        and any(f" {e.name.casefold()} " in n and n != f" {e.name.casefold()} " for n in longer))]


_NAME_WORD = WORD + rf"(?:-(?:{WORD}|[{LOW}]+))*"  # `Siu-ling`, `Jean-Luc`: one word of a name
# the words up to the colon that ends a Retain line's head: after a capitalised tag, capitalised words only
# (`@Jonas Vogt:`; `@Jonas prefers tea:` is Jonas); after a lowercase one, any words (`@kitchen reno:`); a number
# after a name's word is part of it (`@Local 12 Union:`, `@Bay 4:`)
_RETAIN_HEAD = re.compile(r"\s*@(?:(\S+(?:\s(?:" + _NAME_WORD + rf"(?:['’]s)?|\d{{1,5}}\b)){{0,3}})"
                          rf"|([{LOW}0-9][\w'-]*(?:\s[\w'-]+){{1,3}})):\s")
_ARTICLE = re.compile(r"(?i)the\s+")
_POSSESSIVE = re.compile(r"['’]s$")


def _retain_head(tag: str, text: str) -> str:
    """A Retain line's whole `@tag` (`@Acme Systems: …` gives the tag `Acme`; the line says `Acme Systems`;
    `@Kwok Siu-ling:`, `@second clinic:`, `@the Velmaro:`; `@Verco's Garage:`, whose tag is `Verco`)."""
    m = _RETAIN_HEAD.match(text)
    head = m and (m.group(1) or m.group(2))
    return head if head and _POSSESSIVE.sub("", head.split()[0]) == tag else tag
