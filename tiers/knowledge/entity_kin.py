"""The owner's family, named the way they speak of them: `my dad`, `Mum`, `我妈`, `老婆`.

A parent the owner only ever calls "Mum" is still one of the people who matter most, so each such form is a
person; every form of one relation (`my dad`, `Dad`, `我爸`, `老爸`) folds into one entity when listed
(entity_fold.py). Only the owner's own family: `your mum`, `his dad`, `a mother` name no one of theirs.
The forms are data (`kin` in lang/entities_<lang>.json).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Iterable

from memoryd.tiers.knowledge.entity_vocab import alternation, vocabulary

_HAN = "\u4e00-\u9fff"
_MY = ("我", "俺", "孩")  # 俺: the northern 我; 孩他妈: the child's mother, how a parent speaks of their spouse


@dataclass(frozen=True)
class _Kin:
    relation: dict[str, str]  # a form as listed (`my dad`, `dad`, `我爸`) → its relation
    mine: re.Pattern[str]  # `my (late) dad`
    alone: re.Pattern[str]  # `Mum`, `Dad` as a name
    before: re.Pattern[str]  # `your `, `his `, `Kate's `: someone else's
    han: re.Pattern[str]
    honorific: re.Pattern[str]  # ` ji` after `Papa`: part of how the person is named


@lru_cache(maxsize=1)
def _kin() -> _Kin:
    en, zh = vocabulary("en"), vocabulary("zh")
    relation: dict[str, str] = {}
    for rel, words in en["kin"].items():
        relation.update({f"my {w}": rel for w in words})
        relation.update({w.casefold(): rel for w in en["kin_alone"] if w.casefold() in words})
    for rel, forms in zh["kin"].items():
        relation.update({f: rel for f in forms})
    words = alternation([w for ws in en["kin"].values() for w in ws])
    zh_forms = [f for fs in zh["kin"].values() for f in fs]
    return _Kin(
        relation,
        re.compile(rf"\b[Mm]y\s+(?:(?:late|old|little|big|baby|younger|older|elder|eldest|youngest)\s+)?"
                   # `my brother Fiachra`, `my cousin 翁…`: the name is the person
                   rf"({words})\b(?!-|,?\s+[A-Z][a-z]|,?\s*[{_HAN}])"),
        re.compile(rf"(?<![\w'’-])(?=[{''.join(sorted({w[0] for w in en['kin_alone']}))}])"
                   rf"({alternation(en['kin_alone'])})\b(?!-\w|\s+[A-Z])"),
        re.compile(rf"(?:\b(?:{alternation(en['kin_before'])})|['’]s)\s+$", re.IGNORECASE),
        # a form that starts with 我 (俺, 孩他妈 …: _MY) is the owner's wherever it stands; the others only as a
        # word of their own
        re.compile(f"(?=[{''.join(sorted({f[0] for f in zh_forms}))}])"
                   f"((?:{alternation([f for f in zh_forms if f.startswith(_MY)])})|"
                   f"(?<![{_HAN}])(?:{alternation([f for f in zh_forms if not f.startswith(_MY)])}))"
                   f"(?![{''.join(zh['kin_not_after'])}])"),
        re.compile(rf"\s+(?:{alternation(en['kin_honorifics'])})\b"))


def relation_of(name: str) -> str | None:
    """The relation a kin form names (`my dad`, `Dad`, `Papa ji`, `我爸` → `dad`); None for a name."""
    kin = _kin()
    return kin.relation.get(kin.honorific.sub("", name).casefold())


def kin_people(text: str) -> Iterable[str]:
    """The owner's family named in `text`, each as written (`my mum`, `Dad`, `我妈`)."""
    kin = _kin()
    if "my " in text or "My " in text:
        yield from (f"my {m.group(1).casefold()}" for m in kin.mine.finditer(text))
    for m in kin.alone.finditer(text):
        if not kin.before.search(text[max(0, m.start() - 12):m.start()]):
            honorific = kin.honorific.match(text, m.end())
            yield m.group(1) + honorific.group(0) if honorific else m.group(1)
    if not text.isascii():
        yield from (m.group(1) for m in kin.han.finditer(text))
