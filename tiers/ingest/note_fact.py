"""A fact read from a daily note (memory/YYYY-MM-DD.md), and what names and dates a daily note."""
from __future__ import annotations

import hashlib
import re
from dataclasses import asdict, dataclass, field
from typing import Any

from memoryd.tiers.base.errors import UsageError

DATE_RE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
KINDS = {"W": "world", "B": "experience", "O": "opinion", "S": "observation"}
UNKEYED = "-"  # a fact whose text may still grow: not hashed yet


@dataclass
class NoteFact:
    """One fact from a daily note, ready for AgentMemory.store()."""

    text: str
    category: str
    kind: str                      # world | experience | opinion | observation | fact
    source: str                    # memory/YYYY-MM-DD.md#L12
    date: str
    line: int
    time: str | None = None        # HH:MM (24 h) of the timed section
    entities: list[str] = field(default_factory=list)
    confidence: float | None = None
    section: str | None = None     # the heading above it: context, not part of the text
    key: str = ""                  # content hash: the same fact on the same day → the same key
    type: str | None = None        # decision | preference | personal | lesson | task | event (fact_rules)
    about: str | None = None       # the date a task or event is about
    profile_key: str | None = None  # where an owner preference goes in the hot profile
    classified: bool = False       # read_content has run (type, category, about)

    def __post_init__(self) -> None:
        if not self.key:
            raw = "\x1f".join((self.date, self.kind, " ".join(self.text.split())))
            self.key = hashlib.sha256(raw.encode("utf-8")).hexdigest()[:16]

    def metadata(self) -> dict[str, Any]:
        meta = {"source": self.source, "kind": self.kind, "entities": self.entities, "date": self.date,
                "time": self.time, "confidence": self.confidence, "section": self.section, "type": self.type,
                "about": self.about}
        return {k: v for k, v in meta.items() if v not in (None, [], "")}

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def check_date(date: str) -> str:
    import datetime as _dt

    if not isinstance(date, str) or not DATE_RE.fullmatch(date):
        raise UsageError(f"invalid date {date!r}: use YYYY-MM-DD")
    try:
        _dt.date.fromisoformat(date)
    except ValueError:
        raise UsageError(f"invalid date {date!r}: no such day") from None
    return date
