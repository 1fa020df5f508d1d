"""The knowledge benchmark's data: every text the agent is given (chat turns, note lines, stores) and the questions."""
from __future__ import annotations

import datetime as dt
from dataclasses import asdict, dataclass, field
from typing import Any

# where a text reaches memoryd
USER, AGENT, NOTE, STORE = "user", "assistant", "note", "store"
# what a text holds
FACT, FILLER, CHATTER, LOG = "fact", "filler", "chatter", "log"
# question kinds
CURRENT, STATIC, ENTITY = "current", "fact", "entity"


@dataclass(frozen=True)
class Version:
    """One value a topic held from `day` on (day index from the first day)."""

    topic: str
    index: int       # 0 = the first value told
    value: str
    day: int

    @property
    def fact(self) -> str:
        """The fact's identity: a topic and a value (the same value told again is the same fact)."""
        return f"{self.topic}={self.value}"


@dataclass(frozen=True)
class Input:
    """One text given to memoryd, with what it holds (the ground truth results are matched back to)."""

    id: str          # d03-s1-t04, d03-n2, d03-store1
    day: int
    channel: str     # user | assistant | note | store
    text: str
    holds: str       # fact | filler | chatter | log
    fact: str | None = None      # Version.fact when it states one
    session: str | None = None   # chat: the OpenClaw session id (turns in order; write.py gives their seqs)
    section: str | None = None   # note: "log" or "retain" (write.py gives the line numbers)
    category: str | None = None  # store: the category given


@dataclass(frozen=True)
class Question:
    id: str
    kind: str                    # current | fact | entity
    text: str
    about: str                   # the topic key, or the entity's name
    answers: tuple[str, ...]     # current values (an entity: the current value of each of its topics)
    stale: tuple[str, ...] = ()  # values the topic held before, never the current one


@dataclass
class Dataset:
    seed: int
    today: dt.date
    days: int
    inputs: list[Input] = field(default_factory=list)
    versions: list[Version] = field(default_factory=list)
    questions: list[Question] = field(default_factory=list)

    def date(self, day: int) -> str:
        """The calendar date of day index `day` (the last day is yesterday)."""
        return (self.today - dt.timedelta(days=self.days - day)).isoformat()

    def on(self, day: int) -> list[Input]:
        return [i for i in self.inputs if i.day == day]

    def counts(self) -> dict[str, int]:
        out = {c: sum(i.channel == c for i in self.inputs) for c in (USER, AGENT, NOTE, STORE)}
        out["turns"] = out[USER] + out[AGENT]
        out["inputs"] = len(self.inputs)
        out["filler"] = sum(i.holds == FILLER for i in self.inputs)
        out["fact_texts"] = sum(i.holds == FACT for i in self.inputs)
        out["changes"] = sum(v.index > 0 for v in self.versions)
        return out

    def as_dict(self) -> dict[str, Any]:
        return {"seed": self.seed, "today": self.today.isoformat(), "days": self.days,
                "inputs": [asdict(i) for i in self.inputs], "versions": [asdict(v) for v in self.versions],
                "questions": [asdict(q) for q in self.questions]}
