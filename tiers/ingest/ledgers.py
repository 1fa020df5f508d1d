"""Daily-note ledgers: the content keys of the facts already stored from each note, so re-ingesting a
note stores nothing twice. One file per month (`<agent>/ingested/YYYY-MM.json`, {"keys": {key: date}}):
a batch of notes rewrites one or two files, not one per note (a file created costs ~0.2 ms here), and
a file never outgrows a month of notes, so the cost per note stays flat all year.

Older layouts are still read and folded in when their month is next written: round 2's file per date
(`ingested/YYYY-MM-DD.json`) and round 1's single `ingested.json`."""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Iterable

LEDGER = "ingested"
OLD_LEDGER = "ingested.json"  # round 1: one file for every date, rewritten per note (grew all year)


def ledger_path(agent_dir: Path, day: str) -> Path:
    """The file holding `day`'s keys: its month's."""
    return Path(agent_dir) / LEDGER / f"{day[:7]}.json"


def _valid(obj: Any) -> None:
    if not isinstance(obj, dict) or not isinstance(obj.get("keys"), dict):
        raise ValueError("not a ledger")


def load_ledger(path: Path) -> dict[str, str]:
    """One ledger file's keys (a damaged file is set aside by read_json: its facts are stored again,
    which reinforces them)."""
    from memoryd.tiers.base.atomic import read_json

    return dict(read_json(path, lambda: {"keys": {}}, _valid)["keys"])


def _files(agent_dir: Path, days: Iterable[str]) -> list[Path]:
    """Where these dates' keys are: their months' files, then their files in the per-date layout, those of
    them the folder holds (listed once, where a stat per date found the per-date files gone every time)."""
    folder = Path(agent_dir) / LEDGER
    try:
        present = set(os.listdir(folder))
    except OSError:  # no folder yet: no ledger
        return []
    days = sorted(set(days))
    names = [f"{m}.json" for m in sorted({d[:7] for d in days})] + [f"{d}.json" for d in days]  # round 2: per date
    return [folder / name for name in names if name in present]


def load_ledgers(agent_dir: Path, days: Iterable[str]) -> dict[str, str]:
    """The keys of these dates' months, and of their files in the older per-date layout (caller holds
    the agent lock)."""
    keys: dict[str, str] = {}
    for path in _files(agent_dir, days):
        keys.update(load_ledger(path))
    return keys


def peek_ledgers(agent_dir: Path, days: Iterable[str]) -> dict[str, str]:
    """load_ledgers without side effects and without the lock (a helper process's hint: a damaged or
    half-seen file reads as empty, never set aside)."""
    keys: dict[str, str] = {}
    for path in _files(agent_dir, days):
        try:
            found = json.loads(path.read_bytes())["keys"]
        except (OSError, ValueError, TypeError, KeyError):
            continue
        if isinstance(found, dict):
            keys.update(found)
    return keys


def split_old_ledger(agent_dir: Path) -> None:
    """Round 1's single ledger → month files (caller holds the agent lock)."""
    old = Path(agent_dir) / OLD_LEDGER
    if not old.exists():
        return
    keys = load_ledger(old)
    days = {str(day) for day in keys.values()}
    write_ledgers(agent_dir, load_ledgers(agent_dir, days) | keys, days, durable=True)
    old.unlink()


def write_ledgers(agent_dir: Path, ledger: dict[str, str], days: set[str], durable: bool = False) -> None:
    """The month files of the changed dates. `ledger`: what load_ledgers gave for them, plus the new
    keys; the month's other per-date files (the older layout) are folded in and then removed (a crash
    between the two leaves them to be folded in again). Not fsync'd: a ledger lost in a power cut
    means facts stored again, which reinforces them (same content id), never duplicates them."""
    from memoryd.tiers.base.atomic import atomic_write_bytes, dumps, ensure_private_dir

    folder = ensure_private_dir(Path(agent_dir) / LEDGER)  # once, not again (a stat per ancestor) per file
    for month in sorted({str(day)[:7] for day in days}):
        keys = {k: d for k, d in ledger.items() if str(d)[:7] == month}
        older = sorted(folder.glob(f"{month}-[0-3][0-9].json"))
        for path in older:
            keys = load_ledger(path) | keys
        atomic_write_bytes(ledger_path(agent_dir, month), dumps({"keys": dict(sorted(keys.items()))}),
                           private_dir=False, durable=durable)
        for path in older:
            path.unlink(missing_ok=True)
