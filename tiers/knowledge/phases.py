"""Consolidation as named phases in seed 001's order, resumable: each mode's run is journalled phase by
phase (phase_journal.py), so a run killed inside a phase continues there, and nothing done is redone twice.

    collect → filter → extract → maintain (merge, verify, summarise, entities) → decay → restructure
    → index → snapshot

Which phases a mode runs is PLAN[mode] (quick only the cheap ones; daily, monthly and full add the maintain
phases; monthly and full add decay and restructure). Test hook (explicit, documented): when the environment
variable MEMORYD_TEST_HALT names a halt point — a phase's name (its work done, the journal not yet told) or
one of the points inside a phase (`filter:archived`, `summarise:logged`, `restructure:cold-moved`) — the
process kills itself there with SIGKILL, as a power cut would (tests/system/test_phase_kills.py).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from memoryd.tiers.base.halt import halt
from memoryd.tiers.knowledge.phase_journal import Journal

if TYPE_CHECKING:
    from memoryd.tiers.memory.agent import AgentMemory

MAINTAIN = ("merge", "verify", "summarise", "entities")
ORDER = ("collect", "filter", "extract", *MAINTAIN, "decay", "restructure", "index", "snapshot")
PLAN = {
    "quick": ("collect", "filter", "extract", "snapshot"),
    "daily": ("collect", "filter", "extract", *MAINTAIN, "index", "snapshot"),
    "monthly": ORDER,
    "full": ORDER,
}


class PhaseRun:
    """What a phase is given: the agent's memory, the run's id and the time the run is pinned to."""

    def __init__(self, mem: AgentMemory, mode: str, run: str, now: float) -> None:
        self.mem, self.mode, self.run, self.now = mem, mode, run, now


Phase = Callable[[PhaseRun], dict[str, int]]


def run_phases(mem: AgentMemory, mode: str, phases: dict[str, Phase]) -> tuple[dict[str, int], dict[str, object]]:
    """Run PLAN[mode]'s phases not yet done in this mode's current run; returns (counts, about) where
    about = {"run", "resumed", "phases": the phases this call ran, "skipped": those done before a kill}.
    A phase that raises leaves the journal as it was: the next run of the mode starts with that phase."""
    with mem.exclusive():
        journal = Journal(mem, mode)
        journal.start()
    ctx = PhaseRun(mem, mode, journal.run, journal.now)
    ran: list[str] = []
    for name in PLAN[mode]:
        if name in journal.done:
            continue
        counts = phases[name](ctx)
        halt(name)
        with mem.exclusive():
            journal.phase_done(name, counts)
        ran.append(name)
    with mem.exclusive():
        journal.finish()
    skipped = [p for p in PLAN[mode] if p not in ran]
    return dict(journal.counts), {"run": journal.run, "resumed": journal.resumed, "phases": ran, "skipped": skipped}
