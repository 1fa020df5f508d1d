"""Entities kept current with the memories: every memory read once as it arrives, whatever way it came.

Cold memories are queued by triggers of the local index (tiers/cold/entity_schema.py: archive, pull,
restore, import, forget); warm ones are compared with what was read from them last (warm is small). A
`refresh` reads what is new or changed, forgets the mentions of memories gone, and leaves hotness exact
(tiers/knowledge/hotness.py). It runs before every entity read (list, show, reflect, digest) and after
each of the daemon's scheduled consolidations, so a memory stored by any path is counted.
"""
from __future__ import annotations

import hashlib
import json
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence

from memoryd.tiers.cold.index_rows import COLUMNS, entry_day, row_entry
from memoryd.tiers.knowledge import entity_echo as echo
from memoryd.tiers.knowledge import entity_store as store
from memoryd.tiers.knowledge import hotness
from memoryd.tiers.knowledge.entity_rules import RULES_VERSION, Entity, Reading, read

if TYPE_CHECKING:
    from memoryd.tiers.base.ports import LLM
    from memoryd.tiers.cold.index import LocalIndex

CHUNK = 500
Memory = Mapping[str, Any]


def memory_day(entry: Memory) -> int:
    """The day a memory is about: a note's own date, else the day it was stored."""
    return hotness.day_number(entry_day(float(entry["created_at"]), entry.get("metadata") or {}))


def signature(entry: Memory, llm: bool) -> str:
    """What the entities of a memory depend on: its text, its @tags, its day, the rules (and the LLM)."""
    tags = (entry.get("metadata") or {}).get("entities") or []
    raw = json.dumps([RULES_VERSION, entry["text"], tags, memory_day(entry), llm], ensure_ascii=False, default=str)
    return hashlib.sha1(raw.encode("utf-8")).hexdigest()[:16]


def _is_summary(m: Memory) -> bool:
    """Summaries and digests restate memories already counted: they name no entity of their own."""
    from memoryd.tiers.knowledge.kinds import SUMMARY, kind_of

    return kind_of(m.get("metadata")) == SUMMARY


def _cold_rows(conn: Any, agent_id: str, ids: Sequence[str]) -> dict[str, Memory]:
    if not ids:
        return {}
    rows = conn.execute(f"SELECT {COLUMNS} FROM memories m WHERE m.agent_id = ? AND m.id IN "
                        f"({', '.join('?' * len(ids))})", [agent_id, *ids]).fetchall()
    return {r[0]: row_entry(r) for r in rows}


def _rules_current(index: LocalIndex, agent_id: str) -> None:
    """Memories read by older rules are read again: the first refresh under new rules queues them all (and
    makes the alias table an index of the first v3 release lacks)."""
    mark = f"entity_rules:{agent_id}"
    if index.read("SELECT value FROM index_meta WHERE key = ?", [mark]) == [(RULES_VERSION,)]:
        return
    with index.tx() as conn:
        store.ensure_aliases(conn)
        conn.execute("INSERT OR IGNORE INTO entity_queue SELECT agent_id, id FROM memories WHERE agent_id = ?",
                     [agent_id])
        conn.execute("INSERT OR REPLACE INTO index_meta VALUES (?, ?)", [mark, RULES_VERSION])


def refresh(index: LocalIndex, agent_id: str, warm: Sequence[Memory], llm: LLM | None = None,
            warn: Callable[[str], None] | None = None) -> dict[str, int]:
    """Read every memory of the agent not read yet (or changed since), drop the mentions of memories gone.
    The caller holds the agent's lock (warm must not change meanwhile). Returns counts."""
    in_warm = {e["id"]: e for e in warm}
    _rules_current(index, agent_id)
    todo = _unread(index, agent_id, in_warm, llm)
    counts = {"read": 0, "gone": 0, "mentions": 0}
    before = _echo_names(index, agent_id) if todo else {}
    stages: list[tuple[Sequence[str], dict[str, Entity]]] = []  # each chunk, and the names known once it was read
    for start in range(0, len(todo), CHUNK):
        _one_chunk(index, agent_id, todo[start:start + CHUNK], in_warm, llm, warn, counts)
        stages.append((todo[start:start + CHUNK], _echo_names(index, agent_id)))
    if stages:
        _echo_back(index, agent_id, in_warm, before, stages, llm, warn, counts)
    return counts


def _unread(index: LocalIndex, agent_id: str, in_warm: Mapping[str, Memory], llm: LLM | None) -> list[str]:
    """Ids of the memories a refresh reads: queued by the index, warm ones new or changed, warm ones gone."""
    queued = [r[0] for r in index.read("SELECT id FROM entity_queue WHERE agent_id = ?", [agent_id])]
    with index.reading() as conn:
        was_warm = [r[0] for r in conn.execute("SELECT memory_id FROM entity_seen WHERE agent_id = ? AND warm = 1",
                                               [agent_id])]
        known = store.seen(conn, agent_id, list(in_warm))
    changed_warm = [i for i, e in in_warm.items() if known.get(i) != (signature(e, llm is not None), 1)]
    return list(dict.fromkeys(queued + changed_warm + [i for i in was_warm if i not in in_warm]))


