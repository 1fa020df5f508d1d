"""`memoryd status` in human form: the daemon's lines, the back-fill's progress among them."""
from __future__ import annotations

from memoryd.cli.cmd_status import _daemon_lines


def test_backfill_progress_is_shown_when_hybrid_runs_it() -> None:
    lines = _daemon_lines({"backfill": {"state": "running", "with_vector": 1200, "memories": 5000, "last_error": None}})
    assert lines == ["  back-fill running  1200 of 5000 memories have a vector"]
    failed = _daemon_lines({"backfill": {"state": "idle", "with_vector": 3, "memories": 4, "last_error": "disk full"}})
    assert failed == ["  back-fill idle  3 of 4 memories have a vector  last error: disk full"]


def test_no_backfill_line_in_keyword_mode() -> None:
    assert _daemon_lines({"backfill": {"state": "off", "with_vector": 0, "memories": 0}}) == []
    assert _daemon_lines({}) == []
