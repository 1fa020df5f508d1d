"""The entity tables of the local index (tiers/cold/entity_schema.py): mentions in and out, hotness kept exact, reads.

Functions on a sqlite3 connection the caller holds (inside LocalIndex.tx() for writes, LocalIndex.read's
lock for reads); every statement is scoped by agent_id.
"""
from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Sequence

from memoryd.tiers.cold.entity_schema import ALIAS_SCHEMA
from memoryd.tiers.knowledge import hotness
from memoryd.tiers.knowledge.entity_fold import folded_away, groups, members_of
from memoryd.tiers.knowledge.entity_rules import Entity

_IDS = 500


@dataclass(frozen=True)
class EntityRow:
    """One entity of an agent, its hotness as of `today`."""

    key: str
    name: str
    type: str
    hotness: float
    mentions: int
    first_day: int
    last_day: int

    def as_dict(self) -> dict[str, Any]:
        day_text = hotness.day_text
        return {"key": self.key, "name": self.name, "type": self.type, "hotness": round(self.hotness, 4),
                "state": hotness.state(self.hotness), "mentions": self.mentions,
                "first_seen": day_text(self.first_day), "last_seen": day_text(self.last_day)}


def _marks(n: int) -> str:
    return ", ".join("?" * n)


def _chunks(items: Sequence[str]) -> Iterable[Sequence[str]]:
    for start in range(0, len(items), _IDS):
        yield items[start:start + _IDS]


def replace_mentions(conn: sqlite3.Connection, agent_id: str, memory_id: str, ents: Sequence[Entity],
                     day: int | None) -> int:
    """Make `memory_id` mention exactly `ents` on `day` (none: the memory is gone); returns mentions changed."""
    old = dict(conn.execute("SELECT key, day FROM entity_mentions WHERE agent_id = ? AND memory_id = ?",
                            [agent_id, memory_id]).fetchall())
    new = {e.key: e for e in ents} if day is not None else {}
    changed = 0
    for key, was in old.items():
        if key not in new or was != day:
            conn.execute("DELETE FROM entity_mentions WHERE agent_id = ? AND memory_id = ? AND key = ?",
                         [agent_id, memory_id, key])
            _unmention(conn, agent_id, key, was)
            changed += 1
    for key, ent in new.items():
        if old.get(key) != day:
            assert day is not None
            conn.execute("INSERT INTO entity_mentions VALUES (?, ?, ?, ?)", [agent_id, memory_id, key, day])
            _mention(conn, agent_id, ent, day)
            changed += 1
    return changed


def _mention(conn: sqlite3.Connection, agent_id: str, ent: Entity, day: int) -> None:
    row = conn.execute("SELECT hot, hot_day, first_day, last_day FROM entities WHERE agent_id = ? AND key = ?",
                       [agent_id, ent.key]).fetchone()
    if row is None:
        conn.execute("INSERT INTO entities VALUES (?, ?, ?, ?, ?, ?, 1, ?, ?)",
                     [agent_id, ent.key, ent.name, ent.type, hotness.STEP, day, day, day])
        return
    hot, hot_day = hotness.add(row[0], row[1], day)
    conn.execute("UPDATE entities SET hot = ?, hot_day = ?, mentions = mentions + 1, first_day = ?, last_day = ? "
                 "WHERE agent_id = ? AND key = ?", [hot, hot_day, min(row[2], day), max(row[3], day), agent_id, ent.key])


def _unmention(conn: sqlite3.Connection, agent_id: str, key: str, day: int) -> None:
    row = conn.execute("SELECT hot, hot_day, mentions FROM entities WHERE agent_id = ? AND key = ?",
                       [agent_id, key]).fetchone()
    if row is None:
        return
    if row[2] <= 1:
        conn.execute("DELETE FROM entities WHERE agent_id = ? AND key = ?", [agent_id, key])
        return
    hot, hot_day = hotness.remove(row[0], row[1], day)
    first, last = conn.execute("SELECT MIN(day), MAX(day) FROM entity_mentions WHERE agent_id = ? AND key = ?",
                               [agent_id, key]).fetchone()
    conn.execute("UPDATE entities SET hot = ?, hot_day = ?, mentions = mentions - 1, first_day = ?, last_day = ? "
                 "WHERE agent_id = ? AND key = ?", [hot, hot_day, first, last, agent_id, key])


