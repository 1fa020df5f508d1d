"""An acknowledged hot change is kept or explained: hot writers (lessons, tasks, events, stores, tree adds,
imports) SIGKILLed after 0–300 ms while a second stream pulls, pushes and consolidates (also killed), one
device on a real sqld; every hot item a command acknowledged is in the final export or named in
evictions.jsonl with why (tests/hotstorm.py; run it alone for longer storms)."""
from __future__ import annotations

from pathlib import Path

from hotstorm import storm


def test_acknowledged_hot_items_survive_kills_and_a_concurrent_pull_or_are_explained(tmp_path: Path, sqld) -> None:
    sqld.wipe()
    fig = storm(tmp_path / "dev", sqld.http_url, rounds=40, seed=11, concurrent=True, pad=140, hot_share=0.95,
                pull_kills=0.3, kill_share=0.4)
    assert fig["final_sync"] == 0
    assert fig["kills"] >= 5 and fig["acked"] >= 5, fig  # the storm did storm
    # acknowledged, not in the export, and no eviction row saying why (a consolidation made to write back a
    # state it read before a concurrent hot write is caught here: one task missing at this seed)
    assert fig["missing"] == {}, fig
    assert all(fig["evicted"].values())  # every eviction says why
