"""`ingest-daily --all` on two cores: a helper process (tiers/ingest/helper.py) reads and rates the next
batch of daily notes (parse, read_content, importance, the store's prepare_many) while this process
stores the current one. Pure work only: every write stays with the caller, under the agent lock."""
from __future__ import annotations

import dataclasses
import operator
from pathlib import Path
from typing import Any

from memoryd.tiers.ingest.ledgers import peek_ledgers
from memoryd.tiers.ingest.note_fact import NoteFact
from memoryd.tiers.ingest.note_parse import read_notes
from memoryd.tiers.ingest.note_rules import note_item, read_content


def has_new(agent_dir: Path, facts: list[NoteFact]) -> bool:
    """Some of these facts are not in their notes' ledgers (read without the lock: a hint only)."""
    known = peek_ledgers(agent_dir, {f.date for f in facts})
    return any(f.key not in known for f in facts)


def read_ahead(files: list[tuple[str, Path]], agent_dir: Path, share: float = 1.0
               ) -> tuple[list[str], list[NoteFact], list[str], list]:
    """The helper process's job: read_notes, then the per-fact rules (read_content, importance and the
    store's prepare_many) of the first `share` of the facts their ledgers do not hold yet; None where
    they were not run (the caller runs them)."""
    days, facts, warnings = read_notes(files, False)
    return days, facts, warnings, _rate(facts, days, agent_dir, share)


def _rate(facts: list[NoteFact], days: list[str], agent_dir: Path, share: float) -> list[tuple[Any, Any] | None]:
    from memoryd.tiers.distillation.prepare import prepare_many

    known = peek_ledgers(agent_dir, days)
    new = [i for i, fact in enumerate(facts) if fact.key not in known]
    items: dict[int, Any] = {}
    for i in new[:round(share * len(new))]:
        try:
            read_content(facts[i])
            items[i] = note_item(facts[i])
        except Exception:  # the store path runs it again and reports the error as it always did
            facts[i].classified = False
    try:
        prepared = dict(zip(items, prepare_many(list(items.values()))))
    except Exception:  # one bad fact: the others one by one, the bad one left to the store path
        prepared = {}
        for i, item in items.items():
            try:
                prepared[i] = prepare_many([item])[0]
            except Exception:
                facts[i].classified = False
    return [(items[i], prepared[i]) if i in prepared else None for i in range(len(facts))]


_FIELDS = tuple(f.name for f in dataclasses.fields(NoteFact))
_as_tuple = operator.attrgetter(*_FIELDS)


def read_ahead_packed(files: list[tuple[str, Path]], agent_dir: Path, share: float = 1.0) -> tuple:
    """read_ahead as the helper sends it back: facts as tuples of their fields, only the prepared half
    of each (item, prepared) (a third of the pickle, ~4 -> 1 ms of a batch's two processes), and what
    the job cost: CPU seconds reading, CPU seconds rating, facts rated."""
    from time import process_time

    start = process_time()
    days, facts, warnings = read_notes(files, False)
    read = process_time()
    ready = _rate(facts, days, agent_dir, share)
    costs = (read - start, process_time() - read, sum(r is not None for r in ready))
    return days, [_as_tuple(f) for f in facts], warnings, [None if r is None else r[1] for r in ready], costs


def unpack(got: tuple) -> tuple[list[str], list[NoteFact], list[str], list]:
    """read_ahead_packed's answer as read_ahead gives it (a prepared store is an item itself)."""
    days, rows, warnings, prepared = got[:4]
    return days, [NoteFact(*row) for row in rows], warnings, [None if p is None else (p[:4], p) for p in prepared]


class Ahead:
    """A helper reading batches ahead, its share of the rating set so that its CPU time per batch
    matches this process's time on the batch (wall clock: writes wait for the disk here, and the
    helper works meanwhile): after each batch the rating that makes up the difference moves to the
    side that had less (half of it, against noise). (Before: a fixed step up or down by whether the
    answer was there; it swung ±15 % around the balance and one side waited ~0.1 s a year.)"""

    def __init__(self, helper: Any) -> None:
        self.helper, self.share, self.answers = helper, 0.8, 0  # about where it settles on 2 cores
        self.cost: tuple[float, float, int] | None = None  # the last answer's (read, rate, rated)

    def submit(self, batch: list[tuple[str, Path]], agent_dir: Path) -> None:
        self.helper.submit(batch, agent_dir, self.share)

    def take(self) -> Any:
        got = self.helper.take()
        self.answers += 1
        # the first answer paid for the helper's start: not a measure of a batch
        self.cost = got[4] if got is not None and self.answers > 1 else None
        return None if got is None else unpack(got)

    def done(self, seconds: float, new: int) -> None:
        """This process spent `seconds` on the batch last taken (not counting the wait for it),
        which held `new` facts to rate."""
        if self.cost is None or new <= 0:
            return
        read, rate, rated = self.cost
        if rated <= 0:
            self.share = min(1.0, self.share + 0.1)  # no measure of the rating: try giving it some
            return
        per_fact = rate / rated
        move = (seconds - read - rate) / (2 * per_fact)  # facts to move to the helper (negative: back here)
        target = min(1.0, max(0.0, (rated + move) / new))
        self.share = round((self.share + target) / 2, 3)

    def close(self) -> None:
        self.helper.close()


def idle_cores() -> Any:
    """A helper.IdleCores measuring from now."""
    from memoryd.tiers.ingest.helper import IdleCores

    return IdleCores()


def start_helper(always: bool = False, idle: Any = None) -> Ahead | None:
    """A helper process for read_ahead, or None: when a core is idle (unless `always`); `idle`: a
    helper.IdleCores that measures it."""
    from memoryd.tiers.ingest import helper

    if not helper.usable(idle_core=not always, idle=idle):
        return None
    try:
        return Ahead(helper.Helper(f"{__name__}:read_ahead_packed"))
    except OSError:
        return None
