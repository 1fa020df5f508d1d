"""Deterministic corpus generator: multi-session conversations between two people, and questions about them.

Every random choice comes from `random.Random(f"{seed}/{conversation}")` and never depends on a date, so a
seed gives the same words on any day; only the dates (counted back from `today`) and the date words that
follow from them ("in May 2025", "last week") move with `today`.
"""
from __future__ import annotations

import datetime as dt
import importlib
import random
from types import ModuleType
from typing import Any

from . import stories
from .cast import Ask, Cast, Line, Person, Story
from .model import LANGS, Conversation, Corpus, Question, Turn

CONVERSATIONS = {"en": 16, "zh": 8}          # a third Chinese
SMALL_CONVERSATIONS = {"en": 2, "zh": 1}
FOLLOW_CHANCE = 0.5                          # a story begun earlier is called back in a session
FILLER = (3, 6)                              # small-talk exchanges per session: most of a real chat is filler


def texts(lang: str) -> tuple[ModuleType, ModuleType]:
    """The story words and the small talk of a language."""
    return (importlib.import_module(f"{__package__}.text_{lang}"), importlib.import_module(f"{__package__}.talk_{lang}"))


def generate(seed: int, today: dt.date, small: bool = False, langs: tuple[str, ...] = LANGS) -> Corpus:
    convs: list[Conversation] = []
    questions: list[Question] = []
    for lang in langs:
        _, talk = texts(lang)
        names = list(talk.NAMES)
        random.Random(f"{seed}/{lang}/names").shuffle(names)
        for i in range((SMALL_CONVERSATIONS if small else CONVERSATIONS)[lang]):
            conv, qs = _conversation(f"{lang}{i:02d}", lang, random.Random(f"{seed}/{lang}{i:02d}"),
                                     names[2 * i:2 * i + 2], today, small)
            convs.append(conv)
            questions += qs
    return Corpus(seed, today, convs, questions)


def _person(rng: random.Random, talk: ModuleType, name: tuple[str, str], taken: set[str]) -> Person:
    def fresh(pool: list) -> Any:
        choice = rng.choice([p for p in pool if repr(p) not in taken])
        taken.add(repr(choice))
        return choice
    partner, city, sibling = fresh(talk.PARTNERS), fresh(talk.CITIES), fresh(talk.SIBLINGS)
    kid = fresh(talk.KIDS) if rng.random() < 0.5 else None
    return Person(name[0], name[1], partner, city, sibling, kid, tech=rng.random() < 0.45)


def _stories(rng: random.Random, text: ModuleType, people: list[Person], today: dt.date,
             small: bool) -> tuple[list[tuple[Person, Story]], int]:
    """Each person's stories, and which one closes the conversation (a recent event, asked as "last week")."""
    used: dict[str, set] = {}
    out: list[tuple[Person, Story]] = []
    for me, other in (people, people[::-1]):
        fits = [fn for fn in stories.ALL if stories.NEEDS.get(fn.__name__, lambda p: True)(me)]
        for fn in rng.sample(fits, 3 if small else rng.randint(6, 8)):
            cast = Cast(rng, text, me, other, used, today)
            cast.story = fn.__name__
            out.append((me, fn(cast)))
    recent = [i for i, (_, st) in enumerate(out) if st.recent]
    if not recent:  # every conversation ends with something recent to ask about
        cast = Cast(rng, text, people[0], people[1], used, today)
        cast.story = "purchase"
        out.append((people[0], stories.purchase(cast)))
        recent = [len(out) - 1]
    return out, rng.choice(recent)


