"""Helpers over the state dir the real OpenClaw 2026.9.6 produced (tests/fixtures/openclaw, see make_fixtures.sh)."""
from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

FIXTURE = Path(__file__).parent / "fixtures" / "openclaw" / "state"
DB_REL = Path("agents") / "main" / "agent" / "openclaw-agent.sqlite"
# Strings that are OpenClaw's machinery, never memory (issue 15)
SCAFFOLDING = ("[OpenClaw heartbeat poll]", "HEARTBEAT_OK", "NO_REPLY", "untrusted metadata", "⟦openclaw:ctx⟧",
               "[[reply_to_current]]", "not authorized to reset", "Store durable memories only",
               "BEGIN_OPENCLAW_INTERNAL_CONTEXT", "wamid.", "+4915123456789", "bootstrap-context", "model-snapshot",
               "Successfully wrote")


def copy_state(dest: Path, wal: bool = True) -> Path:
    """A private copy of the fixture state dir; the store in WAL mode like OpenClaw keeps it."""
    shutil.copytree(FIXTURE, dest)
    if wal:
        conn = sqlite3.connect(dest / DB_REL)
        conn.execute("PRAGMA journal_mode = WAL")
        conn.close()
    return dest


def append_events(db: Path, session_id: str, events: list[dict], compress: bool = False) -> list[int]:
    """Append events the way OpenClaw does (next seq, event_json or event_zstd); returns their seqs.

    Python's SQLite predates octet_length(), which OpenClaw's CHECK constraints use: the checks are
    skipped for this connection (OPENCLAW.md), the row shape is OpenClaw's own.
    """
    conn = sqlite3.connect(db, timeout=5)
    try:
        conn.execute("PRAGMA ignore_check_constraints = ON")
        top = conn.execute("SELECT COALESCE(MAX(seq), -1) FROM transcript_events WHERE session_id = ?",
                           (session_id,)).fetchone()[0]
        seqs = []
        with conn:
            for i, ev in enumerate(events, start=top + 1):
                raw = json.dumps(ev, ensure_ascii=False)
                if compress:
                    import zstandard

                    blob = zstandard.ZstdCompressor(level=1, write_checksum=True).compress(raw.encode())
                    nav = json.dumps({"version": 1, "report": {"kind": "leaf"}, "navigation": {}, "reset": {},
                                      "model": {}, "modelBytes": 0, "modelWithoutCheckpointBytes": 0,
                                      "withoutCustomDataBytes": 0})
                    conn.execute("INSERT INTO transcript_events (session_id, seq, event_json, created_at, event_zstd, "
                                 "event_utf8_bytes, navigation_json) VALUES (?, ?, NULL, ?, ?, ?, ?)",
                                 (session_id, i, 1_795_500_000_000 + i, blob, len(raw.encode()), nav))
                else:
                    conn.execute("INSERT INTO transcript_events (session_id, seq, event_json, created_at, "
                                 "event_utf8_bytes) VALUES (?, ?, ?, ?, ?)",
                                 (session_id, i, raw, 1_795_500_000_000 + i, len(raw.encode())))
                seqs.append(i)
        return seqs
    finally:
        conn.close()


def session_id(db: Path) -> str:
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return conn.execute("SELECT session_id FROM transcript_events ORDER BY seq DESC LIMIT 1").fetchone()[0]
    finally:
        conn.close()


def user_message(text: str) -> dict:
    return {"type": "message", "timestamp": "2026-11-24T09:00:00.000Z",
            "message": {"role": "user", "content": text, "timestamp": 1_795_510_000_000}}


def assistant_message(text: str) -> dict:
    return {"type": "message", "timestamp": "2026-11-24T09:00:05.000Z",
            "message": {"role": "assistant", "content": [{"type": "text", "text": text}],
                        "timestamp": 1_795_510_005_000}}


def grep_home(home: Path, needles: tuple[str, ...]) -> list[tuple[str, str]]:
    """(file, needle) for every needle found in any file under `home` (bytes, SQLite files included)."""
    found = []
    for path in home.rglob("*"):
        if path.is_file() and not path.is_symlink():
            data = path.read_bytes()
            found += [(str(path.relative_to(home)), n) for n in needles if n.encode() in data]
    return found
