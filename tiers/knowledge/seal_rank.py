"""A sealed memory's summary in the results: a summary the query did not reach rides on the first sealed member the
words found (its `summary`: id and text), never in a slot of its own (what the words found keeps every place)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping

from memoryd.tiers.knowledge.kinds import SEALED_IN_KEY

if TYPE_CHECKING:
    from memoryd.tiers.base.ports import Archive
    from memoryd.tiers.retrieval.candidate import Candidate


def _sealed_in(result: Candidate) -> str | None:
    meta = result.row.get("metadata")
    sid = meta.get(SEALED_IN_KEY) if isinstance(meta, dict) else None
    return str(sid) if sid else None


def behind_summaries(results: list[Candidate], archive: Archive | None, agent_id: str,
                     limit: int) -> list[Candidate]:
    """Results with the summary of a sealed member told on it (when the words did not reach the summary itself);
    the order is untouched. Costs nothing without sealed results."""
    wanted = {sid for r in results if (sid := _sealed_in(r))}
    if not wanted:
        return results
    found = {r.id for r in results}
    have: dict[str, Mapping[str, Any]] = {}
    missing = sorted(wanted - found)
    if missing and archive is not None:
        from memoryd.tiers.base.errors import MemorydError

        try:
            fetched = archive.get(agent_id, missing)
        except MemorydError:
            fetched = []
        for entry in fetched:
            have[entry["id"]] = entry
    told: set[str] = set()
    out = []
    for r in results:
        sid = _sealed_in(r)
        summary = have.get(sid) if sid and sid not in found and sid not in told else None
        if summary is not None:
            r = r.tell(summary=(str(summary["id"]), str(summary["text"]))).noted("summaries", "told its summary",
                                                                              summary=sid)
            told.add(str(sid))
        out.append(r)
    return out[:limit]
