"""Append-only JSONL session files of coding harnesses (Claude Code, Codex): complete lines past a byte cursor.

Both CLIs append one JSON object per line and never rewrite a line, so a byte offset is the whole
cursor: what lies before it was taken. A last line without its newline is still being written and
waits for the next read; a file shorter than the cursor was replaced, and is read again from the
start (turn ids make that harmless). Pure: bytes in, (offset, object) pairs out.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memoryd.tiers.base.errors import UsageError
from memoryd.tiers.ingest.openclaw.events import Parsed, parse_json_event

MAX_READ_BYTES = 64 * 1024 * 1024  # one pass takes at most this much of a file; the next pass goes on
MAX_LINE_BYTES = 8 * 1024 * 1024   # a longer line is not a message (a pasted blob, a request snapshot)


@dataclass
class Read:
    """What one read of a session file gave: turns and skips, where to go on from, and the project it names."""

    parsed: Parsed = field(default_factory=Parsed)
    end: int = 0
    cwd: str | None = None
    session_id: str | None = None


def complete_lines(data: bytes, start: int) -> tuple[list[tuple[int, Any]], int, int]:
    """([(offset of the line, its object or None when not JSON)], offset after the last complete line,
    lines skipped as too long). `data` is the file's bytes from `start` on."""
    out: list[tuple[int, Any]] = []
    pos, too_long = 0, 0
    while True:
        nl = data.find(b"\n", pos)
        if nl < 0:
            break
        line = data[pos:nl]
        if len(line) > MAX_LINE_BYTES:
            too_long += 1
        elif line.strip():
            out.append((start + pos, parse_json_event(line)))
        pos = nl + 1
    return out, start + pos, too_long


def read_from(path: Path, offset: int, limit: int = MAX_READ_BYTES) -> tuple[bytes, int]:
    """(bytes of `path` from `offset`, at most `limit`; the offset they start at: 0 when the file shrank)."""
    try:
        with open(path, "rb") as fh:
            size = fh.seek(0, 2)
            if offset > size:
                offset = 0  # replaced or truncated: start over
            fh.seek(offset)
            return fh.read(limit), offset
    except OSError as exc:
        raise UsageError(f"cannot read session file {path.name}: {exc.strerror or exc}") from None
