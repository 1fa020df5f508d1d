"""Push and pull of the encrypted critical state: compare-and-swap on version, merge on conflict.

push_now() stamps local changes (sync/base.json) before any network I/O, then sends one atomic
batch: a conditional upsert of critical_state (applies only if the cloud is still at the version
we merged), a copy into critical_versions, trimming to the last 30 versions, and a probe that
returns the cloud's row unless it is ours. No conflict → one round trip. Conflict → the probe
already carries the newer ciphertext: decrypt, merge, write local files, retry (bounded).
"""
from __future__ import annotations

import logging
import time
from typing import Any

from memoryd.tiers.base.config import Config
from memoryd.tiers.base.errors import MemorydError, RemoteError, StoreError, UsageError

from memoryd.sync import cloudlog_exchange
from memoryd.sync.epoch_store import CURRENT, GUARD, guard_args
from memoryd.sync.merge.hlc import stamp_seconds
from memoryd.sync.merge.replica import (Replica, compact, drop_orphans, join, materialize, max_stamp, normal, orphans,
                                        replica_hash, restamp, unmerged)
from memoryd.sync.outbox import record_failure
from memoryd.sync.session import Session

log = logging.getLogger("memoryd.sync")
KEEP_VERSIONS = 30
MAX_ATTEMPTS = 8
MARKER_CHARS = 24  # base64 of MAGIC + the random nonce: identifies one envelope

# The upsert applies only while the epoch that sealed it is current (sync/epoch_store.py GUARD).
_UPSERT = ("INSERT INTO critical_state (agent_id, data, version, device_id, updated_at, epoch) "
           "SELECT ?, ?, ?, ?, ?, ? WHERE " + GUARD + " "
           "ON CONFLICT (agent_id) DO UPDATE SET data = excluded.data, version = excluded.version, "
           "device_id = excluded.device_id, updated_at = excluded.updated_at, epoch = excluded.epoch "
           "WHERE critical_state.version = ?")
_COPY = ("INSERT OR REPLACE INTO critical_versions (agent_id, version, data, device_id, updated_at, epoch) "
         "SELECT agent_id, version, data, device_id, updated_at, epoch FROM critical_state "
         "WHERE agent_id = ? AND version = ? AND substr(data, 1, ?) = ?")
_TRIM = "DELETE FROM critical_versions WHERE agent_id = ? AND version <= ?"
_PROBE = ("SELECT version, CASE WHEN version = ? AND substr(data, 1, ?) = ? THEN NULL ELSE data END, epoch "
          "FROM critical_state WHERE agent_id = ?")


def write_local(s: Session, state: dict[str, Any], now: float, reason: str) -> list[dict]:
    """Write a merged state through the tiers (limits, MEMORY.md, evictions to cold) at a data-derived
    time: limits applied at the same instant on every device → same result. The caller holds the agent lock."""
    return s.mem.write_state(state, reason, now=now)


def _local_state(s: Session, base: Replica) -> dict[str, Any]:
    """The agent's files; a file that vanished is rebuilt from base, not read as "forget everything"."""
    state = s.mem.read_state()
    lost = [name for name in ("hot", "warm", "tree") if not s.mem.has_file(name)]
    if lost and base["stamps"]:
        known = materialize(base)
        lost = [name for name in lost if known[name] != state[name]]
        if lost:
            log.warning("agent %s: %s missing; rebuilt from the last synced state", s.agent_id, ", ".join(lost))
            state.update({name: known[name] for name in lost})
            s.mem.write_state(state, "sync-rebuild")
            state = s.mem.read_state()
    return state


def stamp_local(s: Session) -> dict[str, Any]:
    """Stamp what changed locally since base.json and save it; returns the (updated) base."""
    with s.mem.exclusive():
        resume_merge(s)
        base = s.files.base()
        hlc = s.files.hlc()
        hlc.observe(max_stamp(base["replica"]))
        rep = restamp(base["replica"], _local_state(s, base["replica"]), hlc.now())
        if rep is not base["replica"]:
            rep = compact(normal(rep))
            s.files.save_base(base["version"], rep, base["pushed"], hlc)
            base = dict(base, replica=rep)
    return base


