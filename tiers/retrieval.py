"""Keyword retrieval through the tree: tokenising (CJK-aware), path scoring and entry ranking."""
from __future__ import annotations

import functools
from dataclasses import dataclass
from datetime import datetime, timezone
import re
import unicodedata
from typing import Any, Iterable

from .errors import UsageError

_WORD_RE = re.compile(r"[^\W_]+", re.UNICODE)
_STOP = frozenset("a an and are as at be by did do does for from how i in is it me my of on or our so the "
                  "this to was we what when where which who why with you your about".split())


# Hiragana, katakana, CJK symbols/ideographs (+ext A, compatibility), Hangul syllables and jamo.
_CJK_RE = re.compile(r"[\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
                     r"\uac00-\ud7af\u1100-\u11ff\U00020000-\U0002ffff]")


def _is_cjk(ch: str) -> bool:
    return _CJK_RE.match(ch) is not None


@functools.lru_cache(maxsize=4096)
def tokens(text: str) -> frozenset[str]:
    """Lower-case words (minus stop words) plus CJK unigrams and bigrams (no whitespace in CJK)."""
    out: set[str] = set()
    text = text.casefold() if text.isascii() else unicodedata.normalize("NFKC", text).casefold()
    if text.isascii():  # fast path: no CJK possible
        return frozenset(w for w in _WORD_RE.findall(text) if w not in _STOP)
    for word in _WORD_RE.findall(text):
        run: list[str] = []
        latin: list[str] = []
        for ch in word + " ":
            if ch != " " and _is_cjk(ch):
                run.append(ch)
                if latin:
                    out.add("".join(latin)); latin = []
                continue
            if ch != " ":
                latin.append(ch)
            if run:
                out.update(run)
                out.update(a + b for a, b in zip(run, run[1:]))
                run = []
        if latin:
            out.add("".join(latin))
    return frozenset(t for t in out if t not in _STOP)


def _overlap(query: frozenset[str], text_tokens: frozenset[str]) -> tuple[float, list[str]]:
    """Share of the query's weight found in the text; bigrams weigh double (they pin CJK words)."""
    if not query:
        return 0.0, []
    weight = {t: 2.0 if len(t) == 2 and all(_is_cjk(c) for c in t) else 1.0 for t in query}
    hits = [t for t in query if t in text_tokens or (len(t) > 3 and any(x.startswith(t) for x in text_tokens))]
    return sum(weight[t] for t in hits) / sum(weight.values()), sorted(hits)


def score_paths(query: frozenset[str], nodes: dict[str, list]) -> dict[str, float]:
    """Relevance 0..1 of each tree path from its segments and description (children inherit 0.5×)."""
    direct = {}
    for path, (desc, _day) in nodes.items():
        rel, _ = _overlap(query, tokens(path.replace("/", " ") + " " + desc))
        direct[path] = rel
    scores = {}
    for path in nodes:
        parts = path.split("/")
        inherited = max((direct.get("/".join(parts[:i]), 0.0) * 0.5 for i in range(1, len(parts))), default=0.0)
        scores[path] = max(direct[path], inherited)
    return {p: s for p, s in scores.items() if s > 0}


def path_boost(category: str, path_scores: dict[str, float]) -> tuple[float, str | None]:
    """Best score among the category's own path and its ancestors."""
    parts = category.split("/")
    best, best_path = 0.0, None
    for i in range(len(parts), 0, -1):
        p = "/".join(parts[:i])
        if path_scores.get(p, 0.0) > best:
            best, best_path = path_scores[p], p
    return best, best_path


def rank(query: str, candidates: Iterable[dict[str, Any]], nodes: dict[str, list],
         limit: int, paths: dict[str, float] | None = None) -> list[dict[str, Any]]:
    """Rank candidates (each with text, category, tier, score) by relevance × memory score.

    relevance = text overlap, lifted by a matching tree path; a path-only match still counts.
    """
    q = tokens(query)
    paths = score_paths(q, nodes) if paths is None else paths
    results = []
    for cand in candidates:
        rel, hits = _overlap(q, tokens(cand["text"] + " " + cand["category"].replace("/", " ")))
        boost, via = path_boost(cand["category"], paths)
        rel = max(rel, float(cand.get("relevance", 0.0)))
        relevance = min(1.0, rel + 0.3 * boost) if rel else 0.5 * boost
        if relevance <= 0:
            continue
        memory_score = max(float(cand.get("score", 0.0)), 0.05)
        why = []
        if hits:  # name the longest matches: '绿茶', not also '绿' and '茶'
            shown = [h for h in hits if not any(h != o and h in o for o in hits)]
            why.append("matched " + ", ".join(repr(h) for h in shown[:5]))
        elif cand.get("relevance"):
            why.append("full-text match")
        if via:
            why.append(f"tree path {via} ({paths[via]:.2f})")
        results.append(dict(cand, relevance=round(relevance, 4), rank=round(relevance * memory_score, 6),
                            reason="; ".join(why) + f" in {cand['tier']}"))
    results.sort(key=lambda r: (-r["rank"], -r["relevance"], r["id"]))
    return results[:limit]


@dataclass(frozen=True)
class Filters:
    """Optional restrictions on what retrieve returns (warm and cold facts only when any is set)."""

    url: str | None = None
    entity: str | None = None
    since: float | None = None   # unix time, inclusive
    until: float | None = None   # unix time, exclusive

    @classmethod
    def from_params(cls, params: dict[str, Any]) -> "Filters":
        entity = (params.get("entity") or "").strip().lstrip("@") or None
        since = _day_start(params["since"], "since") if params.get("since") else None
        until = _day_start(params["until"], "until") + 86400 if params.get("until") else None
        if since is not None and until is not None and since >= until:
            raise UsageError("--since must not be after --until")
        return cls(url=params.get("url") or None, entity=entity, since=since, until=until)

    def __bool__(self) -> bool:
        return any(v is not None for v in (self.url, self.entity, self.since, self.until))

    def describe(self) -> str:
        parts = [f"url matches {self.url!r}" if self.url else "", f"about @{self.entity}" if self.entity else ""]
        if self.since is not None or self.until is not None:
            parts.append("in the date range")
        return ", ".join(p for p in parts if p)

    def matches(self, entry: dict[str, Any]) -> bool:
        meta = entry.get("metadata") or {}
        if self.url and not any(self.url in u for u in meta.get("urls", [])):
            return False
        if self.entity:
            names = {str(n).casefold().lstrip("@") for n in list(meta.get("entities", [])) + list(meta.get("people", []))}
            if self.entity.casefold().lstrip("@") not in names:
                return False
        when = _entry_time(entry)
        return not ((self.since is not None and when < self.since) or (self.until is not None and when >= self.until))


def _day_start(value: str, what: str) -> float:
    try:
        day = datetime.strptime(str(value), "%Y-%m-%d").replace(tzinfo=timezone.utc)
    except ValueError:
        raise UsageError(f"--{what} must be a date YYYY-MM-DD, got {value!r}") from None
    return day.timestamp()


def _entry_time(entry: dict[str, Any]) -> float:
    """A note's own date when it has one (ingested facts), else when it was stored."""
    date = (entry.get("metadata") or {}).get("date")
    if isinstance(date, str):
        try:
            return _day_start(date, "date")
        except UsageError:
            pass
    return float(entry.get("created_at", 0))
