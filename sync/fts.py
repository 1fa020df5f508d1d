"""Safe full-text queries: user text → FTS5 MATCH strings (every token quoted) and LIKE patterns.

Nothing the user types reaches FTS5 syntax: each token becomes an FTS5 string ("..." with inner
quotes doubled), so `NEAR(`, `AND`, `*`, `:`, `^` and unbalanced quotes are plain text. The MATCH
string itself is always passed to SQL as a parameter.
"""
from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field

MAX_QUERY_CHARS = 1000
MAX_TOKENS = 24

_WORD = re.compile(r"\w+", re.UNICODE)
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\ud800-\udfff]")
# Words so common they would make an OR query scan most of the index (kept if they are all there is).
STOPWORDS = frozenset(
    "a an and are as at be but by did do does for from had has have how i if in is it its me my of on "
    "or our so that the their them then there these they this to was we were what when where which who "
    "why will with you your".split()
)


def is_cjk(ch: str) -> bool:
    """Scripts written without spaces between words (CJK, kana, Hangul, Thai...)."""
    if ord(ch) < 0x2E80:
        return "\u0e00" <= ch <= "\u0eff"  # Thai, Lao
    return unicodedata.category(ch) in ("Lo", "Lm")


def quote(token: str) -> str:
    """An FTS5 string literal: the token is matched as text, never parsed as syntax."""
    return '"' + token.replace('"', '""') + '"'


def escape_like(text: str) -> str:
    """A LIKE pattern matching `text` literally anywhere (use with ESCAPE '\\')."""
    return "%" + text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"


@dataclass
class Plan:
    """How one user query is searched: word MATCH, trigram MATCH, short-CJK LIKE patterns."""

    words: str | None = None
    trigram: str | None = None
    likes: list[str] = field(default_factory=list)
    terms: list[str] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not (self.words or self.trigram or self.likes)


def _split_runs(word: str) -> list[tuple[str, bool]]:
    """Split a \\w+ token into runs of CJK and non-CJK characters."""
    runs: list[tuple[str, bool]] = []
    for ch in word:
        cjk = is_cjk(ch)
        if runs and runs[-1][1] == cjk:
            runs[-1] = (runs[-1][0] + ch, cjk)
        else:
            runs.append((ch, cjk))
    return runs


def _dedupe(items: list[str]) -> list[str]:
    seen: set[str] = set()
    return [x for x in items if not (x in seen or seen.add(x))]  # type: ignore[func-returns-value]


def plan(query: str) -> Plan:
    """Turn free text into a safe search plan; a query with no searchable text gives an empty plan."""
    # Control characters (NUL ends an FTS5 string early) become spaces; no other normalisation,
    # since the index stores the text as written.
    text = _CONTROL.sub(" ", str(query)[:MAX_QUERY_CHARS])
    latin: list[str] = []
    cjk_runs: list[str] = []
    for word in _WORD.findall(text):
        for part in filter(None, word.split("_")):  # unicode61 splits on "_" too
            for run, cjk in _split_runs(part):
                (cjk_runs if cjk else latin).append(run.lower())
    latin = _dedupe(latin)
    meaningful = [w for w in latin if w not in STOPWORDS] or latin
    trigram_terms: list[str] = [w for w in meaningful if len(w) >= 3]
    likes: list[str] = []
    for run in _dedupe(cjk_runs):
        if len(run) >= 3:
            trigram_terms.append(run)
            # A longer run rarely appears verbatim: its 3-grams let BM25 reward partial overlap.
            trigram_terms.extend(run[i:i + 3] for i in range(len(run) - 2) if len(run) > 3)
        else:
            likes.append(run)  # trigram needs >= 3 characters
    # Whole chunks with punctuation ("it's", "v1.2", "foo-bar") as substrings too.
    for chunk in text.split():
        if len(chunk) >= 3 and not _WORD.fullmatch(chunk) and _WORD.search(chunk):
            trigram_terms.append(chunk.lower())
    words = meaningful[:MAX_TOKENS]
    tri = _dedupe(trigram_terms)[:MAX_TOKENS]
    return Plan(
        words=" OR ".join(quote(w) for w in words) or None,
        trigram=" OR ".join(quote(t) for t in tri) or None,
        likes=[escape_like(r) for r in likes[:4]],
        terms=words + [r for r in cjk_runs if r],
    )