def absorb(s: Session, version: int, data: str, epoch: int = 0) -> tuple[Replica, bool]:
    """Merge the cloud's version into local files and base; returns (merged, whether we hold more)."""
    remote = s.open(version, data, epoch)  # CryptoError before anything local changes
    remote_hash = replica_hash(normal(remote))
    with s.mem.exclusive():
        resume_merge(s)
        base = s.files.base()
        hlc = s.files.hlc()
        hlc.observe(max(max_stamp(base["replica"]), max_stamp(remote)))
        local = restamp(base["replica"], _local_state(s, base["replica"]), hlc.now())
        final = _apply_merge(s, join(local, remote), local, version, remote_hash, hlc)
    return final, replica_hash(final) != remote_hash


def _apply_merge(s: Session, merged: Replica, local: Replica, version: int, remote_hash: str, hlc: Any) -> Replica:
    """Write a merge to the tier files, then base.json. The merge journal goes first: a process killed
    in between is finished by the next one (resume_merge) instead of its half-written files being
    taken for local edits, whose fresh stamps would beat other devices' later edits."""
    view = materialize(merged)
    promoted = view["hot"]["critical_lessons"]  # drop_orphans replaces this list, never changes it
    view = drop_orphans(view, merged, _archived(s, merged))
    if view != materialize(local):
        s.files.save_merging(version, remote_hash, merged)
        top = max_stamp(merged)
        now = stamp_seconds(top) if top else time.time()
        _log_removed(s, local, view, [les for les in promoted if les not in view["hot"]["critical_lessons"]], now)
        write_local(s, view, now, "sync-merge")
    # Limits may have evicted items: stamp that (tombstones) so every device agrees.
    final = compact(normal(restamp(merged, s.mem.read_state(), hlc.now())))
    s.files.save_base(version, final, remote_hash, hlc)
    s.files.clear_merging()
    return final


def _archived(s: Session, merged: Replica) -> frozenset[str]:
    """Sources of orphaned lessons that are in the local index: archived to cold, not forgotten (a forget
    deletes the index row too, here or, pulled from the cloud log, from another device)."""
    ids = sorted({les["source_id"] for les in orphans(materialize(merged), merged)})
    if not ids or s.mem.archive is None:
        return frozenset()
    return frozenset(e["id"] for e in s.mem.archive.get(s.agent_id, ids))


def _hot_items(state: dict) -> dict[str, str]:
    """Hot list items by id → kind (lessons, events, tasks, projects)."""
    ctx = state["hot"]["active_context"]
    groups = (("lesson", state["hot"]["critical_lessons"]), ("event", ctx["events"]), ("task", ctx["tasks"]),
              ("project", ctx["projects"]))
    return {i["id"]: kind for kind, items in groups for i in items if isinstance(i, dict) and "id" in i}


def _log_removed(s: Session, local: Replica, view: dict, orphaned: list[dict], now: float) -> None:
    """Hot items this device held that the merge removes are logged like any eviction, before the files
    change: no hot item leaves without a row saying which and why. Ids only, no text: the cause may be a
    forget (on another device, whose own log says which); hot's limits log their rows in write_state."""
    dropped = {les.get("id") for les in orphaned}
    kept = _hot_items(view)
    rows = [{"tier": "hot", "kind": kind, "id": item_id, "what": "", "reason": "sync-merge",
             "why": "its source memory was forgotten on another device" if item_id in dropped
             else "removed on another device (evicted or forgotten there)"}
            for item_id, kind in sorted(_hot_items(materialize(local)).items()) if item_id not in kept]
    s.mem.record_evictions(rows, now)


def resume_merge(s: Session) -> None:
    """Finish a merge whose process died between the tier files and base.json (agent lock held)."""
    journal = s.files.merging()
    if journal is None:
        return
    base = s.files.base()
    hlc = s.files.hlc()
    hlc.observe(max(max_stamp(base["replica"]), max_stamp(journal["merged"])))
    files = s.mem.read_state()  # edits made since the crash are stamped as this device's own
    local = unmerged(restamp(base["replica"], files, hlc.now()), base["replica"], files, journal["merged"],
                     _archived(s, journal["merged"]))
    log.warning("agent %s: finishing a merge interrupted by a crash", s.agent_id)
    _apply_merge(s, join(local, journal["merged"]), local, journal["version"], journal["remote_hash"], hlc)


