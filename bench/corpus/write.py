"""A conversation on disk as memoryd reads it: daily notes (`## HH:MM` sections of `- Speaker: text` bullets and a
`## Retain` section), OpenClaw JSONL transcripts, and store calls; each writer returns source → turn id.
"""
from __future__ import annotations

import datetime as dt
import json

from ..knowledge.write import AGENT_ID, Install  # the same OpenClaw install layout as the knowledge benchmark
from .parse import Conversation, Turn

__all__ = ["AGENT_ID", "Install", "by_date", "note_text", "write_note", "write_transcripts"]

TURN_GAP_S = 45     # seconds between two turns of a transcript


def by_date(conv: Conversation) -> dict[str, list[Turn]]:
    out: dict[str, list[Turn]] = {}
    for t in conv.turns:
        out.setdefault(t.date, []).append(t)
    return out


def _event(turn: Turn, at: dt.datetime) -> str:
    content: object = turn.text if turn.speaker == "user" else [{"type": "text", "text": turn.text}]
    message = {"role": turn.speaker, "content": content, "timestamp": int(at.timestamp() * 1000)}
    iso = at.strftime("%Y-%m-%dT%H:%M:%S.000Z")
    return json.dumps({"type": "message", "timestamp": iso, "message": message}, ensure_ascii=False) + "\n"


def write_transcripts(turns: list[Turn], install: Install) -> dict[str, str]:
    """The day's OpenClaw sessions as JSONL transcripts (one file a session); source → turn id."""
    install.sessions.mkdir(parents=True, exist_ok=True)
    sessions: dict[str, list[Turn]] = {}
    for t in turns:
        if t.section == "chat-openclaw":
            sessions.setdefault(t.session, []).append(t)
    sources = {}
    for sid, said in sessions.items():
        hour, minute = (int(x) for x in said[0].time.split(":"))
        day = dt.date.fromisoformat(said[0].date)
        start = dt.datetime(day.year, day.month, day.day, hour, minute, tzinfo=dt.timezone.utc)
        offset, lines = 0, []
        for i, t in enumerate(said):
            line = _event(t, start + dt.timedelta(seconds=TURN_GAP_S * i))
            sources[f"openclaw:{sid}#{offset}"] = t.id
            lines.append(line)
            offset += len(line.encode("utf-8"))
        (install.sessions / f"{sid}.jsonl").write_text("".join(lines), encoding="utf-8")
    return sources


def note_text(conv: Conversation, date: str, turns: list[Turn]) -> tuple[str, dict[int, str]]:
    """The day's note (chat-notes sessions as timed sections, retain lines last) and line number → turn id."""
    out, where = [f"# {date}"], {}
    names = {"user": conv.owner_short, "assistant": conv.assistant}
    session = None
    for t in turns:
        if t.section != "chat-notes":
            continue
        if t.session != session:
            out += ["", f"## {t.time}", ""]
            session = t.session
        out.append(f"- {names[t.speaker]}: {t.text}")
        where[len(out)] = t.id
    retained = [t for t in turns if t.section == "retain"]
    if retained:
        out += ["", "## Retain"]
        for t in retained:
            out.append(f"- {t.text}")
            where[len(out)] = t.id
    return ("\n".join(out) + "\n", where) if where else ("", {})


def write_note(conv: Conversation, date: str, turns: list[Turn], install: Install) -> dict[str, str]:
    text, where = note_text(conv, date, turns)
    if not text:
        return {}
    folder = install.workspace / "memory"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{date}.md").write_text(text, encoding="utf-8")
    return {f"memory/{date}.md#L{line}": tid for line, tid in where.items()}
