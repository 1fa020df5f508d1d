"""The knowledge log: rows appended with why, and a forget blanks the text it previewed."""
from __future__ import annotations

import pytest

from memhelp import AgentMemory
from memoryd.tiers.knowledge import log as klog
from memoryd.tiers.memory.forget import forget_id
from clock import Clock


def test_rows_are_appended_private_and_scrubbed_by_forget(config) -> None:
    mem = AgentMemory(config, "klog", clock=Clock())
    e = mem.store("The garage code is 4417", "home", importance=0.6)
    mem.record_knowledge([klog.row("supersede", e["id"], "a newer code", e["text"], by="x1")], mem.clock())
    rows = mem.knowledge_rows()
    assert rows[0]["kind"] == "supersede" and rows[0]["by"] == "x1" and "4417" in rows[0]["what"]
    assert (mem.dir / "knowledge.jsonl").stat().st_mode & 0o777 == 0o600
    forget_id(mem, e["id"])
    assert "4417" not in (mem.dir / "knowledge.jsonl").read_text()
    with pytest.raises(ValueError):
        klog.row("guess", "id", "why")
