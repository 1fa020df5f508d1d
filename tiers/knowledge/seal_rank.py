"""A sealed memory's summary in the results: a summary the query did not reach is brought in just after its first
sealed member the words found, never before it (what the words found keeps its place: right or silent)."""
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
    found = {r["id"] for r in results}
    for r in results:
        if r["id"] not in placed:
            out.append(r)
            placed.add(r["id"])
        sid = _sealed_in(r)
        summary = have.get(sid) if sid and sid not in found else None
        if summary is not None and sid not in placed:
            out.append(dict(summary, rank=r.get("rank")))  # right after the member it stands for
            placed.add(summary["id"])
    return out[:limit]
