"""The benchmark's data: turns of generated conversations and questions labelled with their evidence turns."""
from __future__ import annotations

import datetime as dt
from dataclasses import asdict, dataclass, field
from typing import Any

KINDS = ("single-fact", "multi-hop", "temporal", "open-domain")
LANGS = ("en", "zh")
# How a question's answer follows from its evidence (tests check each one):
#   text  the answer is written in one of the evidence turns
#   date  the answer is the date the clue (a relative phrase such as "yesterday") names, seen from the note's date
#   count the answer is how many evidence turns there are (one per counted thing, each naming it)
#   world the answer is world knowledge about the clue (Lyon → France), from the language's WORLD table
#   order the answer is the clue of the earliest evidence turn ("which came first")
MODES = ("text", "date", "count", "world", "order")


@dataclass(frozen=True)
class Turn:
    id: str            # en03-s05-t012
    conv: str          # en03
    lang: str
    session: int
    date: str          # YYYY-MM-DD: the daily note it is written to
    time: str          # HH:MM: the session's heading in that note
    speaker: str
    text: str

    @property
    def line(self) -> str:
        """The turn as a memory: the speaker's name, then what they said."""
        return f"{self.speaker}{'：' if self.lang == 'zh' else ': '}{self.text}"


@dataclass(frozen=True)
class Question:
    id: str
    conv: str
    lang: str
    kind: str
    text: str
    answer: str
    evidence: tuple[str, ...]      # turn ids; a hit is any of them in the top k
    clues: tuple[str, ...]         # one per evidence turn: a phrase that turn contains
    mode: str = "text"
    when: str | None = None        # a date expression in the question ("May 2025", "last week", "上周")


@dataclass
class Conversation:
    id: str
    lang: str
    speakers: tuple[str, str]
    turns: list[Turn] = field(default_factory=list)


@dataclass
class Corpus:
    seed: int
    today: dt.date
    conversations: list[Conversation]
    questions: list[Question]

    @property
    def turns(self) -> list[Turn]:
        return [t for c in self.conversations for t in c.turns]

    def turn_index(self) -> dict[str, Turn]:
        return {t.id: t for t in self.turns}

    def as_dict(self) -> dict[str, Any]:
        return {"seed": self.seed, "today": self.today.isoformat(),
                "conversations": [{"id": c.id, "lang": c.lang, "speakers": list(c.speakers),
                                   "turns": [asdict(t) for t in c.turns]} for c in self.conversations],
                "questions": [asdict(q) for q in self.questions]}
