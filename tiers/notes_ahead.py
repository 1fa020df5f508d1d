"""`ingest-daily --all` on two cores: a helper process (tiers/helper.py) reads and rates the next
batch of daily notes (parse, read_content, importance, the store's _prepare) while this process
stores the current one. Pure work only: every write stays with the caller, under the agent lock."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from .dailynotes import NoteFact, _item, ledger_path, parse_note, read_content
from .errors import UsageError


def _peek_ledger(path: Path) -> dict[str, str]:
    """A ledger's keys read without side effects (the helper process must not quarantine files)."""
    import json

    try:
        keys = json.loads(path.read_bytes())["keys"]
        return keys if isinstance(keys, dict) else {}
    except (OSError, ValueError, TypeError, KeyError):
        return {}


def read_notes(files: list[tuple[str, Path]], explicit: bool) -> tuple[list[str], list[NoteFact], list[str]]:
    """Parse a batch of notes: the dates read, their facts and the warnings, in file order."""
    days: list[str] = []
    facts: list[NoteFact] = []
    warnings: list[str] = []
    for day, path in files:
        if not path.is_file():
            if explicit:
                raise UsageError(f"no daily note for {day}: {path} does not exist")
            warnings.append(f"no daily note for {day} ({path})")
            continue
        found, warned = parse_note(path, day, classify=False)
        days.append(day)
        facts += found
        warnings += warned
    return days, facts, warnings


def read_ahead(files: list[tuple[str, Path]], agent_dir: Path) -> tuple[list[str], list[NoteFact], list[str], list]:
    """The helper process's job: read_notes, then the per-fact rules (read_content, importance and the
    store's _prepare) of each fact its ledger does not hold yet; None where they were not run."""
    from .agent import _prepare

    days, facts, warnings = read_notes(files, False)
    known: dict[str, str] = {}
    for day in days:
        known.update(_peek_ledger(ledger_path(agent_dir, day)))
    ready: list[tuple[Any, Any] | None] = []
    for fact in facts:
        done = None
        if fact.key not in known:
            try:
                read_content(fact)
                item = _item(fact)
                done = (item, _prepare(*item))
            except Exception:  # the store path runs it again and reports the error as it always did
                fact.classified = False
        ready.append(done)
    return days, facts, warnings, ready


def start_helper(mem: Any, always: bool = False) -> Any:
    """A helper process for read_ahead, or None: into a memory whose store_many takes prepared work,
    when a core is idle (unless `always`)."""
    import inspect

    from . import helper

    store_many = getattr(mem, "store_many", None)
    if not callable(store_many) or "prepared" not in inspect.signature(store_many).parameters \
            or not helper.usable(idle_core=not always):
        return None
    try:
        return helper.Helper(f"{__name__}:read_ahead")
    except OSError:
        return None
