"""The passages index rows are embedded from: each row's date and neighbouring turns, read from the local index.

A turn's neighbours were said the same day: the agent's rows of each day the rows to embed fall on are read
(the index on (agent_id, day); at most DAY_ROWS a day), and the recipe (tiers/retrieval/passage.py) picks
the turns of the same session among them. Rows archived in another order (warm evicts by score, not by
time) are found all the same; a neighbour still in warm is not (its row is embedded without it).
"""
from __future__ import annotations

import json
from typing import Any, Callable, Sequence

from memoryd.tiers.retrieval import passage

IDS_PER_STMT = 500
DAY_ROWS = 5000   # rows of one day looked at for neighbours (a day of bulk imports: the first ones only)


def _meta(raw: Any) -> dict[str, Any]:
    try:
        found = json.loads(raw) if raw else {}
    except ValueError:
        return {}
    return found if isinstance(found, dict) else {}


def passages(read: Callable[[str, Sequence[Any]], list[tuple[Any, ...]]], agent_id: str,
             todo: Sequence[tuple[int, str, str]]) -> list[str]:
    """The passage of each (rowid, id, text) in `todo`, in order (`read`: the index's read(sql, args))."""
    if not todo:
        return []
    if not passage.DATED and not passage.NEIGHBOURS:
        return [text for _, _, text in todo]
    rowids = [t[0] for t in todo]
    own: dict[int, str] = {}
    for start in range(0, len(rowids), IDS_PER_STMT):
        chunk = rowids[start:start + IDS_PER_STMT]
        own.update(read(f"SELECT rowid, day FROM memories WHERE agent_id = ? AND rowid IN ({', '.join('?' * len(chunk))})",
                        [agent_id, *chunk]))
    rows = []
    for day in sorted(set(own.values())):
        rows += [(r[0], r[1], r[2], _meta(r[3])) for r in read(
            "SELECT rowid, text, day, metadata FROM memories WHERE agent_id = ? AND day = ? LIMIT ?",
            [agent_id, day, DAY_ROWS])]
    found = passage.contexts(rows, set(rowids))
    for rowid, context in found.items():
        context.day = own.get(rowid)
    return [passage.passage(text, found.get(rowid)) for rowid, _, text in todo]
