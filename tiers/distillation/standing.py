"""Whether a preference is a standing one — it holds until said otherwise, the owner profile's to keep — or is
about one moment ("tonight I'd rather order in", "I prefer the second option you gave", "if I had the choice").

Vocabularies as data: tiers/distillation/lang/profile_<lang>.json. Silent by default: a preference without a
standing cue, or with an occasion, a hypothetical or a past habit in its sentence, stays in warm only.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

from memoryd.tiers.distillation.rxgate import Gated, Scan

_LANGS = ("en", "zh")
_LATIN_WORD = re.compile(r"[A-Za-z][A-Za-z'-]{2,}")
_CJK = re.compile(r"[\u4e00-\u9fff]")


@dataclass(frozen=True)
class _Rules:
    cues: re.Pattern[str]      # the preference holds in general
    moment: re.Pattern[str]    # an occasion, a hypothetical, a past habit, another's word: it does not
    empty: frozenset[str]      # words after a cue that say nothing to keep ("I'd rather not")
    lead: tuple[str, ...]      # words opening an instruction that say nothing of it ("thanks, please", 你帮我记)


def _either(fragments: list[str]) -> re.Pattern[str]:
    return re.compile("|".join(f"(?:{f})" for f in fragments) or r"(?!)", re.IGNORECASE)


def lang_data(name: str) -> dict:
    """One file of the distillation rules' language data (tiers/distillation/lang/<name>.json)."""
    text = resources.files("memoryd.tiers.distillation").joinpath(f"lang/{name}.json").read_text("utf-8")
    return dict(json.loads(text))


@lru_cache(maxsize=1)
def _rules() -> _Rules:
    merged: dict[str, list[str]] = {}
    for code in _LANGS:
        for part, values in lang_data(f"profile_{code}").items():
            if not part.startswith("_"):
                merged.setdefault(part, []).extend(values)
    return _Rules(_either(merged["cues"]), _either(merged["occasion"] + merged["hypothetical"] + merged["past"]
                                                   + merged["reported"]),
                  frozenset(merged["empty_after_cue"]), tuple(merged["key_lead"]))


@lru_cache(maxsize=1)
def _lead() -> re.Pattern[str]:
    words = sorted(_rules().lead, key=len, reverse=True)
    alternation = "|".join(re.escape(w) + (r"(?![A-Za-z])" if w.isascii() else "") for w in words)
    return re.compile(r"^(?:[\s,.;:!，。；：！]*(?:" + alternation + "))+", re.IGNORECASE)


def without_lead(sentence: str) -> str:
    """The sentence without who says it and the words that open it and say nothing of what is asked (`Lena: `,
    `Thanks. and please`, `你帮我记：`, `以后帮我`): what a profile label is made from."""
    return _lead().sub("", _SPEAKER.sub("", sentence.strip(), count=1)).lstrip(" ,.;:!，。；：！")


# who says a chat line (`何佳：`, `Lena: `): no word of what is preferred (a label's words hold no digit: `10:30`)
_SPEAKER = re.compile(r"^\s*[^\s:：\d]{1,24}(?:\s[^\s:：\d]{1,24})?\s*(?::\s+|：\s*)")


@lru_cache(maxsize=1)
def cue_gate() -> Gated:
    """The cues behind their needles: classify() checks them in the rules' one pass over a sentence (most
    sentences hold no cue word, and the regex would cost as much as every kind rule together)."""
    return Gated(_rules().cues)


def says_standing(sentence: str, scan: Scan | None = None) -> bool:
    """Whether the sentence has a standing cue at all (a preference the kind rules' words may not name);
    `scan`: the rules' pass over this sentence (fact_rules.scan), when the caller has it."""
    return (scan.search(cue_gate()) if scan is not None else cue_gate().search(sentence.strip())) is not None


def standing(sentence: str) -> bool:
    """A standing preference with something to keep: a cue, no occasion / hypothetical / past habit, and words
    after the cue that say what is preferred ("honestly I'd rather not" says nothing to keep)."""
    rules, text = _rules(), sentence.strip()
    cue = rules.cues.search(text)
    if cue is None or rules.moment.search(text):
        return False
    rest = text[cue.end():]
    return any(w.lower() not in rules.empty for w in _LATIN_WORD.findall(rest)) or bool(_CJK.search(rest))
