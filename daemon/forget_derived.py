"""After a forget: every file derived from the forgotten memories is made again without them.

A forget deletes the memory from the tiers (tiers/memory/forget.py); what was made *from* it lives on in
other files until they are made again: a daily digest or a sealed summary quoting it, the bank pages
(bank/entities/…, opinions.md), the working snapshot (snapshot.md), the harness files hot memory is
rendered into, and the local index's free pages, WAL and unmerged terms (SQLite keeps deleted bytes there).
`forget --verify` checks each place (tiers/memory/forget_derived_traces.py).
"""
from __future__ import annotations

import json
from typing import Any

from memoryd.tiers.base.errors import MemorydError
from memoryd.tiers.memory.agent import AgentMemory
from memoryd.tiers.memory.forget_derived_traces import SUMMARISES_KEY, stands_for

from memoryd.daemon.engine import Engine, Params, agent_of
from memoryd.daemon.ops_knowledge import after_forget, clock
from memoryd.daemon.ops_sync import sync


def summaries_quoting(mem: AgentMemory, ids: set[str]) -> list[dict[str, Any]]:
    """Warm and cold summaries (digests, sealed summaries) that stand for any of `ids`."""
    found = [e for e in mem.read_state()["warm"]["entries"] if stands_for(e.get("metadata"), ids)]
    if mem.archive is not None:
        rows = mem.archive.read("SELECT id, metadata FROM memories WHERE agent_id = ? AND metadata LIKE ?",
                                [mem.agent_id, f'%"{SUMMARISES_KEY}"%'])
        hits = [mid for mid, meta in rows if stands_for(json.loads(meta or "{}"), ids)]
        known = {e["id"] for e in found}
        found += [e for e in mem.archive.get(mem.agent_id, hits) if e["id"] not in known]
    return found


def _remake_summaries(engine: Engine, agent_id: str, ids: set[str]) -> dict[str, list[str]]:
    """A day's digest quoting a forgotten memory is built again without it (forgotten when nothing is left
    of its day); a sealed summary quoting one gives its members back and is forgotten (its text is theirs)."""
    from memoryd.tiers.knowledge import digest as daily
    from memoryd.tiers.knowledge.seal import release_summary
    from memoryd.tiers.memory.forget import forget_id

    out: dict[str, list[str]] = {"rebuilt": [], "forgotten": []}
    with engine.memory(agent_id, clock(engine.config)) as mem, mem.exclusive():
        for summary in summaries_quoting(mem, ids):
            date = (summary.get("metadata") or {}).get(daily.DATE_KEY)
            data = daily.build(mem, mem.archive, str(date), mem.knowledge_rows()) if date else None
            if data is not None and data["memories"]:
                daily.store(mem, data)
                out["rebuilt"].append(summary["id"])
                continue
            release_summary(mem, summary["id"], mem.clock())
            forget_id(mem, summary["id"])
            out["forgotten"].append(summary["id"])
    return out


def _remake_snapshot(engine: Engine, agent_id: str) -> bool:
    """snapshot.md written again from the state as it is now (when the agent has one)."""
    from memoryd.tiers.knowledge.snapshot import FILE, write_snapshot

    with engine.memory(agent_id) as mem:
        if not (mem.dir / FILE).exists():
            return False
        write_snapshot(mem)
    return True


def scrub_index(engine: Engine, agent_id: str) -> dict[str, int]:
    """The local index rewritten: no free page, WAL frame or terms segment keeps the deleted rows."""
    from memoryd.tiers.cold.scrub import scrub

    with engine.memory(agent_id) as mem:
        return scrub(mem.archive, agent_id) if mem.archive is not None else {}


def refresh_derived(engine: Engine, agent_id: str, ids: set[str], *, scrub: bool = True) -> dict[str, Any]:
    """Make every derived file again without `ids`; returns what was done (a failure is a warning: the
    forget itself is done, and `forget --verify` names the place that still holds something)."""
    from memoryd.daemon.ops_knowledge import _render

    ids = {i for i in ids if i}
    out: dict[str, Any] = {"summaries": {"rebuilt": [], "forgotten": []}, "warnings": []}
    if not ids:
        return dict(out, pages=[])
    try:
        out["summaries"] = _remake_summaries(engine, agent_id, ids)
    except MemorydError as exc:
        out["warnings"].append(f"summaries quoting the forgotten memory not rebuilt: {exc.message}")
    out["pages"] = after_forget(engine, agent_id, ids | set(out["summaries"]["forgotten"]))
    out["snapshot"] = _remake_snapshot(engine, agent_id)
    with engine.memory(agent_id) as mem, mem.exclusive():
        mem.files.drop_backups()  # the rebuilds above left last-good copies of the files that quoted it
    _render(engine.config, agent_id)  # [render] targets: a digest rebuilt changed warm, not hot
    if scrub:
        out["scrub"] = scrub_index(engine, agent_id)
    return out


def sync_and_refresh(engine: Engine, params: Params) -> dict[str, Any]:
    """The `sync` operation: a two-way sync (daemon/ops_sync.py); a forget another device made arrives with it,
    and what this device derived from the memory is made again here (the pull scrubbed the index already)."""
    result = sync(engine, params)
    pulled = (result.get("cold") or {}).get("pulled") or {}
    gone = set(pulled.pop("forgotten_ids", None) or [])
    if gone:
        refreshed = refresh_derived(engine, agent_of(params), gone, scrub=False)
        if refreshed["warnings"]:
            result.setdefault("warnings", []).extend(refreshed["warnings"])
    return result
