"""A hand-written conversation (`*.convo`, FORMAT.md) parsed into typed turns, topics and entities, checked as read."""
from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field
from pathlib import Path

CHAT_KINDS = ("notes", "openclaw")
SPLITS = ("dev", "test", "held")
ENTITY_TYPES = ("person", "project", "org", "place", "other")

_SECTION = re.compile(r"^==\s+(\d{4}-\d{2}-\d{2})(?:\s+(\d{1,2}:\d{2}))?\s+(chat\s+\w+|retain|store)\s*$")
_TAGS = re.compile(r"\s*\{([^{}]*)\}\s*$")
_TOPIC_KEY = re.compile(r"^[a-z][a-z0-9_]*$")


class CorpusError(ValueError):
    """A line of a corpus file that does not follow FORMAT.md."""

    def __init__(self, path: str, line: int, message: str) -> None:
        super().__init__(f"{path}:{line}: {message}")


@dataclass(frozen=True)
class Topic:
    key: str
    subject: str          # "owner" or an entity's canonical name
    changes: bool
    question: str
    words: str = ""


@dataclass(frozen=True)
class Entity:
    name: str
    type: str
    aliases: tuple[str, ...] = ()

    def names(self) -> tuple[str, ...]:
        return (self.name, *self.aliases)


@dataclass(frozen=True)
class Said:
    """One fact a line states: its topic, the value's canonical form, and the words the text uses for it."""

    topic: str
    value: str
    written: str

    @property
    def fact(self) -> str:
        return f"{self.topic}={self.value}"


@dataclass(frozen=True)
class Turn:
    id: str               # <slug>:<line number>
    line: int
    date: str
    time: str             # HH:MM of the section ("" for retain and store sections)
    section: str          # chat-notes | chat-openclaw | retain | store
    session: str          # the section's id (<slug>-s<n>)
    speaker: str          # user | assistant | note | store
    text: str             # what memoryd is given (tags cut off)
    said: tuple[Said, ...] = ()
    lesson: bool = False
    filler: bool = False


@dataclass
class Conversation:
    slug: str
    path: str
    meta: dict[str, str] = field(default_factory=dict)
    topics: dict[str, Topic] = field(default_factory=dict)
    entities: dict[str, Entity] = field(default_factory=dict)
    turns: list[Turn] = field(default_factory=list)

    @property
    def split(self) -> str:
        return self.meta.get("split", "")

    @property
    def owner(self) -> str:
        return self.meta["owner"]

    @property
    def owner_short(self) -> str:
        return self.meta.get("owner-short") or self.owner.split()[0]

    @property
    def assistant(self) -> str:
        return self.meta.get("assistant", "Assistant")


