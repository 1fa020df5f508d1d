"""The story engine's parts: people, lines of dialogue, questions asked of them, and the Cast that fills templates."""
from __future__ import annotations

import datetime as dt
import random
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, Callable


@dataclass
class Person:
    name: str
    gender: str                       # f | m (pronouns)
    partner: str
    city: str
    sibling: tuple[str, str]          # (name, gender)
    kid: tuple[str, str] | None       # (name, gender)
    tech: bool                        # runs servers (the port story)


@dataclass
class Line:
    who: str                          # o (the story's owner) | x (the other speaker)
    text: str
    key: str | None = None            # names the line for the story's questions


@dataclass
class Ask:
    kind: str
    text: str
    answer: str
    evidence: dict[str, str]          # line key → clue the line contains
    mode: str = "text"
    when: str | None = None


@dataclass
class Story:
    name: str
    steps: list[Callable[[dt.date], list[Line]]]
    ask: Callable[[Callable[[str], dt.date]], list[Ask]]   # given the date each line key landed on
    gap: int = 2                      # sessions between two steps
    recent: bool = False              # a one-step story that may close the conversation (asked as "last week")
    events: list[tuple[str, str, str]] = field(default_factory=list)   # (label, line key, clue) for "which came first"
    near: list[str] = field(default_factory=list)   # near-miss lines (same words, other facts) said elsewhere


class Cast:
    """Fills one story's templates for its owner and the other speaker; picks pool items once per conversation."""

    def __init__(self, rng: random.Random, text: ModuleType, owner: Person, other: Person, used: dict[str, set],
                 today: dt.date) -> None:
        self.rng, self.text, self.owner, self.other, self.used, self.today = rng, text, owner, other, used, today
        self.lang: str = text.LANG
        self.story = ""

    def pick(self, pool: str) -> Any:
        """An item of the pool not yet used in this conversation (the first unused after a random start)."""
        items = self.text.POOLS[pool]
        seen = self.used.setdefault(pool, set())
        start = self.rng.randrange(len(items))
        for i in range(len(items)):
            item = items[(start + i) % len(items)]
            if repr(item) not in seen:
                seen.add(repr(item))
                return item
        return items[start]

    def fields(self, **extra: Any) -> dict[str, Any]:
        o, x = self.owner, self.other
        f: dict[str, Any] = {"o": o.name, "x": x.name, "partner": o.partner, "city": o.city,
                             "sib": o.sibling[0], **self.text.pronouns(o.gender, ""),
                             **self.text.relation(o.sibling[1], "sib"), **self.text.pronouns(x.gender, "x")}
        if o.kid:
            f.update(kid=o.kid[0], **self.text.relation(o.kid[1], "kid"))
        f.update(extra)
        return f

    def say(self, key: str, f: dict[str, Any]) -> str:
        options = self.text.STORY[self.story][key]
        template = options if isinstance(options, str) else self.rng.choice(options)
        return template.format(**f)

    def line(self, who: str, key: str, f: dict[str, Any], name: str | None = None) -> Line:
        return Line(who, self.say(key, f), name)

    def near(self, f: dict[str, Any]) -> list[str]:
        return [t.format(**f) for t in self.text.STORY[self.story].get("near", [])]
