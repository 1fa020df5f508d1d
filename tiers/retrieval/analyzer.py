"""Text → search terms, one analysis for every tier (hot, warm and the local index alike).

Words are NFKC-normalised, case-folded and stripped of diacritics; possessives and one-letter
fragments ("Caroline's" → caroline, "don't" → don) are cut; English stop words are dropped;
Latin words are stemmed with Snowball's English stemmer (PyStemmer: C, ~0.7 µs a word), so
painted/paints/painting all meet at "paint". Scripts written without spaces (Chinese, Japanese,
Korean, Thai) become unigrams and bigrams, so a one- or two-character query finds its word and a
longer one matches by its bigrams.

The local index stores exactly these terms; SIGNATURE names the analysis, and an index built by
another one rebuilds itself (a changed stemmer must not leave stale terms behind).
"""
from __future__ import annotations

import functools
import re
import unicodedata
from typing import Callable

SIGNATURE = "a1/snowball-english/cjk-1-2"
MAX_QUERY_TERMS = 32

STOPWORDS = frozenset(
    "a about above after again against all am an and any are as at be because been before being below between "
    "both but by can could did do does doing down during each few for from further had has have having he her "
    "here hers herself him himself his how i if in into is it its itself just me more most my myself no nor not "
    "now of off on once only or other our ours ourselves out over own same she should so some such than that the "
    "their theirs them themselves then there these they this those through to too under until up very was we "
    "were what when where which while who whom why will with would you your yours yourself yourselves "
    "ll re ve".split())

# Scripts written without spaces between words: Thai/Lao, Hangul, CJK radicals/ideographs, kana, Yi.
_CJK_RANGES = ("\u0e00-\u0eff\u1100-\u11ff\u2e80-\u2fdf\u3005-\u3007\u3021-\u3029\u3031-\u3035"
               "\u3038-\u303c\u3040-\u30ff\u3100-\u318f\u31a0-\u31ff\u3400-\u4dbf\u4e00-\u9fff"
               "\ua000-\ua4cf\uac00-\ud7af\uf900-\ufaff\uff66-\uff9f\U00020000-\U0003134f")
_CJK_RUN = re.compile(f"([{_CJK_RANGES}]+)")
# a word character of a script written with spaces: what bounds a number or code inside Chinese (`DC04冷轧卷` holds
# `DC04`), where `\w` would run on through the Han characters
SPACED_WORD = f"[^\\W{_CJK_RANGES}]"
_WORD = re.compile(r"[^\W_]+", re.UNICODE)
# _WORD's words of an ASCII text without the regex: every byte but a letter or a digit made a space, then split
# (the same words, ~5x faster on a note's line)
_ASCII_NON_WORD = bytes.maketrans(bytes(range(128)), bytes(c if chr(c).isalnum() else 32 for c in range(128)))


@functools.lru_cache(maxsize=1)
def _stemmer() -> Callable[[str], str]:
    import Stemmer  # PyStemmer; loaded on the first analysis only

    return Stemmer.Stemmer("english", 50000).stemWord


@functools.lru_cache(maxsize=65536)
def _latin(word: str) -> str | None:
    """One folded Latin-script word → its term, or None (stop word, one-letter fragment)."""
    if not word.isascii():  # every mark goes, spacing ones too (ᬆ → ᬅ + ᬵ): FTS5's unicode61 splits words at marks
        word = "".join(c for c in unicodedata.normalize("NFKD", word) if not unicodedata.category(c).startswith("M"))
    if word in STOPWORDS or (len(word) == 1 and not word.isdigit()):
        return None
    if word.isdigit() or len(word) <= 2:
        return word
    return _stemmer()(word)


def has_cjk(text: str) -> bool:
    return not text.isascii() and _CJK_RUN.search(text) is not None


def _cjk_terms(run: str) -> list[str]:
    out = list(run)
    out += [run[i:i + 2] for i in range(len(run) - 1)]
    return out


def terms(text: str) -> list[str]:
    """Every term of `text`, repeats kept (term frequency counts them)."""
    if not text:
        return []
    if text.isascii():
        words = text.lower().encode("ascii").translate(_ASCII_NON_WORD).decode("ascii").split()
        return [t for w in words if (t := _latin(w)) is not None]
    folded = unicodedata.normalize("NFKC", text).casefold()
    out: list[str] = []
    for word in _WORD.findall(folded):
        if word.isascii():
            if (t := _latin(word)) is not None:
                out.append(t)
            continue
        for i, part in enumerate(_CJK_RUN.split(word)):  # odd parts are CJK runs
            if i % 2:
                out += _cjk_terms(part)
            elif part and (t := _latin(part)) is not None:
                out.append(t)
    return out


def query_terms(text: str) -> list[str]:
    """The distinct terms of a query, in order (at most MAX_QUERY_TERMS). A Chinese word of asking or of now
    (`而家`, `什么`, `邊個`) parts the query where it stands, as English stop words are dropped: otherwise it and the
    bigrams across it (`嘉欣而家住喺…` → `欣而`, `家住`) find every line that says "now" beside the same name."""
    if has_cjk(text):
        text = _asking_words().sub(" ", text)
    return list(dict.fromkeys(terms(text)))[:MAX_QUERY_TERMS]


@functools.lru_cache(maxsize=1)
def _asking_words() -> re.Pattern[str]:
    from memoryd.tiers.retrieval.answer_shape import lang_data  # the retrieval vocabularies' one reader

    return re.compile("|".join(map(re.escape, sorted(lang_data("question_words")["zh_query"], key=len, reverse=True))))


COMMON_SHARE, COMMON_MIN = 0.02, 1000  # a unigram in more than 2 % of the rows (and 1,000) is common
POSTINGS_BUDGET = 50_000  # rows a CJK query's candidate search may score: its cost is about 1 µs each


def probe_terms(query: list[str], df: dict[str, int], docs: int) -> list[str]:
    """The terms that look for candidates in the local index: the query's terms less the common CJK
    unigrams that one of its bigrams holds (的, 了, 是 …). Such a character adds little the bigram does
    not say, yet it sits in a large share of the rows, and scoring every row that holds it was the
    slow tail of Chinese search (as Lucene's CJK bigrams, which drop covered unigrams).

    Left out: every covered unigram in more than COMMON_SHARE of the rows; then, while the terms
    left would still score more than POSTINGS_BUDGET rows, the most common covered unigram (above
    COMMON_MIN). So a query stays exact until it would get slow, and then gives up the characters
    that say least. Candidates are still ranked on every query term."""
    covered = sorted({ch for t in query if len(t) == 2 and has_cjk(t) for ch in t if df.get(ch, 0) > COMMON_MIN},
                     key=lambda ch: -df.get(ch, 0))
    postings = sum(df.get(t, 0) for t in query)
    left_out = set()
    for ch in covered:
        if df[ch] <= docs * COMMON_SHARE and postings <= POSTINGS_BUDGET:
            break
        left_out.add(ch)
        postings -= df[ch]
    kept = [t for t in query if t not in left_out]
    return kept or query


def document(text: str, category: str = "") -> list[str]:
    """The terms a memory is indexed by: its text and its category's words."""
    return list(_document(text, category))


def document_terms(text: str, category: str = "") -> tuple[str, ...]:
    """document()'s terms as the shared tuple (no copy: a retrieve reads them for every warm and hot memory)."""
    return _document(text, category)


@functools.lru_cache(maxsize=4096)  # warm and hot are analysed on every retrieve: a long-lived process keeps them
def _document(text: str, category: str) -> tuple[str, ...]:
    return tuple(terms(f"{text} {category.replace('/', ' ')}" if category else text))