def cas(s: Session, expected: int, rep: Replica) -> tuple[bool, int, str | None, int]:
    """One atomic batch: write version expected+1 if the cloud is at `expected` (and our epoch is current).
    (applied, version, data, epoch)."""
    upload_archived(s)
    new = expected + 1
    for _ in range(3):  # a rotation between our key check and this write: check again, seal again
        epoch, data = s.seal(rep, new)
        marker = data[:MARKER_CHARS]
        s.bytes_sent += len(data)
        s.critical_bytes += len(data)
        results = s.batch([
            (_UPSERT, [s.agent_id, data, new, s.files.device_id(), round(time.time(), 3), epoch,
                       *guard_args(s.agent_id, epoch), expected]),
            (_COPY, [s.agent_id, new, MARKER_CHARS, marker]),
            (_TRIM, [s.agent_id, new - (1 if s.purge_history else KEEP_VERSIONS)]),
            (_PROBE, [new, MARKER_CHARS, marker, s.agent_id]),
            (CURRENT, [s.agent_id]),
        ])
        if int(results[4].scalar(0) or 0) == epoch:
            break
        s.refresh_keys()
    rows = results[3].rows
    if not rows:
        raise RemoteError(f"critical state of agent {s.agent_id} vanished during the push", transient=True)
    version, other, other_epoch = int(rows[0][0]), rows[0][1], int(rows[0][2] or 0)
    return (version == new and other is None), version, other, other_epoch


def upload_archived(s: Session) -> int:
    """Entries that left warm are in the cloud log before a push announces their removal from warm."""
    return 0 if s.is_file else cloudlog_exchange.upload(s)


def _result(s: Session, status: str, version: int, **extra: Any) -> dict[str, Any]:
    return {"agent_id": s.agent_id, "status": status, "version": version, "round_trips": s.round_trips,
            "bytes_sent": s.bytes_sent, "critical_bytes": s.critical_bytes, "log_bytes": s.log_bytes,
            "conflicts": s.conflicts, "pending": int(status == "queued"), **extra}


def _push_loop(s: Session, base: dict[str, Any], force: bool, rep_hash: str | None = None) -> dict[str, Any]:
    version, rep = base["version"], base["replica"]
    for _ in range(MAX_ATTEMPTS):
        applied, remote_version, remote_data, remote_epoch = cas(s, version, rep)
        if applied:
            now = time.time()
            s.files.save_base(remote_version, rep, rep_hash or replica_hash(rep), last_push=now, last_check=now,
                              last_error=None, **_checked(s))
            s.files.clear_outbox()
            log.info("agent %s: pushed critical state v%d", s.agent_id, remote_version)
            return _result(s, "pushed", remote_version)
        s.conflicts += 1
        if remote_data is None:
            raise RemoteError(f"critical state of agent {s.agent_id} changed under us; retrying", transient=True)
        rep, ahead = absorb(s, remote_version, remote_data, remote_epoch)
        rep_hash = None
        version = remote_version
        if not ahead and not force and not s.purge_history:  # a purge still needs its own write
            return _synced(s, "merged", version)
        force = False
    raise RemoteError(f"gave up pushing agent {s.agent_id} after {MAX_ATTEMPTS} conflicting writes", transient=True)


def _checked(s: Session) -> dict[str, Any]:
    return {"check": s.check} if s.check else {}


def _synced(s: Session, status: str, version: int, **extra: Any) -> dict[str, Any]:
    s.files.clear_outbox()
    s.files.update_state(version=version, last_pull=time.time(), last_check=time.time(), last_error=None,
                         **_checked(s))
    return _result(s, status, version, **extra)


def _guarded(s: Session, body: Any) -> dict[str, Any]:
    """Run a sync body under the agent's sync lock; transient failures go to the outbox."""
    with s.files.lock.held():
        if s.files.restoring():
            raise StoreError(f"agent {s.agent_id}: a restore was interrupted; run 'memoryd restore' again")
        try:
            return body()
        except MemorydError as exc:
            if exc.transient:
                record = record_failure(s.files, exc.message, purge_history=s.purge_history)
                if s.check:  # the server was reached before the failure: that look still counts
                    s.files.update_state(last_check=time.time(), check=s.check)
                log.info("agent %s: push queued (%s); retry in %.0fs", s.agent_id, exc.message,
                            record["next_try"] - time.time())
                return _result(s, "queued", s.files.base()["version"], error=exc.message,
                               attempts=record["attempts"], next_try=record["next_try"])
            s.files.update_state(last_error=exc.message, last_error_at=time.time())
            raise


