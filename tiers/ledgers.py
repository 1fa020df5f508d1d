"""Daily-note ledgers: per note date, the content keys of the facts already stored from it
(`<agent>/ingested/DATE.json`), so re-ingesting a note stores nothing twice."""
from __future__ import annotations

from pathlib import Path
from typing import Any

LEDGER = "ingested"        # one small JSON per note date: what of that note was stored already
OLD_LEDGER = "ingested.json"  # round 1: one file for every date, rewritten per note (grew all year)


def load_ledger(path: Path) -> dict[str, str]:
    from .atomic import read_json

    def valid(obj: Any) -> None:
        if not isinstance(obj, dict) or not isinstance(obj.get("keys"), dict):
            raise ValueError("not a ledger")

    return dict(read_json(path, lambda: {"keys": {}}, valid)["keys"])


def ledger_path(agent_dir: Path, day: str) -> Path:
    return Path(agent_dir) / LEDGER / f"{day}.json"


def split_old_ledger(agent_dir: Path) -> None:
    """Round 1's single ledger → one file per date (caller holds the agent lock)."""
    from .atomic import atomic_write_json, ensure_private_dir

    old = Path(agent_dir) / OLD_LEDGER
    if not old.exists():
        return
    by_day: dict[str, dict[str, str]] = {}
    for key, day in load_ledger(old).items():
        by_day.setdefault(str(day), {})[key] = str(day)
    ensure_private_dir(Path(agent_dir) / LEDGER)
    for day, keys in by_day.items():
        path = ledger_path(agent_dir, day)
        atomic_write_json(path, {"keys": dict(sorted((load_ledger(path) | keys).items()))})
    old.unlink()


def write_ledgers(agent_dir: Path, ledger: dict[str, str], days: set[str]) -> None:
    """Each changed date's file. Not fsync'd: a ledger lost in a power cut means facts stored again,
    which reinforces them (same content id), never duplicates them."""
    from .atomic import atomic_write_bytes, dumps, ensure_private_dir

    ensure_private_dir(Path(agent_dir) / LEDGER)  # once: not again (a stat per ancestor) for each file
    for day in sorted(days):
        keys = {k: d for k, d in ledger.items() if d == day}
        atomic_write_bytes(ledger_path(agent_dir, day), dumps({"keys": dict(sorted(keys.items()))}),
                           private_dir=False, durable=False)
