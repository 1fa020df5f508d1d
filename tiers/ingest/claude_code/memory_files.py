"""Claude Code's own memory files (`~/.claude/projects/<slug>/memory/*.md`), read as notes.

Claude Code tells its model to keep one fact per file, with frontmatter (`name`, `description`,
`metadata.type`: user | feedback | project | reference) and a one-line pointer in `MEMORY.md`, the
index it loads into later sessions. What the model chose to remember there is memory too: each
file's body (with its description when the body alone is short) is one note. `MEMORY.md` itself
only points at the files and is not read. Pure: text in, notes out.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

INDEX = "MEMORY.md"
KINDS = ("user", "feedback", "project", "reference")
MAX_NOTE_BYTES = 64 * 1024
_FRONT = re.compile(r"\A---[ \t]*\n(?P<head>.*?)\n---[ \t]*(?:\n|\Z)(?P<body>.*)\Z", re.DOTALL)
_FIELD = re.compile(r"^(?P<indent>[ \t]*)(?P<key>[A-Za-z_]+):[ \t]*(?P<value>.*?)[ \t]*$")
_LINK = re.compile(r"\[\[([^\]\n]{1,80})\]\]")


@dataclass(frozen=True)
class MemoryNote:
    """One of Claude Code's memory files: what it says and how Claude Code filed it."""

    file: str          # the file name, e.g. staging-db-port.md
    name: str          # its `name:` slug (the file stem when missing)
    description: str
    kind: str          # user | feedback | project | reference | note
    text: str          # the fact, as one note

    @property
    def category(self) -> str:
        return f"notes/claude-memory/{self.kind}"


def _unquote(value: str) -> str:
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return value[1:-1]
    return value


def _fields(head: str) -> dict[str, str]:
    """Flat `key: value` pairs of simple YAML frontmatter (nested keys under `metadata:` flattened)."""
    out: dict[str, str] = {}
    for line in head.splitlines():
        m = _FIELD.match(line)
        if m and m.group("value"):
            out.setdefault(m.group("key").lower(), _unquote(m.group("value")))
    return out


def parse_memory_file(name: str, text: str) -> MemoryNote | None:
    """The note in one memory file, or None when it holds nothing to remember (empty, only frontmatter)."""
    m = _FRONT.match(text.replace("\r\n", "\n"))
    head, body = (m.group("head"), m.group("body")) if m else ("", text)
    fields = _fields(head)
    body = _LINK.sub(lambda link: link.group(1), body).strip()
    description = fields.get("description", "")
    if not body and not description:
        return None
    kind = fields.get("type", "note").lower()
    kind = kind if kind in KINDS else "note"
    note = body if len(body) >= 40 or not description else f"{description}: {body}" if body else description
    return MemoryNote(name, fields.get("name", Path(name).stem), description, kind, note)


def memory_files(folder: Path) -> list[Path]:
    """The memory files of one project's memory dir, index excluded."""
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.glob("*.md") if p.is_file() and p.name != INDEX)


def is_memory_file(path: Path, projects: Path) -> bool:
    try:
        parts = path.relative_to(projects).parts
    except ValueError:
        return False
    return len(parts) == 3 and parts[1] == "memory" and path.suffix == ".md" and path.name != INDEX
