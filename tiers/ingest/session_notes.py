"""Session notes from OpenClaw's session-memory hook: `memory/YYYY-MM-DD-HHMM.md` or `memory/YYYY-MM-DD-<slug>.md`.

The hook writes them on `/new` and `/reset`: a `# Session: …` heading, the session key and id, the
source, then `user: "…"` / `assistant: "…"` lines of the last turns (heartbeats included). They are
read as turns of that session, with the note's date, through the same scaffolding filter as the
session store; the caller skips turns memoryd already has (same session, same words = same id).
"""
from __future__ import annotations

import datetime as dt
import json
import re
from pathlib import Path

from memoryd.tiers.ingest.note_fact import check_date
from memoryd.tiers.base.errors import UsageError
from memoryd.tiers.ingest.openclaw.events import Parsed, Turn, clean_text, is_scaffolding

NOTE_NAME = re.compile(r"^(\d{4}-\d{2}-\d{2})-([0-9]{4}|[a-z0-9][a-z0-9._-]{0,80})\.md$", re.IGNORECASE)
_HEADER_TIME = re.compile(r"^#\s*Session:\s*(\d{4}-\d{2}-\d{2})[ T](\d{2}):(\d{2})(?::(\d{2}))?", re.MULTILINE)
_SESSION_ID = re.compile(r"\*\*Session ID\*\*:\s*([A-Za-z0-9._:-]{1,128})")
_LINE = re.compile(r'^(user|assistant):\s?(.*)$')
MAX_NOTE_BYTES = 4 * 1024 * 1024


def session_note_date(name: str) -> str | None:
    """The date of a session note's file name, or None for anything else (daily notes included)."""
    m = NOTE_NAME.match(name)
    if not m:
        return None
    try:
        return check_date(m.group(1))
    except UsageError:
        return None


def _unquote(raw: str) -> str:
    raw = raw.strip()
    if len(raw) >= 2 and raw[0] == raw[-1] == '"':
        try:
            value = json.loads(raw)
            if isinstance(value, str):
                return value
        except ValueError:
            pass
        return raw[1:-1]
    return raw


def _note_time(text: str, date: str) -> float:
    m = _HEADER_TIME.search(text)
    if m and m.group(1) == date:
        day = dt.date.fromisoformat(date)
        stamp = dt.datetime(day.year, day.month, day.day, int(m.group(2)), int(m.group(3)), int(m.group(4) or 0),
                            tzinfo=dt.timezone.utc)
    else:
        stamp = dt.datetime.fromisoformat(date).replace(tzinfo=dt.timezone.utc)
    return stamp.timestamp()


def parse_session_note(path: Path) -> tuple[str, Parsed, str]:
    """(session id, turns without scaffolding, date) of one session note. UsageError if unreadable."""
    date = session_note_date(path.name)
    if date is None:
        raise UsageError(f"{path.name} is not a session note (memory/YYYY-MM-DD-HHMM.md or -<slug>.md)")
    try:
        if path.stat().st_size > MAX_NOTE_BYTES:
            raise UsageError(f"session note {path.name} is larger than {MAX_NOTE_BYTES} bytes")
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"cannot read {path.name}: {getattr(exc, 'strerror', None) or 'not UTF-8 text'}") from None
    m = _SESSION_ID.search(text)
    session_id = m.group(1) if m else f"note:{path.stem}"
    when = _note_time(text, date)
    raw: list[list[str]] = []  # [role, text, line number]
    for number, line in enumerate(text.splitlines(), start=1):
        hit = _LINE.match(line)
        if hit:
            raw.append([hit.group(1), hit.group(2), str(number)])
        elif raw and line.strip() and not line.startswith(("#", "- **")):
            raw[-1][1] += "\n" + line  # a message spanning lines
    out = Parsed()
    mute = False
    for role, body, lineno in raw:
        words = clean_text(_unquote(body), role)
        why = is_scaffolding(words, role)
        if role == "user":
            mute = why is not None
        elif mute and why is None:
            why = "answer to an internal turn"
        if why:
            out.skip(why)
            continue
        out.turns.append(Turn(session_id, int(lineno), role, words, when, where=f"memory/{path.name}#L{lineno}"))
    return session_id, out, date
