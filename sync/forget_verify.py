"""`memoryd forget --verify ID`: per place, whether anything that could recover a memory's text is left.

This device's files (tiers/memory/forget_traces.py: warm, hot, last-good copies, the local index), the
critical state it last synced and a merge it may be in, the server's critical-state versions and
memory_log rows, and this device's key store: a key that opens ciphertexts sealed before the forget
still recovers the memory from sqld's history (its WAL and replication log keep every frame it wrote,
whatever the tables say now), unless that key's epoch was shredded.
"""
from __future__ import annotations

from typing import Any

from memoryd.tiers.base.config import Config
from memoryd.tiers.base.errors import MemorydError, UsageError
from memoryd.tiers.memory.forget_traces import REMAINS, UNKNOWN, Place, forgotten_at, hot_items, index_place, tier_places

from memoryd.sync.cloudlog import ref_of
from memoryd.sync.key_epochs import HeldKey, held_keys
from memoryd.sync.merge.replica import Replica, materialize
from memoryd.sync.session import Session


def replica_holds(rep: Replica, memory_id: str) -> list[str]:
    """What of the memory a critical-state replica still holds (alive items only)."""
    state = materialize(rep)
    found = ["warm entry" for e in state["warm"]["entries"] if e.get("id") == memory_id]
    return found + hot_items(state["hot"], memory_id)


def device_critical(s: Session, memory_id: str) -> Place:
    """The critical state this device last synced (base.json) and a merge in progress (its journal)."""
    place = Place("critical state (this device)")
    for name, rep in (("base.json", s.files.base()["replica"]), ("merging.json", (s.files.merging() or {}).get("merged"))):
        if rep is not None:
            place.found += [f"{what} in sync/{name}" for what in replica_holds(rep, memory_id)]
    return place


def server_places(s: Session, memory_id: str, keys: list[HeldKey]) -> list[Place]:
    """The server's critical-state versions (opened with this device's keys) and memory_log rows."""
    versions, log = Place("critical state (server)"), Place("memory_log (server)")
    try:
        rows = s.execute("SELECT version, data FROM critical_state WHERE agent_id = ? UNION "
                         "SELECT version, data FROM critical_versions WHERE agent_id = ?",
                         [s.agent_id, s.agent_id]).rows
        refs = sorted({ref_of(k.key, s.agent_id, memory_id) for k in keys})
        log_rows = s.execute(f"SELECT seq, kind FROM memory_log WHERE agent_id = ? AND ref IN "
                             f"({', '.join('?' * len(refs))})", [s.agent_id, *refs]).rows if refs else []
    except MemorydError as exc:
        versions.unknown = log.unknown = f"server not reachable: {exc.message}"
        return [versions, log]
    closed = []
    for version, data in sorted(rows, key=lambda r: int(r[0])):
        rep = _open_any(s, keys, int(version), data)
        if rep is None:
            closed.append(int(version))
            continue
        versions.found += [f"{what} in version {int(version)}" for what in replica_holds(rep, memory_id)]
    if closed:
        versions.unknown = f"versions {closed} open with none of this device's keys"
    puts = [int(seq) for seq, kind in log_rows if kind == "put"]
    if puts:
        log.found.append(f"sealed copies at seq {puts}")
    return [versions, log]


def _open_any(s: Session, keys: list[HeldKey], version: int, data: str) -> Replica | None:
    for k in keys:
        try:
            return Session(s.config, s.agent_id, db=s.db, key=k.key).open(version, data)
        except MemorydError:
            continue
    return None


def key_place(s: Session, keys: list[HeldKey], forgotten: float | None, alive: bool) -> Place:
    """Keys of an epoch begun before the forget open what was sealed of the memory before it."""
    place = Place("key store")
    if not s.files.state().get("version") and not s.files.path("base.json").exists():
        return place  # never synced: nothing of this agent was ever sealed
    for k in keys:
        if alive or forgotten is None or k.since is None or k.since <= forgotten:
            place.found.append(f"key {k.fingerprint} (epoch {k.epoch}) opens its copies sealed before the "
                               "forget, which the server's history (sqld's WAL and replication log) keeps")
    return place


def verify(config: Config, agent_id: str, memory_id: str) -> dict[str, Any]:
    """The report: {"agent_id", "id", "clean", "forgotten_at", "places": [{place, status, found[, note]}]}."""
    memory_id = (memory_id or "").strip()
    if not memory_id:
        raise UsageError("memory id is empty")
    if not config.agent_dir(agent_id).is_dir():
        raise UsageError(f"agent {agent_id!r} has no memories on this device")
    s = Session(config, agent_id)
    try:
        places = tier_places(s.mem, memory_id) + [index_place(s.index, agent_id, memory_id)]
        alive = any(p.found for p in places[:2]) or bool(places[3].found and "row" in places[3].found[0])
        forgotten = forgotten_at(s.index, agent_id, memory_id)
        if forgotten is None and not any(p.found for p in places[:3]) and not alive:
            raise UsageError(f"no memory {memory_id!r} on this device, and no record of its forget")
        keys = held_keys(config, agent_id)
        places.append(device_critical(s, memory_id))
        if not s.is_file or s.files.state().get("version"):
            places += server_places(s, memory_id, keys)
        places.append(key_place(s, keys, forgotten, alive))
    finally:
        s.close()
    return {"agent_id": agent_id, "id": memory_id, "clean": not any(p.status in (REMAINS, UNKNOWN) for p in places),
            "forgotten_at": forgotten, "places": [p.to_json() for p in places]}