def _row(r: Sequence[Any], today: int) -> EntityRow:
    return EntityRow(r[0], r[1], r[2], hotness.at(r[3], r[4], today), r[5], r[6], r[7])


_SELECT = "SELECT key, name, type, hot, hot_day, mentions, first_day, last_day FROM entities WHERE agent_id = ?"


def _folds(conn: sqlite3.Connection, agent_id: str) -> dict[str, list[str]]:
    """The agent's entities read two ways, folded into one (tiers/knowledge/entity_fold.py)."""
    return groups(conn.execute("SELECT key, name, type, mentions FROM entities WHERE agent_id = ?", [agent_id]))


def _merged(conn: sqlite3.Connection, agent_id: str, head: EntityRow, keys: Sequence[str], today: int) -> EntityRow:
    """`head` with the mentions of all `keys` counted once per memory, and the hotness they give."""
    days = [r[1] for r in conn.execute(
        f"SELECT memory_id, MAX(day) FROM entity_mentions WHERE agent_id = ? AND key IN ({_marks(len(keys))}) "
        "GROUP BY memory_id", [agent_id, *keys])]
    if not days:
        return head
    hot = sum(hotness.STEP * hotness.DECAY ** max(today - d, 0) for d in days)
    return EntityRow(head.key, head.name, head.type, hot, len(days), min(days), max(days))


def all_entities(conn: sqlite3.Connection, agent_id: str, today: int) -> list[EntityRow]:
    """Every entity of the agent, names of one thing folded into one, hottest first (then most mentioned,
    then by name)."""
    folds = _folds(conn, agent_id)
    away = folded_away(folds)
    rows = [_row(r, today) for r in conn.execute(_SELECT, [agent_id]) if r[0] not in away]
    rows = [_merged(conn, agent_id, e, folds[e.key], today) if e.key in folds else e for e in rows if e.key]
    rows.sort(key=lambda e: (-round(e.hotness, 9), -e.mentions, e.name.casefold(), e.key))
    return rows


def find(conn: sqlite3.Connection, agent_id: str, name: str, today: int) -> list[EntityRow]:
    """Entities called `name` (`type:name`, the name in any case, `@name`), hottest first; a name folded into
    another finds that one (`Jonas` → `Jonas Vogt`)."""
    wanted = " ".join(name.strip().lstrip("@").split()).casefold()
    keys = [r[0] for r in conn.execute("SELECT key FROM entities WHERE agent_id = ? AND (key = ? OR "
                                       "substr(key, instr(key, ':') + 1) = ?)", [agent_id, wanted, wanted])]
    if not keys:
        return []
    away = folded_away(_folds(conn, agent_id))
    heads = set(away.get(k, k) for k in keys)
    found = [e for e in all_entities(conn, agent_id, today) if e.key in heads]
    found.sort(key=lambda e: (-e.hotness, e.key))
    return found


def known_entities(conn: sqlite3.Connection, agent_id: str) -> list[Entity]:
    """Every entity of the agent as its rules named it (for echoes, tiers/knowledge/entity_echo.py)."""
    return [Entity(r[1], r[0]) for r in conn.execute("SELECT name, type FROM entities WHERE agent_id = ?", [agent_id])]


def recent_mentions(conn: sqlite3.Connection, agent_id: str, first_day: int, last_day: int) -> dict[str, int]:
    """entity key (folded) → how many memories of days first_day..last_day name it."""
    folds = _folds(conn, agent_id)
    away = folded_away(folds)
    seen: dict[str, set[str]] = {}
    for memory_id, key in conn.execute("SELECT memory_id, key FROM entity_mentions WHERE agent_id = ? AND day "
                                       "BETWEEN ? AND ?", [agent_id, first_day, last_day]):
        seen.setdefault(away.get(key, key), set()).add(memory_id)
    return {k: len(v) for k, v in seen.items()}


def mentions_of(conn: sqlite3.Connection, agent_id: str, key: str) -> list[tuple[str, int]]:
    """(memory id, day) of every memory naming the entity (any of its folded names), oldest first."""
    keys = members_of(_folds(conn, agent_id), key)
    return [(r[0], r[1]) for r in conn.execute(
        f"SELECT memory_id, MAX(day) FROM entity_mentions WHERE agent_id = ? AND key IN ({_marks(len(keys))}) "
        "GROUP BY memory_id ORDER BY 2, 1", [agent_id, *keys])]


