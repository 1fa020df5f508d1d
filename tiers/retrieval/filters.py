"""Retrieval helpers: tree-path scoring on analyzer terms, and the optional filters of a retrieve."""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Iterable, Mapping

from memoryd.tiers.retrieval import analyzer
from memoryd.tiers.base.errors import UsageError
from memoryd.tiers.memory.said import first_said


def _overlap(query: frozenset[str], found: Iterable[str]) -> float:
    """Share of the query's terms among `found`; CJK bigrams weigh double (they pin words)."""
    if not query:
        return 0.0
    found = set(found)
    weight = {t: 2.0 if len(t) == 2 and analyzer.has_cjk(t) else 1.0 for t in query}
    return sum(weight[t] for t in query if t in found) / sum(weight.values())


def score_paths(query: Iterable[str], nodes: dict[str, list]) -> dict[str, float]:
    """Relevance 0..1 of each tree path from its segments and description (children inherit 0.5×)."""
    q = frozenset(query)
    direct = {path: _overlap(q, analyzer.terms(path.replace("/", " ") + " " + desc)) for path, (desc, _day) in nodes.items()}
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


@dataclass(frozen=True)
class Filters:
    """Optional restrictions on what retrieve returns (warm and cold facts only when any is set)."""

    url: str | None = None
    entity: str | None = None
    since: float | None = None   # unix time, inclusive
    until: float | None = None   # unix time, exclusive
    kind: str | None = None      # only memories of this kind (tiers/knowledge/kinds.py); hot items are facts
    history: bool = False        # superseded memories too, each ranked after the current ones (not a filter)

    @classmethod
    def from_params(cls, params: dict[str, Any]) -> "Filters":
        entity = (params.get("entity") or "").strip().lstrip("@") or None
        since = _day_start(params["since"], "since") if params.get("since") else None
        until = _day_start(params["until"], "until") + 86400 if params.get("until") else None
        if since is not None and until is not None and since >= until:
            raise UsageError("--since must not be after --until")
        kind = params.get("kind") or None
        if kind is not None:
            from memoryd.tiers.knowledge.kinds import check_kind

            kind = check_kind(str(kind))[0]
        return cls(url=params.get("url") or None, entity=entity, since=since, until=until, kind=kind,
                   history=bool(params.get("history")))

    def __bool__(self) -> bool:
        return any(v is not None for v in (self.url, self.entity, self.since, self.until, self.kind))

    def takes_hot(self) -> bool:
        """Whether hot's items are candidates: no filter but a kind of `fact` (what hot holds)."""
        return not any(v is not None for v in (self.url, self.entity, self.since, self.until)) and (
            self.kind in (None, "fact"))

    def describe(self) -> str:
        parts = [f"url matches {self.url!r}" if self.url else "", f"about @{self.entity}" if self.entity else "",
                 f"kind {self.kind}" if self.kind else ""]
        if self.since is not None or self.until is not None:
            parts.append("in the date range")
        return ", ".join(p for p in parts if p)

    def matches(self, entry: Mapping[str, Any]) -> bool:
        if not self:
            return True  # no filter: every candidate of a retrieve is checked, so none reads when it was said
        meta = entry.get("metadata") or {}
        if self.kind is not None:
            from memoryd.tiers.knowledge.kinds import kind_of

            if kind_of(meta) != self.kind:
                return False
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


def _entry_time(entry: Mapping[str, Any]) -> float:
    """When the memory was first said (valid time: a note's date and section, a turn's timestamp), else when
    it was stored; --since/--until are whole UTC days, as the local index's `day` column files it."""
    return first_said(entry)
