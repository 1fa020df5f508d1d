"""Weeks of an owner's chats with an agent, daily notes and store calls, generated from a seed.

Each topic of the world (bench/knowledge/world.py) gets one or more versions over the weeks; each version
is told once (in chat, directly or in passing, in a note's Retain line, or by a store call) and restated
(the note's wording of what was said in chat, a store call, a reminder days later, the agent echoing it).
Around them: filler exchanges, small talk naming people, log lines in notes. The same seed and `today`
give the same dataset; the words do not depend on `today` (only the dates do).
"""
from __future__ import annotations

import datetime as dt
import random
from dataclasses import dataclass, field

from .model import AGENT, CHATTER, CURRENT, ENTITY, FACT, FILLER, LOG, NOTE, STATIC, STORE, USER, Dataset, Input, \
    Question, Version
from .world import ASKED, CHATTER_ZH, ENTITIES, ENTITY_ASK, FILLER_AGENT, FILLER_TOPICAL, FILLER_USER, NOTE_LOG, \
    NOTE_OPINIONS, REMIND, TOPICS, Topic, entity
from . import world

SMALL_DAYS, FULL_DAYS = 21, 84


@dataclass
class _Day:
    chat: list[tuple[Version, str]] = field(default_factory=list)   # (version, what the owner says)
    note: list[Version] = field(default_factory=list)
    store: list[Version] = field(default_factory=list)


def _values(rng: random.Random, topic: Topic, k: int) -> list[str]:
    """k values in the order they are told: in order, or at random with no value twice in a row."""
    if topic.ordered:
        return list(topic.values[:k])
    if topic.revert and k == 3:
        first, second = rng.sample(topic.values, 2)
        return [first, second, first]
    out = rng.sample(topic.values, min(k, len(topic.values)))
    while len(out) < k:  # the full run changes more often than there are values: some come back
        out.append(rng.choice([v for v in topic.values if v != out[-1]]))
    return out


def _versions(rng: random.Random, topic: Topic, days: int, small: bool) -> list[Version]:
    most = topic.changes if small or topic.ordered else topic.changes + 2
    k = 1 if topic.changes == 1 else rng.randint(2, most)
    width = days / k
    out = []
    for i, value in enumerate(_values(rng, topic, k)):
        lo = int(i * width)
        day = lo + rng.randrange(max(1, int(width * 0.6)))
        out.append(Version(topic.key, i, value, min(day, days - 1)))
    return out


def _plan(rng: random.Random, versions: list[Version], days: int, small: bool) -> dict[int, _Day]:
    """Where and when each version is told and restated."""
    plan: dict[int, _Day] = {d: _Day() for d in range(days)}
    topics = {t.key: t for t in TOPICS}
    for i, v in enumerate(versions):
        topic = topics[v.topic]
        nxt = next((w.day for w in versions[i + 1:] if w.topic == v.topic), days)
        r = rng.random()
        day = plan[v.day]
        if r < 0.7:
            day.chat.append((v, rng.choice(topic.say if r < 0.45 else topic.hint)))
            if rng.random() < 0.6:
                day.note.append(v)        # the note's wording of what was said in chat
            if rng.random() < 0.2:
                day.store.append(v)
        elif r < 0.85:
            day.note.append(v)
            if rng.random() < 0.15:
                day.store.append(v)
        else:
            day.store.append(v)
        reminders = (1 if small else 2) if topic.changes == 1 else 1
        for _ in range(reminders):
            if nxt - v.day > 1 and rng.random() < (0.5 if topic.changes == 1 else 0.3):
                later = rng.randrange(v.day + 1, nxt)
                plain = topic.note.split(": ", 1)[1]   # the note's words without "W @x:" ("Garage code is {v}.")
                plan[later].chat.append((v, rng.choice(REMIND[topic.lang]).format(s=plain)))
    return plan


