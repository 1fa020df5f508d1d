"""The session store under trouble: corrupt, locked, unknown schema — one clear line, no crash, no lost cursor."""
from __future__ import annotations

import json
import sqlite3
import threading
from pathlib import Path

import pytest
from click.testing import CliRunner

from memoryd.cli.main import cli
from memoryd.tiers.ingest.openclaw.store import SessionStore, StoreUnreadable, decode_row
from openclaw_fixture import DB_REL, append_events, copy_state, session_id, user_message

pytestmark = pytest.mark.usefixtures("keyword_mode")  # the subject is reading OpenClaw's store, not ranking


@pytest.fixture
def oc(home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    state = copy_state(tmp_path / "openclaw-state", wal=False)
    monkeypatch.setenv("OPENCLAW_STATE_DIR", str(state))
    monkeypatch.delenv("MEMORYD_WORKSPACE")
    return state


def invoke(*args: str):
    return CliRunner().invoke(cli, list(args))


def cursors(home: Path) -> dict:
    return json.loads((home / "agents" / "main" / "openclaw-state.json").read_text())["store"]["sessions"]


def test_reader_pages_past_a_cursor_and_decodes_both_payloads(oc: Path) -> None:
    db = oc / DB_REL
    sid = session_id(db)
    append_events(db, sid, [user_message("plain row")])
    append_events(db, sid, [user_message("compressed row " * 100)], compress=True)
    with SessionStore(db) as store:
        top = store.sessions()[sid]
        rows = list(store.iter_after(sid, top - 2))
    assert [r.seq for r in rows] == [top - 1, top]
    assert rows[0].event["message"]["content"] == "plain row"
    assert rows[1].event["message"]["content"].startswith("compressed row") and rows[1].problem is None
    assert decode_row(None, b"not zstd at all", 10)[1].startswith("event_zstd does not decompress")
    assert decode_row("{torn", None, None) == (None, "event_json is not JSON")


def test_corrupt_store_is_one_line_and_keeps_the_cursor(oc: Path, home: Path) -> None:
    assert invoke("openclaw", "sync").exit_code == 0
    before = cursors(home)
    db = oc / DB_REL
    data = bytearray(db.read_bytes())
    data[0:16] = b"this is no db!!!"  # the header is gone
    db.write_bytes(bytes(data))
    result = invoke("openclaw", "sync")
    assert result.exit_code == 1
    lines = [ln for ln in result.stderr.splitlines() if "session store" in ln]
    assert len(lines) == 1 and "openclaw-agent.sqlite" in lines[0]
    assert cursors(home) == before
    status = json.loads(invoke("openclaw", "status", "--json").stdout)["agents"][0]
    assert status["error"] and "\n" not in status["error"] and status["pending_events"] is None


def test_locked_store_waits_and_resumes(oc: Path, home: Path) -> None:
    db = oc / DB_REL
    assert invoke("openclaw", "sync").exit_code == 0
    before = cursors(home)
    append_events(db, session_id(db), [user_message("Decision: we freeze deploys during the holidays.")])
    holder = sqlite3.connect(db, timeout=1, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")  # OpenClaw (or a backup tool) holding the file
    try:
        result = invoke("openclaw", "sync")
        assert result.exit_code == 1 and "is locked; will retry" in result.stderr
        assert cursors(home) == before
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    report = json.loads(invoke("openclaw", "sync", "--json").stdout)["agents"][0]
    assert report["turns"] == 1 and report["warm"] == 1 and report["errors"] == []


def test_unknown_schema_is_reported_not_crashed(oc: Path, home: Path) -> None:
    db = oc / DB_REL
    db.unlink()
    conn = sqlite3.connect(db)
    conn.execute("CREATE TABLE transcript_rows (id INTEGER PRIMARY KEY, body TEXT)")
    conn.commit()
    conn.close()
    result = invoke("openclaw", "sync")
    assert result.exit_code == 1 and "no transcript_events table (unknown schema)" in result.stderr
    with pytest.raises(StoreUnreadable):
        with SessionStore(db):
            pass
    # the notes were still read: a broken store does not stop the rest
    assert json.loads((home / "agents" / "main" / "openclaw-state.json").read_text())["notes"]


def test_reads_while_openclaw_writes(oc: Path) -> None:
    db = oc / DB_REL
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.close()
    sid = session_id(db)
    stop = threading.Event()

    def writer() -> None:
        while not stop.is_set():
            append_events(db, sid, [user_message("streaming turn")])

    t = threading.Thread(target=writer)
    t.start()
    try:
        seen = -1
        for _ in range(30):
            with SessionStore(db) as store:
                rows = list(store.iter_after(sid, seen))
            if rows:
                assert [r.seq for r in rows] == list(range(rows[0].seq, rows[-1].seq + 1))
                seen = rows[-1].seq
    finally:
        stop.set()
        t.join()


def test_console_script_says_a_broken_store_once(oc: Path, home: Path, tmp_path: Path) -> None:
    """The real `memoryd` process: the sync's log line and the report's warning were the same words twice."""
    import os
    import subprocess
    import sys

    memoryd = str(Path(sys.executable).parent / "memoryd")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")} | {"MEMORYD_RETRIEVAL_MODE": "keyword"}
    first = subprocess.run([memoryd, "openclaw", "sync"], env=env, capture_output=True, text=True, timeout=120)
    assert first.returncode == 0, first.stderr
    before = cursors(home)
    (oc / DB_REL).write_bytes(b"garbage, not SQLite")
    broken = subprocess.run([memoryd, "openclaw", "sync"], env=env, capture_output=True, text=True, timeout=120)
    assert broken.returncode == 1
    assert [ln for ln in broken.stderr.splitlines() if ln.strip()] == [
        "memoryd: warning: session store openclaw-agent.sqlite unreadable: file is not a database"]
    assert cursors(home) == before
    status = subprocess.run([memoryd, "status", "--agent-id", "main"], env=env, capture_output=True, text=True,
                            timeout=120)
    [line] = [ln for ln in status.stdout.splitlines() if "  openclaw main:" in ln]
    assert "? event(s) not yet taken" in line and f"#{max(c['seq'] for c in before.values())}" in line
    assert "unreadable: file is not a database" in line
