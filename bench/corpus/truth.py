"""What a parsed conversation holds as ground truth: each topic's values in time, the changes, the questions."""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from .parse import Conversation, CorpusError, Said, Turn


@dataclass(frozen=True)
class Change:
    topic: str
    old: str
    new: str
    turn: str       # the turn that said the new value


@dataclass(frozen=True)
class Question:
    id: str
    topic: str
    text: str
    changes: bool
    answers: tuple[str, ...]   # the current value's canonical form and every wording the text used for it
    stale: tuple[str, ...]     # earlier values (all wordings) never equal to the current one


class Truth:
    """Timelines of one conversation's topics, read in the order the turns were said."""

    def __init__(self, conv: Conversation) -> None:
        self.conv = conv
        self.timeline: dict[str, list[tuple[Turn, Said]]] = {k: [] for k in conv.topics}
        for turn in conv.turns:
            for said in turn.said:
                self.timeline[said.topic].append((turn, said))
        self.turns = {t.id: t for t in conv.turns}

    def wordings(self, topic: str, value: str) -> tuple[str, ...]:
        words = {value} | {s.written for _, s in self.timeline[topic] if s.value == value}
        return tuple(sorted(words, key=str.casefold))

    def current(self, topic: str) -> str | None:
        said = self.timeline[topic]
        return said[-1][1].value if said else None

    def values(self, topic: str) -> list[str]:
        out: list[str] = []
        for _, s in self.timeline[topic]:
            if s.value not in out:
                out.append(s.value)
        return out

    def changes(self) -> list[Change]:
        out = []
        for topic, said in self.timeline.items():
            for (_, a), (turn, b) in zip(said, said[1:]):
                if a.value != b.value:
                    out.append(Change(topic, a.value, b.value, turn.id))
        return out

    def value_at(self, topic: str, turn_id: str) -> str | None:
        """The topic's value as of `turn_id` (inclusive), None before it was first said."""
        value = None
        for turn, said in self.timeline[topic]:
            if turn.line > self.turns[turn_id].line:
                break
            value = said.value
        return value

    def questions(self) -> list[Question]:
        out = []
        for key, topic in self.conv.topics.items():
            now = self.current(key)
            if now is None:
                continue
            answers = self.wordings(key, now)
            stale = tuple(w for v in self.values(key) if v != now for w in self.wordings(key, v)
                          if w.casefold() not in {a.casefold() for a in answers})
            out.append(Question(f"{self.conv.slug}:{key}", key, topic.question, topic.changes, answers, stale))
        return out

    def check(self) -> None:
        """CorpusError where a topic's tags contradict its declaration."""
        for key, topic in self.conv.topics.items():
            values = self.values(key)
            if not values:
                raise CorpusError(self.conv.path, 1, f"topic {key!r} is declared but no line states it")
            if topic.changes and not any(c.topic == key for c in self.changes()):
                raise CorpusError(self.conv.path, 1, f"topic {key!r} is 'changes' but its value never changes")
            if not topic.changes and len(values) > 1:
                line = next(t.line for t, s in self.timeline[key] if s.value != values[0])
                raise CorpusError(self.conv.path, line, f"stable topic {key!r} gets a second value {values[1]!r}")

    def counts(self) -> dict[str, int]:
        by = Counter(t.speaker for t in self.conv.turns)
        sections = Counter(t.section for t in self.conv.turns)
        changing = [k for k, t in self.conv.topics.items() if t.changes]
        return {
            "turns": by["user"] + by["assistant"], "user": by["user"], "assistant": by["assistant"],
            "note_lines": by["note"], "stores": by["store"],
            "sessions": len({t.session for t in self.conv.turns}),
            "days": len({t.date for t in self.conv.turns}),
            "chat_notes_turns": sections["chat-notes"], "chat_openclaw_turns": sections["chat-openclaw"],
            "topics_changing": len(changing), "topics_stable": len(self.conv.topics) - len(changing),
            "changes": len(self.changes()),
            "topics_changing_twice": sum(1 for k in changing if len(self.values(k)) > 2
                                         or sum(c.topic == k for c in self.changes()) > 1),
            "fact_lines": sum(1 for t in self.conv.turns if t.said),
            "entities": len(self.conv.entities), "lessons": sum(t.lesson for t in self.conv.turns),
            "chinese_turns": sum(1 for t in self.conv.turns if any("\u4e00" <= ch <= "\u9fff" for ch in t.text)),
        }
