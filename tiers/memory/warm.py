"""WARM tier: scored facts on the device; reinforcement, rescoring and eviction policy (pure)."""
from __future__ import annotations

from operator import itemgetter
from typing import TYPE_CHECKING, Any

from memoryd.tiers.base.atomic import dumps
from memoryd.tiers.knowledge.fading import said_score
from memoryd.tiers.memory.model import (TIER_HOT, WARM_MAX_BYTES, WARM_RETENTION_DAYS, content_id, preview, tier_for)
from memoryd.tiers.memory.said import first_said, said_age_days

if TYPE_CHECKING:
    from memoryd.tiers.memory.types import Eviction, WarmEntry, WarmState
    Warm = WarmState  # the names this module's signatures use
    Entry = WarmEntry

_ID = itemgetter("id")


def empty_warm() -> Warm:
    return {"entries": []}


_ENTRY_FIELDS: dict[str, type | tuple[type, ...]] = {"id": str, "text": str, "category": str, "importance": (int, float), "created_at": (int, float),
                 "access_count": int, "metadata": dict}


def validate_entries(entries: Any) -> None:
    """Every field the tiers read, with its type; raises TypeError on a malformed list."""
    if not isinstance(entries, list):
        raise TypeError("entries is not a list")
    for e in entries:
        if not isinstance(e, dict) or any(not isinstance(e.get(k), t) for k, t in _ENTRY_FIELDS.items()):
            raise TypeError("malformed warm entry")


def validate_warm(obj: Any) -> None:
    if not isinstance(obj, dict):
        raise TypeError("warm state is not an object")
    validate_entries(obj["entries"])


def warm_size(warm: Warm) -> int:
    return len(dumps(warm))


def entry_id(text: str, category: str) -> str:
    return content_id(category, text)


def new_entry(text: str, category: str, importance: float, now: float, metadata: dict[str, Any] | None = None
              ) -> Entry:
    entry: Entry = {"id": entry_id(text, category), "text": text, "category": category, "importance": round(importance, 4),
             "created_at": int(now), "access_count": 0, "last_access": int(now), "metadata": metadata or {}}
    rescore(entry, now)
    return entry


def rescore(entry: Entry, now: float) -> float:
    """The entry's score and tier on the clock `now`, its age counted from when it was said (valid time,
    tiers/memory/said.py), not from when it was stored: an old note imported today is as faded as its age."""
    entry["score"] = round(said_score(entry, now), 4)  # the kind's decay weighs importance (knowledge/fading.py)
    entry["tier"] = tier_for(entry["score"])
    return entry["score"]


def positions(warm: Warm) -> dict[str, int]:
    """id → index of its first entry: add_or_reinforce's lookup built once for a batch of stores."""
    where: dict[str, int] = {}
    for i, e in enumerate(warm["entries"]):
        where.setdefault(e["id"], i)
    return where


def add_or_reinforce(warm: Warm, entry: Entry, now: float, where: dict[str, int] | None = None
                     ) -> tuple[Entry, bool]:
    """Insert `entry`, or reinforce the existing one with the same id. Returns (entry, created).

    `where`: positions(warm), kept up to date here, when nothing else changes warm in between."""
    entries = warm["entries"]
    if where is not None:  # a batch: one dict lookup instead of a scan of warm per store
        at = where.get(entry["id"])
        if at is None:
            where[entry["id"]] = len(entries)
            entries.append(entry)
            return entry, True
        old = entries[at]
    else:
        try:  # the first entry with this id, looked up at C speed
            old = entries[list(map(_ID, entries)).index(entry["id"])]
        except ValueError:
            entries.append(entry)
            return entry, True
    old["access_count"] += 1
    old["last_access"] = int(now)
    old["importance"] = max(old["importance"], entry["importance"])
    for key, value in entry.get("metadata", {}).items():
        old.setdefault("metadata", {}).setdefault(key, value)
    rescore(old, now)
    return old, False