def unread_say(index: LocalIndex, agent_id: str, warm: Sequence[Memory], name: str) -> bool:
    """Whether a memory not read yet holds `name` (case-insensitive): only then can a refresh find an entity
    the index does not know. A lookup refused without it changes nothing (bad input leaves no trace)."""
    in_warm = {e["id"]: e for e in warm}
    ids = _unread(index, agent_id, in_warm, None)
    wanted = name.casefold()
    texts = [in_warm[i]["text"] for i in ids if i in in_warm]
    rest = [i for i in ids if i not in in_warm]
    texts += [e["text"] for e in index.get(agent_id, rest)] if rest else []
    return any(wanted in str(t).casefold() for t in texts)


def _echo_names(index: LocalIndex, agent_id: str) -> dict[str, Entity]:
    with index.reading() as conn:
        return echo.names_of(store.known_entities(conn, agent_id))


def _echo_back(index: LocalIndex, agent_id: str, in_warm: Mapping[str, Memory], before: Mapping[str, Entity],
               stages: Sequence[tuple[Sequence[str], dict[str, Entity]]], llm: LLM | None,
               warn: Callable[[str], None] | None, counts: dict[str, int]) -> None:
    """The memories that say a name bare before its cue was read (an earlier refresh, an earlier chunk) are read
    again, so that they count as its mentions: an incremental refresh agrees with a rebuild."""
    final = stages[-1][1]
    read_now = {i for ids, _ in stages for i in ids}
    new = {n: e for n, e in final.items() if n not in before}
    ids: list[str] = []
    if new:
        known = echo.Known(new)
        with index.reading() as conn:
            names = sorted(new)
            for start in range(0, len(names), 50):  # instr finds the candidates in C, the finder checks them
                part = names[start:start + 50]
                ids += [r[0] for r in conn.execute(
                    "SELECT id, text FROM memories WHERE agent_id = ? AND ("
                    + " OR ".join(["instr(text, ?) > 0"] * len(part)) + ")", [agent_id, *part])
                    if r[0] not in read_now and known.said_in(r[1])]
        ids += [i for i, e in in_warm.items() if i not in read_now and known.said_in(str(e["text"]))]
    for chunk, known_then in stages[:-1]:  # the last chunk saw every name already
        late = {n: e for n, e in final.items() if n not in known_then}
        if late:
            later = echo.Known(late)
            with index.reading() as conn:
                texts = {**_cold_rows(conn, agent_id, [i for i in chunk if i not in in_warm]),
                         **{i: in_warm[i] for i in chunk if i in in_warm}}
            ids += [i for i, m in texts.items() if later.said_in(str(m["text"]))]
    ids = list(dict.fromkeys(ids))
    with index.tx() as conn:
        for start in range(0, len(ids), 500):
            part = ids[start:start + 500]
            conn.execute(f"DELETE FROM entity_seen WHERE agent_id = ? AND memory_id IN ({', '.join('?' * len(part))})",
                         [agent_id, *part])
    for start in range(0, len(ids), CHUNK):
        _one_chunk(index, agent_id, ids[start:start + CHUNK], in_warm, llm, warn, counts)


def _one_chunk(index: LocalIndex, agent_id: str, ids: Sequence[str], in_warm: Mapping[str, Memory],
               llm: LLM | None, warn: Callable[[str], None] | None, counts: dict[str, int]) -> None:
    """Extract outside the transaction (an LLM may be slow), apply inside it what still holds."""
    with index.reading() as conn:
        memories = {**_cold_rows(conn, agent_id, [i for i in ids if i not in in_warm]),
                    **{i: in_warm[i] for i in ids if i in in_warm}}
        known = store.seen(conn, agent_id, list(memories))
        named = store.known_entities(conn, agent_id)
    sigs = {i: signature(m, llm is not None) for i, m in memories.items()}
    need = [i for i in memories if known.get(i, ("", 0))[0] != sigs[i]]
    readings = {i: Reading([]) if _is_summary(memories[i]) else read(memories[i]["text"], memories[i].get("metadata"))
                for i in need}
    found = {i: r.entities for i, r in readings.items()}
    _add_echoes(found, memories, named)
    need = [i for i in need if found[i] or not _is_summary(memories[i])]
    if llm is not None and need:
        from memoryd.tiers.knowledge.entity_llm import llm_entities

        for i, more in zip(need, llm_entities(llm, [memories[i]["text"] for i in need], warn)):
            keys = {e.key for e in found[i]}
            found[i] += [e for e in more if e.key not in keys]
    with index.tx() as conn:
        now_cold = _cold_rows(conn, agent_id, [i for i in ids if i not in in_warm])
        for mid in ids:
            current = in_warm.get(mid) or now_cold.get(mid)
            if current is None:
                counts["mentions"] += store.replace_mentions(conn, agent_id, mid, [], None)
                store.mark_seen(conn, agent_id, mid, None, False)
                counts["gone"] += 1
            elif mid not in memories or signature(current, llm is not None) != sigs[mid]:
                continue  # changed while we read it: stays queued for the next refresh
            elif mid in found:
                ents: list[Entity] = found[mid]
                counts["mentions"] += store.replace_mentions(conn, agent_id, mid, ents, memory_day(current))
                store.replace_aliases(conn, agent_id, mid, readings[mid].aliases)
                store.mark_seen(conn, agent_id, mid, sigs[mid], mid in in_warm)
                counts["read"] += 1
            else:
                store.mark_seen(conn, agent_id, mid, sigs[mid], mid in in_warm)
            conn.execute("DELETE FROM entity_queue WHERE agent_id = ? AND id = ?", [agent_id, mid])


