"""Safe full-text queries: user text → quoted FTS5 terms, CJK n-grams, and BM25 scoring of candidates.

Nothing the user types reaches FTS5 syntax: each term becomes an FTS5 string ("..." with inner
quotes doubled), so `NEAR(`, `AND`, `*`, `:`, `^` and unbalanced quotes are plain text; the MATCH
string itself is always an SQL parameter.

FTS5's own bm25() computes each term's document frequency by visiting every matching row, which
costs O(matches) for common words. Instead the archive fetches, per term, the newest few matches
and a document frequency counted up to a cap (both cheap), and `bm25()` here scores candidates.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Iterable

MAX_QUERY_CHARS = 1000
MAX_TERMS = 16
SUBSTR_FROM = 3  # the trigram index cannot match shorter strings
K1, B = 1.2, 0.75  # the usual BM25 constants

_WORD = re.compile(r"\w+", re.UNICODE)
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\ud800-\udfff]")
# Words so common they carry no meaning (kept if they are all there is).
STOPWORDS = frozenset(
    "a an and are as at be but by did do does for from had has have how i if in is it its me my of on "
    "or our so that the their them then there these they this to was we were what when where which who "
    "why will with you your".split()
)


# Scripts written without spaces between words: Thai/Lao, Hangul, CJK radicals/ideographs, kana, Yi.
_CJK_RANGES = ("\u0e00-\u0eff\u1100-\u11ff\u2e80-\u2fdf\u3005-\u3007\u3021-\u3029\u3031-\u3035"
               "\u3038-\u303c\u3040-\u30ff\u3100-\u318f\u31a0-\u31ff\u3400-\u4dbf\u4e00-\u9fff"
               "\ua000-\ua4cf\uac00-\ud7af\uf900-\ufaff\uff66-\uff9f\U00020000-\U0003134f")
_CJK_SPLIT = re.compile(f"([{_CJK_RANGES}]+)")


def is_cjk(ch: str) -> bool:
    return bool(_CJK_SPLIT.fullmatch(ch))


def quote(token: str) -> str:
    """An FTS5 string literal: the token is matched as text, never parsed as syntax."""
    return '"' + token.replace('"', '""') + '"'


def _dedupe(items: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(items))


def tokens(text: str) -> tuple[list[str], list[str]]:
    """(Latin-script words, CJK runs) of `text`, split the way unicode61 splits (also on "_")."""
    latin: list[str] = []
    cjk: list[str] = []
    for word in _WORD.findall(text):  # control characters are never \w
        if word.isascii():  # the fast, common case
            latin += filter(None, word.split("_"))
            continue
        for i, part in enumerate(_CJK_SPLIT.split(word)):  # odd parts are CJK runs
            if i % 2:
                cjk.append(part)
            elif part:
                latin += filter(None, part.split("_"))
    return latin, cjk


def cjk_grams(text: str) -> str:
    """Space-separated CJK unigrams and bigrams of `text`, for the word index's `grams` column."""
    if text.isascii():
        return ""
    grams: list[str] = []
    for run in tokens(text)[1]:
        grams += list(run)
        grams += [run[i:i + 2] for i in range(len(run) - 1)]
    return " ".join(_dedupe(grams))


@dataclass(frozen=True)
class Term:
    """One searched term: `src` picks the index (w = words, t = trigram), `needle` is checked in Python."""

    src: str
    match: str  # the quoted FTS5 string
    needle: str  # casefolded
    whole_word: bool


def plan(query: str, partial: bool = False) -> list[Term]:
    """The terms to search for. `partial`: the second pass (Latin words as substrings)."""
    text = _CONTROL.sub(" ", str(query)[:MAX_QUERY_CHARS])
    latin, cjk = tokens(text)
    # Case is left to the tokenizer (it folds query and text alike); dedupe case-insensitively.
    words = list({w.casefold(): w for w in reversed(latin)}.values())[::-1]
    words = [w for w in words if w.casefold() not in STOPWORDS] or words
    if partial:
        return [Term("t", quote(w), w.casefold(), False) for w in words if len(w) >= SUBSTR_FROM][:MAX_TERMS]
    terms = [Term("w", quote(w), w.casefold(), True) for w in words]
    grams: list[str] = []
    for run in _dedupe(cjk):
        if len(run) >= SUBSTR_FROM:
            terms.append(Term("t", quote(run), run.casefold(), False))
            grams += [run[i:i + 2] for i in range(len(run) - 1)]  # partial overlap, via `grams`
        else:
            grams.append(run)  # 1-2 characters: only the `grams` column can answer
    # Chunks with punctuation ("it's", "v1.2", "100%") as literal substrings.
    for chunk in text.split():
        if len(chunk) >= SUBSTR_FROM and not _WORD.fullmatch(chunk) and _WORD.search(chunk):
            terms.append(Term("t", quote(chunk), chunk.casefold(), False))
    terms += [Term("w", quote(g), g.casefold(), False) for g in _dedupe(grams)]
    return list(dict.fromkeys(terms))[:MAX_TERMS]


def idf(df: int, n: int) -> float:
    return math.log(1 + (n - df + 0.5) / (df + 0.5))


def term_frequency(term: Term, words: list[str], folded: str) -> int:
    return words.count(term.needle) if term.whole_word else folded.count(term.needle)


def bm25(docs: dict[str, str], hits: dict[str, set[int]], terms: list[Term], dfs: list[int],
         n_docs: int) -> dict[str, float]:
    """BM25 of each candidate doc, normalised to 0..1 by the score of a doc holding every term once.

    `hits[doc]` = indexes of the terms whose index lookup returned the doc (trusted even when the
    Python check disagrees, e.g. after diacritic folding).
    """
    if not docs or not terms:
        return {}
    weights = [idf(df, max(n_docs, df)) for df in dfs]
    parsed = {}
    for doc_id, text in docs.items():
        folded = text.casefold()
        latin, cjk = tokens(folded)
        parsed[doc_id] = (latin, folded, len(latin) + sum(len(r) for r in cjk))
    avg = max(1.0, sum(p[2] for p in parsed.values()) / len(parsed))
    full = sum(weights) or 1.0
    out = {}
    for doc_id, (latin, folded, length) in parsed.items():
        norm = K1 * (1 - B + B * length / avg)
        score = 0.0
        for i, term in enumerate(terms):
            tf = term_frequency(term, latin, folded) or (1 if i in hits.get(doc_id, ()) else 0)
            if tf:
                score += weights[i] * tf * (K1 + 1) / (tf + norm)
        out[doc_id] = min(1.0, score / full)
    return out
