"""Ingested text (what was said, daily notes) with control characters is kept with spaces, never refused whole."""
from __future__ import annotations

from memoryd.tiers.ingest.conversation import distill_segment
from memoryd.tiers.ingest.note_parse import parse_note
from memoryd.tiers.ingest.openclaw.events import Turn
from memoryd.tiers.memory.agent import AgentMemory


def test_a_turn_with_nul_and_escapes_is_distilled_not_refused(config, archive) -> None:
    mem = AgentMemory(config, "main", archive=archive)
    said = Turn("s1", 1, "user", "I always prefer green tea\x00 over coffee \x1b[31mreally\x1b[0m.", 1_767_600_000.0)
    report = distill_segment(mem, [said])
    assert report["cold"] == 1 and report["warm"] >= 1
    texts = [e["text"] for e in mem.read_state()["warm"]["entries"]]
    texts += [e["text"] for e in archive.iter_entries("main")]
    assert any("green tea" in t for t in texts)
    assert not any(c in t for t in texts for c in "\x00\x1b")


def test_a_daily_note_line_with_a_control_character_keeps_its_fact() -> None:
    facts, _ = parse_note("# 2026-01-05\n- W @alice: prefers tea\x00 in the morning\n- a second\x07 line\n", "2026-01-05")
    texts = [f.text for f in facts]
    assert any("prefers tea" in t for t in texts) and any("second" in t for t in texts)
    assert not any(c in t for t in texts for c in "\x00\x07")
