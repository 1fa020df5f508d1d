"""The dataset on disk as an OpenClaw install holds it: JSONL session transcripts and memory/YYYY-MM-DD.md notes.

Layout (what `memoryd openclaw sync` and `ingest-daily` read): `<root>/openclaw/agents/main/sessions/<id>.jsonl`
(one OpenClaw session a file, events as OpenClaw writes them) and `<root>/openclaw/workspace/memory/<date>.md`.
Each writer returns where memoryd will say a text came from (its `source` metadata: `openclaw:<session>#<seq>`,
seq being the event's byte offset, or `memory/<date>.md#L<line>`) → the input's id.
"""
from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

from .model import AGENT, NOTE, USER, Dataset, Input

AGENT_ID = "main"          # the OpenClaw agent, and the memoryd agent its memories go to
SESSION_HOUR = (9, 15)     # the first and second session of a day start at these hours (UTC)


class Install:
    """Where the files go under `root`, and the environment memoryd is given to find them."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.state = root / "openclaw"
        self.workspace = self.state / "workspace"
        self.sessions = self.state / "agents" / AGENT_ID / "sessions"
        self.home = root / "home"

    def env(self) -> dict[str, str]:
        return {"MEMORYD_HOME": str(self.home), "MEMORYD_WORKSPACE": str(self.workspace),
                "OPENCLAW_STATE_DIR": str(self.state)}


def event(turn: Input, at: dt.datetime) -> str:
    """One JSONL line: a user or assistant message event as OpenClaw 2026.9 writes it."""
    content: object = turn.text if turn.channel == USER else [{"type": "text", "text": turn.text}]
    message = {"role": turn.channel, "content": content, "timestamp": int(at.timestamp() * 1000)}
    iso = at.strftime("%Y-%m-%dT%H:%M:%S.000Z")
    return json.dumps({"type": "message", "timestamp": iso, "message": message}, ensure_ascii=False) + "\n"


def write_sessions(ds: Dataset, day: int, install: Install) -> dict[str, str]:
    """The day's chat sessions as transcripts; source → input id."""
    install.sessions.mkdir(parents=True, exist_ok=True)
    date = dt.date.fromisoformat(ds.date(day))
    by_session: dict[str, list[Input]] = {}
    for turn in ds.on(day):
        if turn.channel in (USER, AGENT) and turn.session:
            by_session.setdefault(turn.session, []).append(turn)
    sources: dict[str, str] = {}
    for n, (sid, turns) in enumerate(by_session.items()):
        start = dt.datetime(date.year, date.month, date.day, SESSION_HOUR[min(n, 1)], tzinfo=dt.timezone.utc)
        offset, lines = 0, []
        for i, turn in enumerate(turns):
            line = event(turn, start + dt.timedelta(seconds=40 * i))
            sources[f"openclaw:{sid}#{offset}"] = turn.id
            lines.append(line)
            offset += len(line.encode("utf-8"))
        (install.sessions / f"{sid}.jsonl").write_text("".join(lines), encoding="utf-8")
    return sources


def note_text(ds: Dataset, day: int) -> tuple[str, dict[int, str]]:
    """The day's note and its line number → input id ("" when the day has no note)."""
    lines = [i for i in ds.on(day) if i.channel == NOTE]
    if not lines:
        return "", {}
    out, where = [f"# {ds.date(day)}"], {}
    for section, title in (("log", "Log"), ("retain", "Retain")):
        mine = [i for i in lines if i.section == section]
        if not mine:
            continue
        out += ["", f"## {title}"]
        for item in mine:
            out.append(f"- {item.text}")
            where[len(out)] = item.id
    return "\n".join(out) + "\n", where


def write_note(ds: Dataset, day: int, install: Install) -> dict[str, str]:
    """The day's daily note in the workspace; source → input id."""
    text, where = note_text(ds, day)
    if not text:
        return {}
    folder = install.workspace / "memory"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{ds.date(day)}.md").write_text(text, encoding="utf-8")
    return {f"memory/{ds.date(day)}.md#L{line}": iid for line, iid in where.items()}
