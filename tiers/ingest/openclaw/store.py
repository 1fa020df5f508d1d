"""OpenClaw's per-agent SQLite session store, read-only: transcript events past a (session_id, seq) cursor.

OpenClaw 2026.9 keeps live transcripts as rows of `transcript_events` in
`<state>/agents/<id>/agent/openclaw-agent.sqlite` (WAL), each event either as `event_json` or
zstd-compressed in `event_zstd` (with its size in `event_utf8_bytes`). memoryd opens that file
with a `mode=ro` URI, a short busy timeout and one short read transaction per call, so OpenClaw
keeps writing while we read. Anything unexpected — no such table, missing columns, a locked or
corrupt file — raises StoreUnreadable with one line saying what; the caller keeps its cursor.
"""
from __future__ import annotations

import sqlite3
import urllib.parse
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

from memoryd.tiers.base.errors import StoreError
from memoryd.tiers.ingest.openclaw.events import TOO_DEEP, parse_json_event, too_deep

DB_NAME = "openclaw-agent.sqlite"
NEEDED_COLUMNS = {"session_id", "seq", "event_json", "created_at"}
BUSY_TIMEOUT_MS = 250
PAGE_ROWS = 2000  # rows per read transaction: OpenClaw's writer never waits on us for long
MAX_EVENT_BYTES = 4 * 1024 * 1024  # OpenClaw's own cap on one event


class StoreUnreadable(StoreError):
    """The session store cannot be read now (locked, corrupt, unknown schema); cursors stay as they were."""


@dataclass
class Row:
    session_id: str
    seq: int
    created_at: float  # unix seconds
    event: Any         # the decoded event object, or None when the row could not be decoded
    problem: str | None = None


def store_path(state_dir: Path, agent: str) -> Path:
    return Path(state_dir) / "agents" / agent / "agent" / DB_NAME


def _connect(path: Path) -> sqlite3.Connection:
    if not path.is_file():
        raise StoreUnreadable(f"no session store at {path}")
    uri = "file:" + urllib.parse.quote(str(path.resolve())) + "?mode=ro"
    try:
        conn = sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None,
                               check_same_thread=False)
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        conn.execute("PRAGMA query_only = ON")
    except sqlite3.Error as exc:
        raise StoreUnreadable(f"cannot open session store {path.name}: {exc}") from None
    return conn


def _decompress(blob: bytes, size: int | None) -> bytes:
    import zstandard  # only when a compressed row is met

    limit = size if isinstance(size, int) and 0 < size <= MAX_EVENT_BYTES else MAX_EVENT_BYTES
    return zstandard.ZstdDecompressor().decompress(blob, max_output_size=limit)


def decode_row(event_json: str | None, event_zstd: bytes | None, utf8_bytes: int | None) -> tuple[Any, str | None]:
    """(event object, None) or (None, why it could not be decoded)."""
    if event_json is not None:
        obj = parse_json_event(event_json)
        why = TOO_DEEP if obj is None and too_deep(event_json) else "event_json is not JSON"
        return (obj, None) if obj is not None else (None, why)
    if event_zstd is None:
        return None, "row holds no event"
    try:
        raw = _decompress(bytes(event_zstd), utf8_bytes)
    except Exception as exc:  # zstandard.ZstdError and friends: one bad row, not a broken store
        return None, f"event_zstd does not decompress ({type(exc).__name__})"
    obj = parse_json_event(raw)
    return (obj, None) if obj is not None else (None, TOO_DEEP if too_deep(raw) else "event_zstd holds no JSON")


class SessionStore:
    """One agent's store, opened read-only for the duration of a `with` block."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.conn: sqlite3.Connection | None = None
        self.has_zstd = False

    def __enter__(self) -> "SessionStore":
        self.conn = _connect(self.path)
        try:
            cols = {r[1] for r in self._query("PRAGMA table_info(transcript_events)", ())}
        except StoreUnreadable:
            self.close()
            raise
        if not cols:
            self.close()
            raise StoreUnreadable(f"session store {self.path.name} has no transcript_events table (unknown schema)")
        missing = NEEDED_COLUMNS - cols
        if missing:
            self.close()
            raise StoreUnreadable(f"session store {self.path.name}: transcript_events lacks "
                                  f"{', '.join(sorted(missing))} (unknown schema)")
        self.has_zstd = {"event_zstd", "event_utf8_bytes"} <= cols
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()
            self.conn = None

    def sessions(self) -> dict[str, int]:
        """Every session id with its highest seq (one indexed scan of the primary key)."""
        rows = self._query("SELECT session_id, MAX(seq) FROM transcript_events GROUP BY session_id", ())
        return {str(sid): int(top) for sid, top in rows if isinstance(sid, str)}

    def rows_after(self, session_id: str, seq: int, limit: int = PAGE_ROWS) -> list[Row]:
        """Up to `limit` rows of one session with a seq above `seq`, in seq order."""
        cols = "seq, created_at, event_json" + (", event_zstd, event_utf8_bytes" if self.has_zstd else "")
        sql = (f"SELECT {cols} FROM transcript_events WHERE session_id = ? AND seq > ? "
               "ORDER BY seq LIMIT ?")
        out = []
        for r in self._query(sql, (session_id, int(seq), int(limit))):
            event, problem = decode_row(r[2], r[3] if self.has_zstd else None, r[4] if self.has_zstd else None)
            created = float(r[1]) / 1000.0 if isinstance(r[1], (int, float)) and r[1] > 1e11 else float(r[1] or 0)
            out.append(Row(session_id, int(r[0]), created, event, problem))
        return out

    def iter_after(self, session_id: str, seq: int) -> Iterator[Row]:
        """Every row of a session past `seq`, page by page (each page its own short read)."""
        while True:
            page = self.rows_after(session_id, seq)
            yield from page
            if len(page) < PAGE_ROWS:
                return
            seq = page[-1].seq

    def _query(self, sql: str, params: tuple) -> list[tuple]:
        assert self.conn is not None
        try:
            return self.conn.execute(sql, params).fetchall()  # autocommit: the read ends with the fetch
        except sqlite3.OperationalError as exc:
            text = str(exc)
            if "locked" in text or "busy" in text:
                raise StoreUnreadable(f"session store {self.path.name} is locked; will retry", transient=True) from None
            raise StoreUnreadable(f"session store {self.path.name} unreadable: {text}") from None
        except sqlite3.DatabaseError as exc:
            raise StoreUnreadable(f"session store {self.path.name} unreadable: {exc}") from None