class _Reader:
    def __init__(self, path: Path) -> None:
        self.path = str(path)
        self.conv = Conversation(path.stem, self.path)
        self.section: tuple[str, str, str, str] | None = None   # date, time, kind, session id
        self.sessions = 0
        self.last: tuple[str, str] = ("", "")

    def fail(self, n: int, message: str) -> None:
        raise CorpusError(self.path, n, message)

    def header(self, n: int, line: str) -> None:
        key, _, value = line[1:].strip().partition(":")
        if value and key.strip() in ("title", "owner", "owner-short", "assistant", "split", "lang"):
            self.conv.meta[key.strip()] = value.strip()

    def topic(self, n: int, line: str) -> None:
        parts = [p.strip() for p in line[len("@topic"):].split(" | ")]
        if len(parts) not in (4, 5):
            self.fail(n, "@topic needs: key | subject | changes|stable | question [| words]")
        key, subject, kind, question = parts[:4]
        if not _TOPIC_KEY.match(key):
            self.fail(n, f"topic key {key!r} is not snake_case")
        if key in self.conv.topics:
            self.fail(n, f"topic {key!r} declared twice")
        if kind not in ("changes", "stable"):
            self.fail(n, f"topic {key!r}: third field must be 'changes' or 'stable', not {kind!r}")
        if not question:
            self.fail(n, f"topic {key!r} has no question")
        self.conv.topics[key] = Topic(key, subject, kind == "changes", question, parts[4] if len(parts) == 5 else "")

    def entity(self, n: int, line: str) -> None:
        parts = [p.strip() for p in line[len("@entity"):].split(" | ")]
        if len(parts) not in (2, 3) or not parts[0]:
            self.fail(n, "@entity needs: name | type [| aliases]")
        if parts[1] not in ENTITY_TYPES:
            self.fail(n, f"entity {parts[0]!r}: type must be one of {', '.join(ENTITY_TYPES)}")
        aliases = tuple(a.strip() for a in parts[2].split(",") if a.strip()) if len(parts) == 3 else ()
        self.conv.entities[parts[0]] = Entity(parts[0], parts[1], aliases)

    def open_section(self, n: int, line: str) -> None:
        m = _SECTION.match(line)
        if not m:
            self.fail(n, "a section line is '== YYYY-MM-DD [HH:MM] chat notes|chat openclaw|retain|store'")
        date, time, kind = m.group(1), m.group(2) or "", m.group(3)
        try:
            dt.date.fromisoformat(date)
        except ValueError:
            self.fail(n, f"bad date {date}")
        if kind.startswith("chat"):
            how = kind.split()[1]
            if how not in CHAT_KINDS:
                self.fail(n, f"a chat goes to 'notes' or 'openclaw', not {how!r}")
            if not time:
                self.fail(n, "a chat section needs its HH:MM")
            kind = f"chat-{how}"
        time = f"{int(time.split(':')[0]):02d}:{time.split(':')[1]}" if time else ""
        if (date, time or "00:00") < self.last:
            self.fail(n, f"sections must go forward in time ({date} {time} is before {' '.join(self.last)})")
        self.last = (date, time or "00:00")
        self.sessions += 1
        self.section = (date, time, kind, f"{self.conv.slug}-s{self.sessions}")

    def tags(self, n: int, body: str) -> tuple[str, tuple[Said, ...], bool, bool]:
        m = _TAGS.search(body)
        if not m:
            return body.strip(), (), False, False
        text, said, lesson, filler = body[:m.start()].strip(), [], False, False
        for tag in (t.strip() for t in m.group(1).split(";")):
            if tag == "lesson":
                lesson = True
            elif tag == "filler":
                filler = True
            elif "=" in tag:
                said.append(self.said(n, text, tag))
            elif tag:
                self.fail(n, f"unknown tag {tag!r} (topic=value, lesson or filler)")
        return text, tuple(said), lesson, filler

    def said(self, n: int, text: str, tag: str) -> Said:
        key, value = (p.strip() for p in tag.split("=", 1))
        value, _, written = value.partition("=")
        value, written = value.strip(), (written.strip() or value.strip())
        if key not in self.conv.topics:
            self.fail(n, f"topic {key!r} is not declared with @topic")
        if not value:
            self.fail(n, f"topic {key!r} has an empty value")
        if written.casefold() not in text.casefold():
            self.fail(n, f"{written!r} is not in the line's text (write `{key}={value}=<the words used>`)")
        return Said(key, value, written)

    def turn(self, n: int, line: str) -> None:
        if self.section is None:
            self.fail(n, "a turn before the first '==' section")
        date, time, kind, session = self.section
        if kind.startswith("chat"):
            prefix = {"U:": "user", "A:": "assistant"}.get(line[:2])
            if prefix is None:
                self.fail(n, "a chat line starts with 'U:' or 'A:'")
            body = line[2:]
        elif kind == "store":
            if not line.startswith("S:"):
                self.fail(n, "a store line starts with 'S:'")
            prefix, body = "store", line[2:]
        else:
            prefix, body = "note", line
        text, said, lesson, filler = self.tags(n, body)
        if not text:
            self.fail(n, "an empty turn")
        self.conv.turns.append(Turn(f"{self.conv.slug}:{n}", n, date, time, kind, session, prefix, text,
                                    said, lesson, filler))

    def read(self, lines: list[str]) -> Conversation:
        for n, raw in enumerate(lines, 1):
            line = raw.rstrip()
            if not line.strip():
                continue
            if line.startswith("#"):
                self.header(n, line) if self.section is None else None
            elif line.startswith("@topic"):
                self.topic(n, line)
            elif line.startswith("@entity"):
                self.entity(n, line)
            elif line.startswith("=="):
                self.open_section(n, line)
            else:
                self.turn(n, line.strip())
        return self.conv


def parse(path: str | Path) -> Conversation:
    """The conversation in `path`, or CorpusError naming the first line that breaks FORMAT.md."""
    path = Path(path)
    conv = _Reader(path).read(path.read_text(encoding="utf-8").splitlines())
    for key in ("owner", "split"):
        if key not in conv.meta:
            raise CorpusError(str(path), 1, f"header '# {key}: …' is missing")
    if conv.split not in SPLITS:
        raise CorpusError(str(path), 1, f"split must be one of {', '.join(SPLITS)}, not {conv.split!r}")
    for t in conv.topics.values():
        if t.subject != "owner" and t.subject not in conv.entities:
            raise CorpusError(str(path), 1, f"topic {t.key!r}: subject {t.subject!r} is not an @entity")
    return conv