def _check_agent(s: Session) -> None:
    if not s.mem.exists():
        raise UsageError(f"agent {s.agent_id} has no memory on this device: run 'memoryd init' or 'memoryd restore'")
    s.local_ring()  # a missing key is a usage error too, before any file is written (no network yet)


def push_now(config: Config, agent_id: str, force: bool = False, *, db: Any = None,
             key: bytes | None = None, purge_history: bool = False, progress: Any = None) -> dict[str, Any]:
    """Push local changes now: archived memories to the cloud log, then the critical state. An
    unchanged state costs no round trip unless `force` (or `purge_history`).

    purge_history=True (after `forget`): the same batch deletes every older stored version, since
    those still hold what was forgotten. Returns {"status": pushed|unchanged|merged|queued,
    "version", "round_trips", "bytes_sent", ...}; "queued" means a transient failure was recorded
    in the outbox (the caller exits 1).
    """
    s = Session(config, agent_id, db=db, key=key)
    s.purge_history = purge_history or bool((s.files.outbox() or {}).get("purge_history"))
    force = force or s.purge_history
    _check_agent(s)  # a usage error (no such agent, no key) before anything is written

    def body() -> dict[str, Any]:
        base = stamp_local(s)  # local edits are stamped before any network I/O
        cold = _cold(s, pull=False, progress=progress)
        rep_hash = replica_hash(base["replica"])
        if not force and rep_hash == base["pushed"]:
            s.files.clear_outbox()
            return _result(s, "unchanged", base["version"], **cold)
        return dict(_push_loop(s, base, force, rep_hash), **cold)

    try:
        return _guarded(s, body)
    finally:
        s.close()


def _cold(s: Session, *, pull: bool, force: bool = False, progress: Any = None) -> dict[str, Any]:
    """With a server URL: the cloud log's half of the sync (with file: the local index is the archive)."""
    if s.is_file:
        return {}
    return {"cold": cloudlog_exchange.exchange(s, pull=pull, force=force, progress=progress)}


def pull_now(config: Config, agent_id: str, *, db: Any = None, key: bytes | None = None, force: bool = False,
             progress: Any = None) -> dict[str, Any]:
    """Two-way: pull and apply what other devices pushed (cloud log, then a newer critical state:
    one round trip when there is none), then push what only we hold. `force` also re-sends
    everything (the cloud log from the start, the critical state even if unchanged)."""
    s = Session(config, agent_id, db=db, key=key)
    s.purge_history = bool((s.files.outbox() or {}).get("purge_history"))
    _check_agent(s)

    def body() -> dict[str, Any]:
        base = stamp_local(s)  # local edits are stamped before any network I/O
        cold = _cold(s, pull=True, force=force, progress=progress)
        start = base["version"]
        rows = s.execute("SELECT version, data, epoch FROM critical_state WHERE agent_id = ? AND version <> ?",
                         [agent_id, base["version"]]).rows
        s.check = _check_report(base, rows, cold)
        pulled = None
        if rows:
            s.conflicts = 0
            pulled = int(rows[0][0])
            _, ahead = absorb(s, pulled, rows[0][1], int(rows[0][2] or 0))
            base = s.files.base()
            if not ahead and not force and not s.purge_history:
                return _synced(s, "pulled", base["version"], pulled_from=start, **cold)
        elif replica_hash(base["replica"]) == base["pushed"] and not force and not s.purge_history:
            return _synced(s, "current", base["version"], **cold)
        out = _push_loop(s, base, force or s.purge_history)
        return dict(out, **cold, **({"pulled_from": start, "pulled_version": pulled} if pulled else {}))

    try:
        return _guarded(s, body)
    finally:
        s.close()


def _check_report(base: dict[str, Any], rows: list[Any], cold: dict[str, Any]) -> dict[str, Any]:
    """How far behind and ahead of the server this device was when it looked (shown by `status`)."""
    remote = int(rows[0][0]) if rows else base["version"]
    c = cold.get("cold") or {}
    return {"local_version": base["version"], "remote_version": remote, "behind": max(0, remote - base["version"]),
            "pulled_rows": int((c.get("pulled") or {}).get("rows", 0)), "uploaded": int(c.get("uploaded", 0)),
            "ahead": replica_hash(base["replica"]) != base["pushed"]}
