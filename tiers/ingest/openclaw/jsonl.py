"""Older OpenClaw transcripts as JSONL files: live `<id>.jsonl`, `.reset.` / `.deleted.` renames, `.zst` archives.

A session is known by its id (the file name before `.jsonl`), not its path, so a transcript renamed
to `<id>.jsonl.reset.<ts>` (or archived as `….zst`) while memoryd waits for it to go quiet is read on
from the same byte offset to its end. A live file's last line without a newline is still being
written and waits; a renamed or archived file is final, so its last line counts.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from memoryd.tiers.base.errors import UsageError
from memoryd.tiers.ingest.openclaw.events import TOO_DEEP, EventParser, Parsed, parse_json_event, too_deep

MAX_LINE_BYTES = 4 * 1024 * 1024  # OpenClaw's own cap on one event; longer lines are not events
READ_CHUNK = 16 * 1024 * 1024
MAX_ARCHIVE_BYTES = 512 * 1024 * 1024
_NAME = re.compile(r"^(?P<sid>[^/]+?)\.jsonl(?:(?P<tail>\.(?:reset|deleted)\.[^/]*?)?)(?P<zst>\.zst)?$")


@dataclass(frozen=True)
class TranscriptFile:
    path: Path
    session_id: str
    final: bool       # renamed or archived: nothing more will be appended
    compressed: bool


def classify_name(path: Path) -> TranscriptFile | None:
    m = _NAME.match(path.name)
    if not m or not m.group("sid"):
        return None
    zst = bool(m.group("zst"))
    return TranscriptFile(path, m.group("sid"), final=bool(m.group("tail")) or zst, compressed=zst)


def transcript_files(sessions_dir: Path) -> list[TranscriptFile]:
    """Every transcript of one agent's sessions dir (and its cold/ archives), oldest change first."""
    found = []
    for folder in (sessions_dir, sessions_dir / "cold"):
        if not folder.is_dir():
            continue
        for p in folder.iterdir():
            tf = classify_name(p) if p.is_file() else None
            if tf is not None:
                found.append(tf)
    return sorted(found, key=lambda t: (_mtime(t.path), t.path.name))


def _mtime(p: Path) -> float:
    try:
        return p.stat().st_mtime
    except OSError:
        return 0.0


def _read_from(tf: TranscriptFile, offset: int) -> Iterator[tuple[int, bytes]]:
    """(start offset, chunk) pieces of the file's (decompressed) bytes from `offset` on."""
    try:
        if tf.compressed:
            import zstandard  # only for archives

            with open(tf.path, "rb") as fh:
                reader = zstandard.ZstdDecompressor().stream_reader(fh)
                data = reader.read(MAX_ARCHIVE_BYTES + 1)
            if len(data) > MAX_ARCHIVE_BYTES:
                raise UsageError(f"transcript archive {tf.path.name} is larger than {MAX_ARCHIVE_BYTES} bytes")
            if offset > len(data):
                offset = 0  # not the file we read before: start over (ids make it idempotent)
            for start in range(offset, len(data), READ_CHUNK):
                yield start, data[start:start + READ_CHUNK]
            return
        with open(tf.path, "rb") as fh:
            size = fh.seek(0, 2)
            if offset > size:
                offset = 0  # truncated or replaced: start over
            fh.seek(offset)
            pos = offset
            while True:
                chunk = fh.read(READ_CHUNK)
                if not chunk:
                    return
                yield pos, chunk
                pos += len(chunk)
    except UsageError:
        raise
    except OSError as exc:
        raise UsageError(f"cannot read transcript {tf.path.name}: {exc.strerror or exc}") from None
    except Exception as exc:  # a broken .zst archive
        raise UsageError(f"cannot read transcript archive {tf.path.name}: {type(exc).__name__}") from None


def read_transcript(tf: TranscriptFile, offset: int, parser: EventParser | None = None) -> tuple[Parsed, int]:
    """Events of `tf` past byte `offset` → (turns, resets and skips; the offset to continue from)."""
    parser = parser or EventParser(tf.session_id)
    out = Parsed()
    end = offset
    carry, carry_at = b"", offset
    mtime = _mtime(tf.path)
    for start, chunk in _read_from(tf, offset):
        if not carry:
            carry_at = start
        buf = carry + chunk
        lines = buf.split(b"\n")
        carry = lines.pop()  # no newline yet
        pos = carry_at
        for line in lines:
            _feed(parser, line, pos, mtime, out)
            pos += len(line) + 1
        end, carry_at = pos, pos
        if len(carry) > MAX_LINE_BYTES:  # a runaway line: skip to its end without holding it
            out.skip("line over 4 MB")
            carry, carry_at = b"", carry_at + len(carry)
            end = carry_at
    if carry and tf.final:
        _feed(parser, carry, carry_at, mtime, out)
        end = carry_at + len(carry)
    return out, end


def _feed(parser: EventParser, line: bytes, pos: int, mtime: float, out: Parsed) -> None:
    if not line.strip():
        return
    if len(line) > MAX_LINE_BYTES:
        out.skip("line over 4 MB")
        return
    obj = parse_json_event(line)
    if obj is None:
        out.skip(TOO_DEEP if too_deep(line) else "unreadable line")
        return
    parser.feed(obj, pos, mtime, out)
