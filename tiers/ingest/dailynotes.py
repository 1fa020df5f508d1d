"""`ingest-daily`: the facts of daily notes (memory/YYYY-MM-DD.md) stored into an agent's memory, batch by
batch under its lock, each month's ledger saying what was stored already (re-ingesting is a no-op)."""
from __future__ import annotations

from contextlib import nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from memoryd.tiers.base.errors import UsageError
from memoryd.tiers.base.progress import Progress, current_progress
from memoryd.tiers.ingest.ledgers import load_ledgers, split_old_ledger, write_ledgers
from memoryd.tiers.ingest.note_fact import DATE_RE, NoteFact, check_date
from memoryd.tiers.ingest.note_parse import parse_note, read_notes  # noqa: F401 - parse_note: tests/benchmarks
from memoryd.tiers.ingest.note_rules import note_item, read_content
from memoryd.tiers.ingest.notes_ahead import Ahead, has_new, idle_cores, start_helper

if TYPE_CHECKING:
    from memoryd.tiers.memory.agent import AgentMemory
    from memoryd.tiers.memory.types import AgentState

BATCH_NOTES = 16           # `--all`: notes stored per write (one warm write per batch, not per note)
FIRST_BATCH_NOTES = 24  # this process alone while the helper starts: its answer for the second is there ~1 ms after
AHEAD_BATCHES = 2  # handed to the helper at a time: it never waits for its next job, nor this process for
                   # an answer when one batch takes a little longer on either side


def note_files(workspace: Path, date: str | None = None, all_: bool = False) -> list[tuple[str, Path]]:
    """The daily notes to read: one date, or every memory/YYYY-MM-DD.md in date order."""
    folder = Path(workspace) / "memory"
    if not all_:
        assert date is not None
        return [(check_date(date), folder / f"{date}.md")]
    if not folder.is_dir():
        return []
    out = []
    for path in sorted(folder.glob("*.md")):
        stem = path.stem
        if DATE_RE.match(stem):
            try:
                out.append((check_date(stem), path))
            except UsageError:
                continue  # 2026-13-40.md is not a daily note
    return out


def ingest(mem: AgentMemory, workspace: Path, date: str | None = None, all_: bool = False,
           progress: Progress | None = None, ahead: bool | None = None) -> dict[str, Any]:
    """Store the facts of daily notes into `mem` (an AgentMemory); re-ingesting a fact is a no-op.

    `--all` reads and rates the next batch in a helper process while this one stores the current
    batch when a core is idle (`ahead` None), always (True) or never (False); the result is the same.

    Each month of notes has its ledger (`ingested/YYYY-MM.json`: content keys of what was stored),
    read and written with the stores of a batch of notes under the agent lock, so a crash repeats at
    most one batch's stores (which reinforce rather than duplicate) and the cost per note stays flat.
    """
    import time as _time

    if date is None and not all_:
        date = _time.strftime("%Y-%m-%d", _time.localtime(mem.clock()))
        explicit = False
    else:
        explicit = not all_
    report: dict[str, Any] = {"files": 0, "facts": 0, "stored": 0, "skipped": 0, "by_kind": {}, "warnings": []}
    files = note_files(workspace, date, all_)
    advance = (progress or current_progress()).start("daily notes", len(files))
    # the first batch is read here while a helper starts (~0.1 s): larger, so the helper's answer for
    # the second is there when this process is done with it
    batches = [files[:FIRST_BATCH_NOTES]] + [files[start:start + BATCH_NOTES]
                                            for start in range(FIRST_BATCH_NOTES, len(files), BATCH_NOTES)]
    batches = batches if files else []  # no notes: no batch (that would take the lock, making the agent)
    helper: Ahead | None = None
    idle = idle_cores() if len(batches) > 1 and ahead is None else None  # measured from here, not the last minute
    # a bulk ingest's batches arrive in the local index as one import (hybrid: one choice to embed inline or not)
    together = mem.archive.arrivals_together() if len(batches) > 1 and mem.archive is not None else nullcontext()
    with together:
        try:
            for n, batch in enumerate(batches):
                got = helper.take() if helper is not None else None
                busy, stored = _time.perf_counter(), report["stored"]  # the clock: this side waits for its disk too
                if helper is not None and n + AHEAD_BATCHES < len(batches):
                    helper.submit(batches[n + AHEAD_BATCHES], Path(mem.dir))  # read while this batch is stored
                days, facts, warnings, ready = got if got is not None else (*read_notes(batch, explicit), None)
                if helper is None and ahead is not False and n + 1 < len(batches) and \
                        has_new(Path(mem.dir), facts):
                    # new facts, more batches: a helper starts on the next batches while this one is stored
                    # (a re-ingest with nothing new never starts one)
                    helper = start_helper(always=bool(ahead), idle=idle)
                    if helper is not None:
                        for later in batches[n + 1:n + 1 + AHEAD_BATCHES]:
                            helper.submit(later, Path(mem.dir))
                report["files"] += len(days)
                report["facts"] += len(facts)
                report["warnings"] += warnings
                with mem.exclusive():  # per batch, so a year of notes does not block the daemon's other work
                    _store_batch(mem, days, facts, report, ready)
                if got is not None and helper is not None:
                    helper.done(_time.perf_counter() - busy, report["stored"] - stored)
                advance(len(batch))
        finally:
            if helper is not None:
                helper.close()
    report["dates"] = [d for d, p in files if p.is_file()]
    return report