def entities_of(conn: sqlite3.Connection, agent_id: str, memory_ids: Sequence[str], today: int
                ) -> dict[str, list[EntityRow]]:
    """memory id → the entities it names (hottest first)."""
    out: dict[str, list[EntityRow]] = {}
    for chunk in _chunks(list(dict.fromkeys(memory_ids))):
        rows = conn.execute(
            "SELECT m.memory_id, e.key, e.name, e.type, e.hot, e.hot_day, e.mentions, e.first_day, e.last_day "
            "FROM entity_mentions m JOIN entities e ON e.agent_id = m.agent_id AND e.key = m.key "
            f"WHERE m.agent_id = ? AND m.memory_id IN ({_marks(len(chunk))})", [agent_id, *chunk])
        for r in rows:
            out.setdefault(r[0], []).append(_row(r[1:], today))
    for ents in out.values():
        ents.sort(key=lambda e: -e.hotness)
    return out


def seen(conn: sqlite3.Connection, agent_id: str, memory_ids: Sequence[str]) -> dict[str, tuple[str, int]]:
    """memory id → (signature read, whether it was in warm then)."""
    out: dict[str, tuple[str, int]] = {}
    for chunk in _chunks(list(memory_ids)):
        out.update((r[0], (r[1], r[2])) for r in conn.execute(
            f"SELECT memory_id, sig, warm FROM entity_seen WHERE agent_id = ? AND memory_id IN ({_marks(len(chunk))})",
            [agent_id, *chunk]))
    return out


def mark_seen(conn: sqlite3.Connection, agent_id: str, memory_id: str, sig: str | None, warm: bool) -> None:
    if sig is None:
        conn.execute("DELETE FROM entity_seen WHERE agent_id = ? AND memory_id = ?", [agent_id, memory_id])
    else:
        conn.execute("INSERT OR REPLACE INTO entity_seen VALUES (?, ?, ?, ?)", [agent_id, memory_id, sig, int(warm)])


def forget_entities(conn: sqlite3.Connection, agent_id: str) -> None:
    """Drop every derived row of the agent and queue all its memories again (a rebuild)."""
    for table in ("entities", "entity_mentions", "entity_seen"):
        conn.execute(f"DELETE FROM {table} WHERE agent_id = ?", [agent_id])
    conn.execute("INSERT OR IGNORE INTO entity_queue SELECT agent_id, id FROM memories WHERE agent_id = ?", [agent_id])


def has_aliases(conn: sqlite3.Connection) -> bool:
    """Whether the alias table exists (an index made by the first v3 release lacks it until a refresh)."""
    return conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'entity_aliases'"
                        ).fetchone() is not None


def ensure_aliases(conn: sqlite3.Connection) -> None:
    """Create the alias table, its index and trigger (inside the caller's write transaction)."""
    for sql in ALIAS_SCHEMA:
        conn.execute(sql)


def replace_aliases(conn: sqlite3.Connection, agent_id: str, memory_id: str,
                    aliases: Mapping[str, Sequence[str]]) -> None:
    """Make `memory_id`'s aliases exactly `aliases` (entity key → names in their light form)."""
    conn.execute("DELETE FROM entity_aliases WHERE agent_id = ? AND memory_id = ?", [agent_id, memory_id])
    conn.executemany("INSERT OR IGNORE INTO entity_aliases VALUES (?, ?, ?, ?)",
                     [[agent_id, memory_id, key, alias] for key, names in aliases.items() for alias in names])


def aliases_of(conn: sqlite3.Connection, agent_id: str) -> list[tuple[str, str]]:
    """(entity key, alias) of every alias of the agent's entities still held, once each; the key of a name
    folded into another is that other's."""
    if not has_aliases(conn):
        return []
    away = folded_away(_folds(conn, agent_id))
    return [(away.get(r[0], r[0]), r[1]) for r in conn.execute(
        "SELECT DISTINCT a.key, a.alias FROM entity_aliases a JOIN entities e ON e.agent_id = a.agent_id "
        "AND e.key = a.key WHERE a.agent_id = ?", [agent_id])]

