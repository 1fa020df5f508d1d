"""Daily consolidation runs the knowledge layer's maintain and entity phases: rows that arrived apart (as from
another device) end with one current truth, and their entities are read, in the same run."""
from __future__ import annotations

from memoryd.tiers.knowledge import entities
from memoryd.tiers.memory.agent import AgentMemory
from memoryd.tiers.memory.consolidate import consolidate

DAY = 86400.0
T0 = 1_780_000_000.0


def row(mid: str, text: str, at: float) -> dict:
    return {"id": mid, "text": text, "category": "home", "importance": 0.5, "created_at": int(at), "metadata": {}}


def test_daily_consolidation_supersedes_and_reads_entities(config, archive) -> None:
    mem = AgentMemory(config, "main", archive=archive, clock=lambda: T0)
    archive.put("main", [row("00a0000000000001", "The garage code is 4417", T0 - 2 * DAY),
                         row("00a0000000000002", "The garage code changed from 4417 to 9931, Alice Chen said", T0 - DAY)])
    quick = consolidate(mem, "quick")
    assert "merged" not in quick["counts"]  # quick stays quick: no maintain phases
    out = consolidate(mem, "daily")
    assert out["counts"]["merged"] == 1 and out["counts"]["entities"] >= 2
    stored = {e["id"]: e["metadata"] for e in archive.iter_entries("main")}
    assert stored["00a0000000000001"]["superseded_by"] == "00a0000000000002"
    assert "Alice Chen" in {e.name for e in entities.entity_list(archive, "main", T0)}
    assert consolidate(mem, "daily")["counts"]["merged"] == 0  # idempotent