def _place(rng: random.Random, tales: list[tuple[Person, Story]], closing: int, sessions: int) -> dict[int, list]:
    """Session → [(story index, step index)]: steps in order, `gap` sessions apart; the last session holds `closing`."""
    placed: dict[int, list] = {s: [] for s in range(sessions)}
    placed[sessions - 1].append((closing, 0))
    last = sessions - 2
    for i, (_, st) in enumerate(tales):
        if i == closing:
            continue
        n = len(st.steps)
        gap = min(st.gap, max(1, last // max(n - 1, 1)))
        pos = rng.randint(0, max(0, last - (n - 1) * gap))
        placed[pos].append((i, 0))
        for k in range(1, n):
            extra = rng.randint(0, 1)
            pos = min(pos + gap + extra, last - (n - 1 - k) * gap)
            placed[pos].append((i, k))
    return placed


def _schedule(rng: random.Random, today: dt.date, sessions: int, times: list[str]) -> list[tuple[dt.date, str]]:
    days = [today - dt.timedelta(days=rng.randint(1, 6))]
    while len(days) < sessions:
        days.append(days[-1] - dt.timedelta(days=rng.randint(6, 16)))
    return [(d, rng.choice(times)) for d in reversed(days)]


def _conversation(cid: str, lang: str, rng: random.Random, names: list, today: dt.date,
                  small: bool) -> tuple[Conversation, list[Question]]:
    text, talk = texts(lang)
    taken: set[str] = set()
    people = [_person(rng, talk, n, taken) for n in names]
    n_sessions = 5 if small else rng.randint(13, 16)
    schedule = _schedule(rng, today, n_sessions, talk.TIMES)
    tales, closing = _stories(rng, text, people, today, small)
    placed = _place(rng, tales, closing, n_sessions)
    near = {s: [] for s in range(n_sessions)}
    for i, (me, st) in enumerate(tales):
        for line in st.near:
            near[rng.randrange(n_sessions)].append((me, line))
    began = {i: s for s in sorted(placed, reverse=True) for i, k in placed[s] if k == 0}
    followed: set[int] = set()
    conv = Conversation(cid, lang, (people[0].name, people[1].name))
    keyed: dict[tuple[int, str], Turn] = {}
    for s, (day, time) in enumerate(schedule):
        follow = _followups(rng, talk, people, tales, [i for i, b in began.items() if b < s], followed, today)
        rows = _session(rng, talk, people, tales, placed[s], near[s], day, follow)
        for j, (speaker, words, key) in enumerate(rows):
            turn = Turn(f"{cid}-s{s:02d}-t{j:02d}", cid, lang, s, day.isoformat(), time, speaker, words)
            conv.turns.append(turn)
            if key is not None:
                keyed[key] = turn
    return conv, _questions(rng, cid, lang, text, tales, keyed)


def _session(rng: random.Random, talk: ModuleType, people: list[Person], tales: list[tuple[Person, Story]],
             steps: list[tuple[int, int]], near: list[tuple[Person, str]], day: dt.date,
             follow: list[list[tuple]]) -> list[tuple]:
    """One session's rows (speaker, words, (story, key) | None): greeting, episodes and callbacks to earlier
    ones among small talk, goodbye."""
    first = rng.randrange(2)
    blocks: list[list[tuple]] = []
    for i, k in steps:
        me, st = tales[i]
        other = people[1] if me is people[0] else people[0]
        lines: list[Line] = st.steps[k](day)
        pair = {"o": (me, other), "x": (other, me)}
        blocks.append([(pair[ln.who][0].name, _pad(rng, talk, *pair[ln.who], ln.text, 0.45 if ln.key else 0.2),
                        (i, ln.key) if ln.key else None) for ln in lines])
    blocks += [[(me.name, line, None)] for me, line in near]
    blocks += follow
    blocks += [_exchange(rng, talk, people, rng.choice(talk.SMALL)) for _ in range(rng.randint(*FILLER))]
    rng.shuffle(blocks)
    opener = _exchange(rng, talk, people[first:] + people[:first], rng.choice(talk.OPEN))
    closer = _exchange(rng, talk, people, rng.choice(talk.CLOSE))
    return opener + [row for block in blocks for row in block] + closer


def _followups(rng: random.Random, talk: ModuleType, people: list[Person], tales: list[tuple[Person, Story]],
               begun: list[int], followed: set[int], today: dt.date) -> list[list[tuple]]:
    """Callbacks in this session: once per story, a session or more after it began, the other person names
    what a question about it answers (the new dog's name, the new employer), the owner answers in passing."""
    out: list[list[tuple]] = []
    for i in begun:
        if i in followed or rng.random() >= FOLLOW_CHANCE:
            continue
        me, st = tales[i]
        state = rng.getstate()  # the questions are drawn later from the same generator: peek without drawing
        try:
            things = [a.answer for a in st.ask(lambda key: today) if a.mode == "text" and not a.when]
        except KeyError:  # a later step sets what its questions need
            things = []
        finally:
            rng.setstate(state)
        if not things:
            continue
        followed.add(i)
        other = people[1] if me is people[0] else people[0]
        ask = rng.choice(talk.FOLLOW).format(thing=rng.choice(things), partner=other.partner)
        out.append([(other.name, ask, None), (me.name, rng.choice(talk.FOLLOW_REPLY), None)])
    return out


def _pad(rng: random.Random, talk: ModuleType, me: Person, you: Person, text: str, chance: float,
         lead_ok: bool = True) -> str:
    """Sometimes a lead-in, a tail or both around the line (one message, several things)."""
    roll, lead, tail = rng.random(), rng.choice(talk.LEADS), rng.choice(talk.TAILS)
    if roll >= chance:
        return text
    fields = {"you": you.name, "yourpartner": you.partner, "partner": me.partner}
    parts = [text, tail] if not lead_ok or chance / 3 <= roll < 2 * chance / 3 else \
        [lead, text] if roll < chance / 3 else [lead, text, tail]
    return talk.JOIN.join(p.format(**fields) if p is not text else p for p in parts)


def _exchange(rng: random.Random, talk: ModuleType, people: list[Person], templates: list[str]) -> list[tuple]:
    """Small talk: speakers alternate (a random one starts); slots are shared by the exchange."""
    slots = {name: rng.choice(values) for name, values in talk.SLOTS.items()}
    slots.update(n=rng.choice(talk.NUMBERS), steps=f"{rng.choice(talk.STEPS):,}")
    start = rng.randrange(2)
    rows = []
    for j, template in enumerate(templates):
        me, you = people[(start + j) % 2], people[(start + j + 1) % 2]
        fields = dict(slots, you=you.name, yourpartner=you.partner, partner=me.partner, city=me.city)
        rows.append((me.name, _pad(rng, talk, me, you, template.format(**fields), 0.15, lead_ok=False), None))
    return rows


def _questions(rng: random.Random, cid: str, lang: str, text: ModuleType, tales: list[tuple[Person, Story]],
               keyed: dict[tuple[int, str], Turn]) -> list[Question]:
    asks: list[tuple[list[tuple[int, str]], list[str], Ask]] = []
    for i, (_, st) in enumerate(tales):
        for a in st.ask(lambda key, i=i: dt.date.fromisoformat(keyed[(i, key)].date)):
            asks.append(([(i, key) for key in a.evidence], list(a.evidence.values()), a))
    asks += _order_asks(rng, text, tales, keyed)
    return [Question(f"{cid}-q{n:03d}", cid, lang, a.kind, a.text, a.answer, tuple(keyed[r].id for r in refs),
                     tuple(clues), a.mode, a.when) for n, (refs, clues, a) in enumerate(asks)]


def _order_asks(rng: random.Random, text: ModuleType, tales: list[tuple[Person, Story]],
                keyed: dict[tuple[int, str], Turn]) -> list[tuple]:
    """"Which happened first, A or B?" over two dated events of one person (on different days)."""
    out: list[tuple] = []
    for person in {id(p): p for p, _ in tales}.values():
        events = [(i, ev) for i, (p, st) in enumerate(tales) if p is person for ev in st.events]
        rng.shuffle(events)
        pairs = [(a, b) for n, a in enumerate(events) for b in events[n + 1:]
                 if keyed[(a[0], a[1][1])].date != keyed[(b[0], b[1][1])].date]
        for (ia, (la, ka, ca)), (ib, (lb, kb, cb)) in pairs[:2]:
            first = ca if keyed[(ia, ka)].date < keyed[(ib, kb)].date else cb
            question = rng.choice(text.ORDER).format(o=person.name, a=la, b=lb)
            out.append(([(ia, ka), (ib, kb)], [ca, cb], Ask("multi-hop", question, first, {}, "order")))
    return out