def _add_echoes(found: dict[str, list[Entity]], memories: Mapping[str, Memory], named: Sequence[Entity]) -> None:
    """Each memory's bare mentions of a name the cues found (in an earlier memory or in this chunk)."""
    known = echo.Known(echo.names_of([*named, *(e for ents in found.values() for e in ents)]))
    for i, ents in found.items():
        if not _is_summary(memories[i]):
            ents += known.echoes(memories[i]["text"], ents)


def rebuild(index: LocalIndex, agent_id: str, warm: Sequence[Memory], llm: LLM | None = None) -> dict[str, int]:
    """Forget every derived entity row of the agent and read all its memories again."""
    with index.tx() as conn:
        store.forget_entities(conn, agent_id)
    return refresh(index, agent_id, warm, llm)


PLACE_MENTIONS = 2   # a place named once is where something happened; named again, it is part of the person's world
PAGE_WINDOW_DAYS = 30
PAGE_MENTIONS = 3    # named in at least this many memories of the window
MAX_PAGES = 20


def listed(e: store.EntityRow) -> bool:
    """Whether `entity list` shows it: a place (the weakest cue) only once two memories name it."""
    return e.type != "place" or e.mentions >= PLACE_MENTIONS


def entity_list(index: LocalIndex, agent_id: str, now: float) -> list[store.EntityRow]:
    """Every entity worth listing, hottest first (refresh first)."""
    with index.reading() as conn:
        return [e for e in store.all_entities(conn, agent_id, hotness.day_of(now)) if listed(e)]


def page_entities(index: LocalIndex, agent_id: str, now: float, since_days: float) -> list[store.EntityRow]:
    """The entities that get a page: named since `since_days` ago, and either active (hotness ≥ 0.5) or among
    the most mentioned of the last 30 days (at least 3 memories); at most 20, most mentioned first."""
    today = hotness.day_of(now)
    since = hotness.day_of(now - since_days * hotness.DAY)
    with index.reading() as conn:
        recent = store.recent_mentions(conn, agent_id, today - PAGE_WINDOW_DAYS + 1, today)
        every = [e for e in store.all_entities(conn, agent_id, today) if listed(e) and e.last_day >= since]
    chosen = [e for e in every if hotness.state(e.hotness) == "active" or recent.get(e.key, 0) >= PAGE_MENTIONS]
    chosen.sort(key=lambda e: (-recent.get(e.key, 0), -e.hotness, e.key))
    return chosen[:MAX_PAGES]


def cold_entities(index: LocalIndex, agent_id: str, now: float, threshold: float = hotness.COLD
                  ) -> list[dict[str, Any]]:
    """Entities whose hotness is at most `threshold` (seed 000's archive line, 0.1): candidates for sealing.
    Each: key, name, type, hotness, mentions, last_seen and `memory_ids` (oldest first)."""
    today = hotness.day_of(now)
    with index.reading() as conn:
        cold = [e for e in store.all_entities(conn, agent_id, today) if e.hotness <= threshold + 1e-9]
        return [dict(e.as_dict(), memory_ids=[m for m, _ in store.mentions_of(conn, agent_id, e.key)]) for e in cold]


def active_entities(index: LocalIndex, agent_id: str, now: float) -> list[store.EntityRow]:
    """Entities at or above the active line (0.5), hottest first."""
    return [e for e in entity_list(index, agent_id, now) if hotness.state(e.hotness) == "active"]


def find_entity(index: LocalIndex, agent_id: str, name: str, now: float) -> list[store.EntityRow]:
    with index.reading() as conn:
        return store.find(conn, agent_id, name, hotness.day_of(now))


def mentions(index: LocalIndex, agent_id: str, key: str) -> list[tuple[str, int]]:
    with index.reading() as conn:
        return store.mentions_of(conn, agent_id, key)


def entities_of(index: LocalIndex, agent_id: str, memory_ids: Sequence[str], now: float
                ) -> dict[str, list[store.EntityRow]]:
    with index.reading() as conn:
        return store.entities_of(conn, agent_id, memory_ids, hotness.day_of(now))