class _Writer:
    """Collects the inputs of one day in order, with ids."""

    def __init__(self, rng: random.Random, day: int, out: list[Input]) -> None:
        self.rng, self.day, self.out = rng, day, out
        self.session, self.number = "", 0
        self.turn = 0
        self.notes = 0
        self.stores = 0

    def start(self, n: int, date: str) -> None:
        self.session, self.number, self.turn = f"kb-{date}-{n}", n, 0

    def say(self, channel: str, text: str, holds: str, fact: str | None = None) -> None:
        self.out.append(Input(f"d{self.day:02d}-{self.number}-t{self.turn:02d}", self.day, channel, text, holds,
                              fact, session=self.session))
        self.turn += 1

    def filler(self, lang: str = "en") -> None:
        for channel, lines in ((USER, FILLER_USER), (AGENT, FILLER_AGENT)):
            topical = lang == "en" and self.rng.random() < 0.25
            self.say(channel, self.rng.choice(FILLER_TOPICAL[channel] if topical else lines[lang]), FILLER)

    def chatter(self) -> None:
        who = self.rng.choice([e for e in ENTITIES if e.kind == world.PERSON])
        lines = CHATTER_ZH if who.lang == "zh" else CHATTER
        self.say(USER, self.rng.choice(lines).format(name=who.name), CHATTER)
        self.say(AGENT, self.rng.choice(FILLER_AGENT["en"]), FILLER)

    def note(self, text: str, holds: str, section: str, fact: str | None = None) -> None:
        self.notes += 1
        self.out.append(Input(f"d{self.day:02d}-n{self.notes}", self.day, NOTE, text, holds, fact, section=section))

    def store(self, text: str, category: str, fact: str) -> None:
        self.stores += 1
        self.out.append(Input(f"d{self.day:02d}-store{self.stores}", self.day, STORE, text, FACT, fact,
                              category=category))


def _session(w: _Writer, told: list[tuple[Version, str]], topics: dict[str, Topic]) -> None:
    rng = w.rng
    w.filler()
    for v, said in told:
        topic = topics[v.topic]
        if rng.random() < 0.5:
            if rng.random() < 0.6:
                w.filler()
            else:
                w.chatter()
        w.say(USER, said.format(v=v.value), FACT, v.fact)
        if rng.random() < 0.4:
            w.say(AGENT, topic.echo.format(v=v.value), FACT, v.fact)   # the agent repeats the value back
        else:
            w.say(AGENT, rng.choice(FILLER_AGENT[topic.lang]), FILLER)
    if rng.random() < 0.4:
        w.chatter()
    if rng.random() < 0.6:
        w.filler()


def _day(rng: random.Random, ds: Dataset, d: int, todo: _Day, small: bool) -> None:
    topics = {t.key: t for t in TOPICS}
    w = _Writer(rng, d, ds.inputs)
    sessions = 2 if not small and len(todo.chat) > 1 and rng.random() < 0.5 else 1
    if todo.chat or rng.random() < 0.6:
        cut = rng.randint(1, len(todo.chat) - 1) if sessions == 2 else len(todo.chat)
        for n, told in enumerate((todo.chat[:cut], todo.chat[cut:])[:sessions], start=1):
            w.start(n, ds.date(d))
            _session(w, told, topics)
            if not small:
                for _ in range(rng.randint(0, 3)):
                    w.filler()
    if todo.note or rng.random() < 0.3:
        w.note(rng.choice(NOTE_LOG), LOG, "log")
        for v in todo.note:
            w.note(topics[v.topic].note.format(v=v.value), FACT, "retain", v.fact)
        if rng.random() < 0.25:
            w.note(rng.choice(NOTE_OPINIONS), LOG, "retain")
    for v in todo.store:
        topic = topics[v.topic]
        w.store(topic.store.format(v=v.value), entity(topic.entity).category, v.fact)


def _questions(versions: list[Version]) -> list[Question]:
    out: list[Question] = []
    current: dict[str, str] = {}
    for topic in TOPICS:
        mine = [v for v in versions if v.topic == topic.key]
        now = mine[-1].value
        current[topic.key] = now
        stale = tuple(dict.fromkeys(v.value for v in mine[:-1] if v.value != now))
        kind = CURRENT if len(mine) > 1 else STATIC
        out.append(Question(f"{kind}-{topic.key}", kind, topic.ask, topic.key, (now,), stale))
    for i, e in enumerate(x for x in ENTITIES if x.kind in ASKED):
        asks = ENTITY_ASK[e.lang]
        values = tuple(current[t.key] for t in TOPICS if t.entity == e.name)
        out.append(Question(f"entity-{e.handle}", ENTITY, asks[i % len(asks)].format(name=e.name), e.name, values))
    return out


def generate(seed: int, today: dt.date, small: bool = False) -> Dataset:
    """The dataset: `days` days ending the day before `today` (21 with `small`, else 84)."""
    rng = random.Random(seed)
    days = SMALL_DAYS if small else FULL_DAYS
    ds = Dataset(seed, today, days)
    for topic in TOPICS:
        ds.versions += _versions(rng, topic, days, small)
    plan = _plan(rng, sorted(ds.versions, key=lambda v: (v.day, v.topic, v.index)), days, small)
    for d in range(days):
        _day(rng, ds, d, plan[d], small)
    ds.questions = _questions(ds.versions)
    return ds
