"""Sealed memories rank behind their summary: a result sealed into a summary comes after it, and a summary
the query did not reach is brought in just before its first sealed member (a summary that is gone: plain rank)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memoryd.tiers.knowledge.kinds import SEALED_IN_KEY

if TYPE_CHECKING:
    from memoryd.tiers.base.ports import Archive


def _sealed_in(result: dict[str, Any]) -> str | None:
    meta = result.get("metadata")
    sid = meta.get(SEALED_IN_KEY) if isinstance(meta, dict) else None
    return str(sid) if sid else None


def behind_summaries(results: list[dict[str, Any]], archive: Archive | None, agent_id: str, limit: int,
                     candidate: Any) -> list[dict[str, Any]]:
    """Results re-ordered so that every sealed member follows its summary; `candidate(entry)` makes a
    fetched summary a result (tiers/retrieval/search.cold_candidate). Costs nothing without sealed results."""
    wanted = {sid for r in results if (sid := _sealed_in(r))}
    if not wanted:
        return results
    have = {r["id"]: r for r in results}
    missing = sorted(wanted - set(have))
    if missing and archive is not None:
        from memoryd.tiers.base.errors import MemorydError

        try:
            fetched = archive.get(agent_id, missing)
        except MemorydError:
            fetched = []
        for entry in fetched:
            have[entry["id"]] = dict(candidate(entry), relevance=0.0, reason="the summary a result is sealed into")
    out: list[dict[str, Any]] = []
    placed: set[str] = set()
    for r in results:
        sid = _sealed_in(r)
        summary = have.get(sid) if sid else None
        if summary is not None and sid not in placed:
            if summary.get("rank") is None or summary["rank"] < r.get("rank", 0):
                summary = dict(summary, rank=r.get("rank"))  # it takes its member's place
            out.append(summary)
            placed.add(summary["id"])
        if r["id"] not in placed:
            out.append(r)
            placed.add(r["id"])
    return out[:limit]