def touch(warm: Warm, ids: set[str], now: float) -> int:
    """Count one access (retrieval reinforcement) for each entry in ids."""
    n = 0
    for e in warm["entries"]:
        if e["id"] in ids:
            e["access_count"] += 1
            e["last_access"] = int(now)
            rescore(e, now)
            n += 1
    return n


def _eviction(entry: Entry, why: str) -> Eviction:
    return {"tier": "warm", "kind": "entry", "id": entry["id"], "what": preview(entry["text"]),
            "why": why, "to": "cold"}


def due_for_cold(entry: Entry, now: float, scored: bool = False) -> str | None:
    """Why the entry leaves warm now (said more than the retention ago with a low score, or frozen), or None.
    `scored`: its score was computed on this clock already (a store of this batch)."""
    s = entry["score"] if scored else rescore(entry, now)
    if s >= 0.3:
        return None
    old = said_age_days(entry, now) > WARM_RETENTION_DAYS
    if old or s < 0.05:
        return f"score {s:.3f}" + (f" said over {WARM_RETENTION_DAYS} days ago" if old else " frozen")
    return None


def ids_answered(warm: Warm) -> set[str]:
    """Every memory id warm still answers for: its entries and the memories each absorbed (a merge keeps their
    ids in `sources`)."""
    out: set[str] = set()
    for e in warm["entries"]:
        out.add(e["id"])
        out.update(str(s.get("id")) for s in (e.get("metadata") or {}).get("sources") or [] if isinstance(s, dict))
    return out


def split_due_for_cold(warm: Warm, now: float, only: set[str] | None = None
                       ) -> tuple[list[Entry], list[Eviction]]:
    """Remove entries past retention with a low score, or frozen; return them (for cold) and log rows.
    `only`: look at these ids alone, scored on this clock already, and log none (a batch of stores: what was said
    long ago goes to cold at once, logged by the caller as one row; a store rescores what it creates or reinforces)."""
    keep: list[Entry] = []
    out: list[Entry] = []
    log: list[Eviction] = []
    for e in warm["entries"]:
        why = due_for_cold(e, now) if only is None else due_for_cold(e, now, True) if e["id"] in only else None
        if why is None:
            keep.append(e)
            continue
        out.append(e)
        if only is None:
            log.append(_eviction(e, why))
    warm["entries"] = keep
    return out, log


def _fitting(warm: Warm, limit: int) -> int:
    """How many of warm's first entries fit in `limit` bytes of JSON with the rest of warm (the longest
    such prefix). Canonical JSON is compositional: the whole is the rest of warm plus each entry and a
    comma between; only the entries kept (and the first one not) are encoded, not those that go."""
    size = len(dumps(dict(warm, entries=[])))
    kept = 0
    for e in warm["entries"]:
        size += len(dumps(e)) + (1 if kept else 0)
        if size > limit:
            break
        kept += 1
    return kept


def enforce_size(warm: Warm, now: float, grace: float = 0.0) -> tuple[list[Entry], list[Eviction]]:
    """Evict lowest-scored entries (ties: oldest, then id) until the JSON is ≤ 50 KB; entries
    created less than `grace` seconds ago go only when nothing older is left."""
    for e in warm["entries"]:
        rescore(e, now)
    fresh = now - grace
    # grace counts from when it was stored (just put there), the ties from when it was said
    warm["entries"].sort(key=lambda e: (e["created_at"] <= fresh, -e["score"], -first_said(e), e["id"]))
    kept = _fitting(warm, WARM_MAX_BYTES)
    out = warm["entries"][kept:][::-1]  # as if popped from the end while over: lowest first
    del warm["entries"][kept:]
    log: list[Eviction] = []
    for e in out:
        young = " (within its grace period: nothing older was left)" if e["created_at"] > fresh else ""
        log.append(_eviction(e, f"warm over {WARM_MAX_BYTES} bytes, lowest score {e['score']:.3f}{young}"))
    return out, log


def due_for_hot(warm: Warm) -> list[Entry]:
    return [e for e in warm["entries"] if e["tier"] == TIER_HOT]
