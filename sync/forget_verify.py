"""`memoryd forget --verify ID`: per place, whether anything that could recover a memory's text is left.

This device's files (tiers/memory/forget_traces.py: warm, hot, last-good copies, the local index), the
critical state it last synced and a merge it may be in, the server's critical-state versions and
memory_log rows, and this device's key store: a key that opens ciphertexts sealed before the forget
still recovers the memory from sqld's history (its WAL and replication log keep every frame it wrote,
whatever the tables say now), unless that key's epoch was shredded.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

from memoryd.tiers.base.config import Config
from memoryd.tiers.base.errors import MemorydError, UsageError
from memoryd.tiers.memory.forget_derived_traces import derived_places
from memoryd.tiers.memory.forget_traces import REMAINS, UNKNOWN, Place, forgotten_at, hot_items, index_place, tier_places

from memoryd.sync.cloudlog import ref_of
from memoryd.sync.critical_log import open_change
from memoryd.sync.epoch_store import RECOVERY
from memoryd.sync.key_epochs import HeldKey, has_identity, held_keys
from memoryd.sync.merge.replica import Replica, materialize
from memoryd.sync.session import Session
from memoryd.sync.shred_device import device_state


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
    """The server's critical-state snapshots and changes (opened with this device's keys) and memory_log rows."""
    versions, log = Place("critical state (server)"), Place("memory_log (server)")
    held = {k.epoch for k in keys}
    try:
        rows = s.execute("SELECT version, data, epoch FROM critical_state WHERE agent_id = ? UNION "
                         "SELECT version, data, epoch FROM critical_versions WHERE agent_id = ?",
                         [s.agent_id, s.agent_id]).rows
        refs = sorted({ref_of(k.key, s.agent_id, memory_id) for k in keys})
        log_rows = s.execute(f"SELECT seq, kind FROM memory_log WHERE agent_id = ? AND ref IN "
                             f"({', '.join('?' * len(refs))})", [s.agent_id, *refs]).rows if refs else []
        other = sorted(int(e) for (e,) in s.execute("SELECT DISTINCT epoch FROM memory_log WHERE agent_id = ?",
                                                    [s.agent_id]).rows if int(e) not in held)
        closed = _changes_holding(s, memory_id, versions)
    except MemorydError as exc:
        versions.unknown = log.unknown = f"server not reachable: {exc.message}"
        return [versions, log]
    for version, data, epoch in sorted(rows, key=lambda r: int(r[0])):
        try:
            rep = s.open(int(version), data, int(epoch or 0))
        except MemorydError:
            closed.append(int(version))
            continue
        versions.found += [f"{what} in version {int(version)}" for what in replica_holds(rep, memory_id)]
    if closed:
        versions.unknown = f"versions {closed} open with none of this device's keys"
    puts = [int(seq) for seq, kind in log_rows if kind == "put"]
    if puts:
        log.found.append(f"sealed copies at seq {puts}")
    if other:
        log.unknown = f"rows of epochs {other} cannot be matched with this device's keys"
    return [versions, log]


def _changes_holding(s: Session, memory_id: str, place: Place) -> list[int]:
    """The critical log's changes (sync/critical_log.py) that still hold the memory go into `place`; returns
    the seqs that open with none of this device's keys."""
    closed = []
    rows = s.execute("SELECT seq, device_id, epoch, data FROM critical_log WHERE agent_id = ? ORDER BY seq",
                     [s.agent_id]).rows
    for seq, device_id, epoch, data in rows:
        try:
            change = open_change(s, int(seq), str(device_id), int(epoch or 0), data)
        except MemorydError:
            closed.append(int(seq))
            continue
        place.found += [f"{what} in change {int(seq)}" for what in replica_holds(change, memory_id)]
    return closed


def epoch_times(s: Session) -> tuple[dict[int, float], float | None]:
    """When each epoch began, and when the recovery key was issued (None: none), from the server."""
    try:
        began = {int(e): float(t) for e, t in s.execute("SELECT epoch, created_at FROM key_epochs WHERE agent_id = ?",
                                                        [s.agent_id]).rows}
        rec = s.execute("SELECT enrolled_at FROM devices WHERE agent_id = ? AND device_id = ?",
                        [s.agent_id, RECOVERY]).rows
    except MemorydError:
        return {}, None
    return began, (float(rec[0][0]) if rec else None)


def key_place(s: Session, keys: list[HeldKey], forgotten: float | None, alive: bool,
              recovery_since: float | None) -> Place:
    """Keys of an epoch begun before the forget open what was sealed of the memory before it; this device's
    key pair and the recovery key, if made before it, open those epochs' wraps in the server's history."""
    place = Place("key store")
    if not s.files.state().get("version") and not s.files.path("base.json").exists():
        return place  # never synced: nothing of this agent was ever sealed

    def before(t: float | None) -> bool:  # milliseconds (older rows: seconds, the same one counting as after)
        return alive or forgotten is None or t is None or t < forgotten

    old = [k for k in keys if before(k.since)]
    place.found += [f"key {k.fingerprint} (epoch {k.epoch}) opens its copies sealed before the forget, which the "
                    "server's history (sqld's WAL and replication log) keeps" for k in old]
    if has_identity(s.config, s.agent_id) and before(device_state(s.config, s.agent_id).get("identity_since")):
        place.found.append("this device's key pair, made before the forget, opens the wraps of the epochs it "
                           "held then, which the server's history keeps")
    if recovery_since is not None and before(recovery_since):
        place.found.append("the recovery key, issued before the forget, opens the wraps of the epochs of "
                           "that time, which the server's history keeps ('forget --shred' re-issues it)")
    return place


def verify(config: Config, agent_id: str, memory_id: str, workspaces: Sequence[Path] = ()) -> dict[str, Any]:
    """The report: {"agent_id", "id", "clean", "forgotten_at", "places": [{place, status, found[, note]}]};
    `workspaces`: the OpenClaw workspaces whose bank/ this agent writes too."""
    memory_id = (memory_id or "").strip()
    if not memory_id:
        raise UsageError("memory id is empty")
    if not config.agent_dir(agent_id).is_dir():
        raise UsageError(f"agent {agent_id!r} has no memories on this device")
    s = Session(config, agent_id)
    s.keys_checked = True  # a look, not a sync: this device's key store is read as it is, never changed
    try:
        places = tier_places(s.mem, memory_id) + [index_place(s.index, agent_id, memory_id)]
        alive = any(p.found for p in places[:2]) or bool(places[3].found and "row" in places[3].found[0])
        forgotten = forgotten_at(s.index, agent_id, memory_id)
        if forgotten is None and not any(p.found for p in places[:3]) and not alive:
            raise UsageError(f"no memory {memory_id!r} on this device, and no record of its forget")
        places += derived_places(s.mem, memory_id, forgotten, workspaces)
        places.append(device_critical(s, memory_id))
        synced = not s.is_file or bool(s.files.state().get("version"))
        began, recovery = epoch_times(s) if synced else ({}, None)
        keys = held_keys(config, agent_id, began)
        if synced:
            places += server_places(s, memory_id, keys)
        places.append(key_place(s, keys, forgotten, alive, recovery))
    finally:
        s.close()
    return {"agent_id": agent_id, "id": memory_id, "clean": not any(p.status in (REMAINS, UNKNOWN) for p in places),
            "forgotten_at": forgotten, "places": [p.to_json() for p in places]}
