"""What files derived from one memory still hold of it: summaries and digests standing for it, bank pages
quoting it, the working snapshot made before its forget, log rows with more than its id.

`memoryd forget --verify ID` reports these beside the tiers' own places (tiers/memory/forget_traces.py); a
forget makes them again (daemon/forget_derived.py).
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

from memoryd.tiers.memory.evictions import ID_FIELDS
from memoryd.tiers.memory.forget_traces import Place

if TYPE_CHECKING:
    from memoryd.tiers.memory.agent import AgentMemory

SUMMARISES_KEY = "summarises"  # tiers/knowledge/kinds.py: the ids a summary (a digest too) stands for
SNAPSHOT = "snapshot.md"  # tiers/knowledge/snapshot.py's FILE


def stands_for(metadata: Any, ids: set[str]) -> bool:
    """Whether a summary's metadata names any of `ids` among the memories it stands for."""
    return bool(ids & set(map(str, (metadata or {}).get(SUMMARISES_KEY) or [])))


def summary_place(mem: AgentMemory, memory_id: str) -> Place:
    """Digests and sealed summaries, in warm or in the local index, that stand for the memory."""
    place = Place("summaries and digests")
    place.found += [f"summary {e['id']} in warm" for e in mem.read_state()["warm"]["entries"]
                    if stands_for(e.get("metadata"), {memory_id})]
    if mem.archive is not None:
        rows = mem.archive.read("SELECT id, metadata FROM memories WHERE agent_id = ? AND metadata LIKE ?",
                                [mem.agent_id, f'%"{memory_id}"%'])
        place.found += [f"summary {mid} in the local index" for mid, meta in rows
                       if stands_for(json.loads(meta or "{}"), {memory_id})]
    return place


def bank_place(mem: AgentMemory, memory_id: str, workspaces: Sequence[Path] = ()) -> Place:
    """Bank pages (entities, opinions) that quote the memory: they name what they quote by id."""
    place = Place("bank pages")
    for root in [mem.dir / "bank", *(Path(w) / "bank" for w in workspaces)]:
        for path in sorted(root.rglob("*.md")) if root.is_dir() else []:
            try:
                if f"`{memory_id}`" in path.read_text(encoding="utf-8", errors="replace"):
                    place.found.append(f"{path} quotes it")
            except OSError as exc:
                place.unknown = f"cannot read {path}: {exc.strerror}"
    return place


def snapshot_place(mem: AgentMemory, forgotten: float | None) -> Place:
    """The working snapshot: written before the forget and not what the state gives now, it may still quote
    the memory (what the state gives now holds nothing of it: the state does not)."""
    from memoryd.tiers.knowledge.snapshot import render

    place = Place("working snapshot")
    path = mem.dir / SNAPSHOT
    try:
        written, text = path.stat().st_mtime, path.read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        return place
    except OSError as exc:
        place.unknown = f"cannot read {path.name}: {exc.strerror}"
        return place
    if forgotten is not None and int(written) < int(forgotten) and text != render(mem.read_state()):
        place.found.append(f"{path.name} was written before the forget and not since")
    return place


def _texts(row: dict[str, Any]) -> list[str]:
    return [k for k, v in row.items() if k not in ID_FIELDS and isinstance(v, str) and v]


def log_place(mem: AgentMemory, memory_id: str) -> Place:
    """The eviction and knowledge logs: rows about the memory keep its id only."""
    place = Place("eviction and knowledge logs")
    for log in (mem.evictions, mem.knowledge):
        for row in log.rows():
            kept = _texts(dict(row)) if row.get("id") == memory_id else []
            if kept:
                place.found.append(f"a {row.get('kind', '?')} row in {log.path.name} keeps {', '.join(kept)}")
    return place


def derived_places(mem: AgentMemory, memory_id: str, forgotten: float | None,
                   workspaces: Sequence[Path] = ()) -> list[Place]:
    return [summary_place(mem, memory_id), bank_place(mem, memory_id, workspaces),
            snapshot_place(mem, forgotten), log_place(mem, memory_id)]
