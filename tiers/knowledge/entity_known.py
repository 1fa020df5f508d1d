"""Organisations the world knows (`OCBC`, `Vercel`, `阿里云`), named without a cue word: a bank, a cloud, a shop or
a public agency a person deals with is one of their organisations wherever they write its name. The names are
data (`known_orgs` in lang/entities_<lang>.json; the Chinese ones read in simplified characters, so `麥當勞` is
found as written); those that are common words too (`Render`, `Wise`, `Apple`) count only capitalised in
mid-sentence, and a name followed by a capitalised word is a product of theirs (`Google Drive`, `GitHub Actions`),
no organisation.
"""
from __future__ import annotations

import re
from functools import lru_cache
from typing import Callable

from memoryd.tiers.knowledge.entity_people import sentence_start
from memoryd.tiers.knowledge.entity_vocab import alternation, english, vocabulary
from memoryd.tiers.knowledge.han_script import simplified


@lru_cache(maxsize=1)
def _known() -> tuple[re.Pattern[str], frozenset[str], re.Pattern[str]]:
    en, zh = vocabulary("en"), vocabulary("zh")
    # the names' first characters first: most positions of a text start no name and fail there at once
    latin = re.compile(rf"(?<![\w@/.&'-])(?=[{_firsts(en['known_orgs'])}])({alternation(en['known_orgs'])})"
                       rf"(?![\w&-]|\.[a-z])")
    han = re.compile(f"(?=[{_firsts(zh['known_orgs'])}])({alternation(zh['known_orgs'])})")
    return latin, frozenset(en["known_orgs_ambiguous"]), han


_NEXT_CAP = re.compile(r"\s+([A-Z][a-z][\w'-]*)")


def _firsts(names: list[str]) -> str:
    return re.escape("".join(sorted({n[0] for n in names})))


def known_orgs(text: str, add: Callable[[str, str], None]) -> None:
    latin, ambiguous, han = _known()
    for m in latin.finditer(text):
        after = _NEXT_CAP.match(text, m.end())
        if after and after.group(1) not in english().business_words:
            continue  # `Google Drive`, `GitHub Actions`: a product of theirs (`OCBC Bank` is the bank)
        if m.group(1) not in ambiguous or not sentence_start(text, m.start(1)):
            add("org", m.group(1))
    if not text.isascii():
        for m in han.finditer(simplified(text)):  # `麥當勞` read as `麦当劳`, named as written (one place per character)
            add("org", text[m.start(1):m.end(1)])