def _store_batch(mem: AgentMemory, days: list[str], facts: list[NoteFact], report: dict[str, Any],
                 ready: list | None) -> None:
    """The batch's ledgers, its new facts stored, the ledgers written (caller holds the lock)."""
    split_old_ledger(Path(mem.dir))
    ledger = load_ledgers(Path(mem.dir), days)
    before = dict(ledger)
    try:
        _ingest_facts(mem, facts, ledger, report, ready)
    finally:
        changed = {d for k, d in ledger.items() if k not in before}
        if changed:  # a no-op re-ingest writes nothing
            write_ledgers(Path(mem.dir), ledger, changed)


def _ingest_facts(mem: AgentMemory, facts: list[NoteFact], ledger: dict[str, str], report: dict[str, Any],
                  ready: list | None = None) -> None:
    """Store the new facts of a batch and their hot changes in one write of the state.
    `ready`: per fact, (item, prepared) from read_ahead, or None where it is to be done here."""
    fresh = [i for i, f in enumerate(facts) if f.key not in ledger]
    report["skipped"] += len(facts) - len(fresh)
    new = [facts[i] for i in fresh]
    done_ahead = [ready[i] if ready is not None else None for i in fresh]
    for fact, ahead in zip(new, done_ahead):
        if ahead is None and not fact.classified:  # only what will be stored is read for meaning
            read_content(fact)
    items = [ahead[0] if ahead is not None else note_item(fact) for fact, ahead in zip(new, done_ahead)]
    if not items:
        return
    # a helper did this part already where ready says so
    prepared = [ahead[1] if ahead is not None else None for ahead in done_ahead] if ready is not None else None
    hot: list[str] = []
    step = _hot_step(new)  # the hot changes go in the same write as the stores
    then: tuple[Callable[[AgentState, float, list[dict]], None], str] | None = None
    if step is not None:
        change = step
        then = (lambda state, now, stored: hot.extend(change(state, now, stored)), "daily note")
    mem.store_many(items, prepared=prepared, then=then)  # one load/write for the whole batch
    for fact in new:
        ledger[fact.key] = fact.date
        report["stored"] += 1
        report["by_kind"][fact.kind] = report["by_kind"].get(fact.kind, 0) + 1
    if step is not None:
        report.setdefault("hot", []).extend(hot)


def _hot_step(facts: list[NoteFact]) -> Callable[[AgentState, float, list[dict]], list[str]] | None:
    """The step putting explicit lessons in hot lessons, dated tasks/events in hot and owner preferences in
    the owner profile, each hot item keeping the memory it came from; None when there are none."""
    from memoryd.tiers.distillation.fact_rules import KIND_FLOOR, Fact
    from memoryd.tiers.ingest.hot_updates import hot_changes

    chosen = [i for i, f in enumerate(facts) if f.type is not None and (
        f.type == "lesson" or (f.type in ("task", "event") and f.about) or f.profile_key)]
    if not chosen:
        return None
    explicit = [Fact(f.type, f.text, f.category, KIND_FLOOR[f.type], f.about, f.profile_key)
                for f in (facts[i] for i in chosen)]

    def step(state: AgentState, now: float, stored: list[dict]) -> list[str]:
        sources = [stored[i]["id"] if i < len(stored) else None for i in chosen]
        return hot_changes(explicit, sources=sources)(state, now)
    return step
