"""Push and pull of the encrypted critical state as a log of per-item changes (sync/critical_log.py).

push_now() stamps local changes (sync/base.json) before any network I/O, then sends one atomic batch:
the change (every item where this device differs from what the log holds) appended under a server seq,
and a read of what other devices appended since this device's cursor. Nobody races on a version: what
came back is merged per item (sync/merge/replica.py) and written to the local files; only a merge that
changes something of its own (limits evicting an item) sends again. Now and then a snapshot of the whole
state is written too (a second round trip), which lets the changes it covers be deleted.
"""
from __future__ import annotations

import logging
import time
from typing import Any

from memoryd.tiers.base.config import Config
from memoryd.tiers.base.errors import MemorydError, RemoteError, StoreError, UsageError
from memoryd.tiers.base.halt import halt

from memoryd.sync import cloudlog_exchange, critical_log
from memoryd.sync.critical_log import Exchange, delta, is_empty
from memoryd.sync.merge.hlc import stamp_seconds
from memoryd.sync.merge.replica import (Replica, compact, drop_orphans, join, materialize, max_stamp, normal, orphans,
                                        replica_hash, restamp, unmerged)
from memoryd.sync.outbox import record_failure
from memoryd.sync.session import Session

log = logging.getLogger("memoryd.sync")
MAX_ATTEMPTS = 8


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
            if base["pushed"] and base["pushed"] == replica_hash(base["replica"]):
                s.files.save_cloud(base["replica"])  # what the log holds, until now the base itself (see cloud())
            s.files.save_base(base["version"], rep, base["pushed"], hlc)
            base = dict(base, replica=rep)
    return base


def absorb(s: Session, remote: Replica, version: int) -> Replica:
    """Merge changes from the cloud into local files and base (at log cursor `version`); returns the merged
    local replica. The caller opened `remote` first: a CryptoError comes before anything local changes."""
    with s.mem.exclusive():
        resume_merge(s)
        base = s.files.base()
        hlc = s.files.hlc()
        hlc.observe(max(max_stamp(base["replica"]), max_stamp(remote)))
        local = restamp(base["replica"], _local_state(s, base["replica"]), hlc.now())
        # the cursor (state.json) moves once, when the sync ends (_Sync.finish): one write less per pull
        return _apply_merge(s, join(local, remote), local, version, base["pushed"], hlc, cursor=False)


def _apply_merge(s: Session, merged: Replica, local: Replica, version: int, pushed: str, hlc: Any, *,
                 cursor: bool = True) -> Replica:
    """Write a merge to the tier files, then base.json (and the cursor `version` in state.json unless not
    `cursor`: the caller records it later; a crash before then only reads the same changes again). The merge
    journal goes first: a process killed in between is finished by the next one (resume_merge) instead of
    its half-written files being taken for local edits, whose fresh stamps would beat other devices' later edits."""
    view = materialize(merged)
    promoted = view["hot"]["critical_lessons"]  # drop_orphans replaces this list, never changes it
    view = drop_orphans(view, merged, _archived(s, merged, view))
    held = materialize(local)
    if view != held:
        s.files.save_merging(version, pushed, merged, local)
        top = max_stamp(merged)
        now = stamp_seconds(top) if top else time.time()
        _log_removed(s, held, view, [les for les in promoted if les not in view["hot"]["critical_lessons"]], now)
        write_local(s, view, now, "sync-merge")
        halt("sync:merged")  # the crash tests' point: tier files written, base.json not yet
    # Limits may have evicted items: stamp that (tombstones) so every device agrees.
    after = restamp(merged, s.mem.read_state(), hlc.now())
    final = compact(merged if after is merged else normal(after))  # a join's result is normal already
    if cursor:
        s.files.save_base(version, final, pushed, hlc)
    else:
        s.files.save_replica(final, hlc)
    s.files.clear_merging()
    return final


def _archived(s: Session, merged: Replica, view: dict | None = None) -> frozenset[str]:
    """Sources of orphaned lessons that are in the local index: archived to cold, not forgotten (a forget
    deletes the index row too, here or, pulled from the cloud log, from another device). `view`: the
    materialized `merged`, when the caller has it."""
    ids = sorted({les["source_id"] for les in orphans(materialize(merged) if view is None else view, merged)})
    if not ids or s.mem.archive is None:
        return frozenset()
    return frozenset(e["id"] for e in s.mem.archive.get(s.agent_id, ids))


def _hot_items(state: dict) -> dict[str, str]:
    """Hot list items by id → kind (lessons, events, tasks, projects)."""
    ctx = state["hot"]["active_context"]
    groups = (("lesson", state["hot"]["critical_lessons"]), ("event", ctx["events"]), ("task", ctx["tasks"]),
              ("project", ctx["projects"]))
    return {i["id"]: kind for kind, items in groups for i in items if isinstance(i, dict) and "id" in i}


def _log_removed(s: Session, held: dict, view: dict, orphaned: list[dict], now: float) -> None:
    """Hot items this device held that the merge removes are logged like any eviction, before the files
    change: no hot item leaves without a row saying which and why. Ids only, no text: the cause may be a
    forget (on another device, whose own log says which); hot's limits log their rows in write_state."""
    dropped = {les.get("id") for les in orphaned}
    kept = _hot_items(view)
    rows = [{"tier": "hot", "kind": kind, "id": item_id, "what": "", "reason": "sync-merge",
             "why": "its source memory was forgotten on another device" if item_id in dropped
             else "removed on another device (evicted or forgotten there)"}
            for item_id, kind in sorted(_hot_items(held).items()) if item_id not in kept]
    s.mem.record_evictions(rows, now)


def resume_merge(s: Session) -> None:
    """Finish a merge whose process died between the tier files and base.json (agent lock held)."""
    journal = s.files.merging()
    if journal is None:
        return
    base = s.files.base()
    hlc = s.files.hlc()
    hlc.observe(max(max_stamp(base["replica"]), max_stamp(journal["merged"])))
    # what the device held when it merged: an item it removed since the crash is only seen as removed
    # against that, not against base (which never had an item edited between the sync's stamp and its merge)
    before = journal.get("local") or base["replica"]
    hlc.observe(max_stamp(before))
    files = s.mem.read_state()  # edits made since the crash are stamped as this device's own
    local = unmerged(restamp(before, files, hlc.now()), before, files, journal["merged"],
                     _archived(s, journal["merged"]))
    log.warning("agent %s: finishing a merge interrupted by a crash", s.agent_id)
    _apply_merge(s, join(local, journal["merged"]), local, journal["version"], journal["remote_hash"], hlc)


def _result(s: Session, status: str, version: int, **extra: Any) -> dict[str, Any]:
    return {"agent_id": s.agent_id, "status": status, "version": version, "round_trips": s.round_trips,
            "bytes_sent": s.bytes_sent, "critical_bytes": s.critical_bytes, "log_bytes": s.log_bytes,
            "change_bytes": s.change_bytes, "conflicts": s.conflicts, "pending": int(status == "queued"), **extra}


class _Sync:
    """One sync of the critical log: the cursor, what the log holds, what came back."""

    def __init__(self, s: Session, base: dict[str, Any], cold: cloudlog_exchange.ColdPull | None = None) -> None:
        self.s = s
        self.cold = cold  # a pull's look at the cloud log: rides in the first batch, applied before any merge
        self.cursor = critical_log.legacy_cursor(base)
        self.start = max(self.cursor, 0)
        self.others_top = self.start  # the last seq other devices had reached when we looked
        self.legacy = int(base["version"])
        self._cloud: Replica | None = None  # read when needed: nothing changed since the last sync → never
        self.rep = base["replica"]
        self._synced = base["pushed"] == replica_hash(self.rep)  # as it was when the last sync ended
        self._start = self.rep if self._synced else None  # then that is what the log holds (no cloud.json)
        self.sent = self.received = self.uploaded = 0
        self.last: Exchange | None = None
        self._owed: tuple[Replica, Replica, Replica | None] | None = None

    @property
    def cloud(self) -> Replica:
        """What the critical log is known to hold: the base as the sync began if it was synced, else cloud.json
        (read before this sync changes base.json, whose `pushed` no longer matches it then)."""
        if self._cloud is None:
            self._cloud = self._start if self._start is not None else self.s.files.cloud()
        return self._cloud

    @cloud.setter
    def cloud(self, rep: Replica) -> None:
        self._cloud = rep

    def owed(self) -> Replica | None:
        """The change this device owes the log (None: nothing); replicas are never changed in place."""
        if self._synced and self._cloud is None:
            return None
        if self._owed is None or self._owed[0] is not self.cloud or self._owed[1] is not self.rep:
            change = delta(self.cloud, self.rep)
            self._owed = (self.cloud, self.rep, None if is_empty(change) else change)
        return self._owed[2]

    def round(self, change: Replica | None) -> bool:
        """One exchange; True when it appended `change` (or there was none)."""
        s = self.s
        ride = cloudlog_exchange.riding(s)  # entries that left warm go up in the same batch
        if change is not None:
            s.change_bytes += critical_log.change_size(change, s.local_ring().key(s.local_ring().current), s.agent_id)
        lead = self.cold.reads if self.cold is not None and not self.cold.applied else []
        got, sent = critical_log.exchange(s, self.cursor, self.legacy, change, ride.stmts if ride else [], lead)
        if ride is not None and got.applied:
            self.uploaded += ride.done()
        if lead:  # memories archived elsewhere are in the index before a merge looks for orphaned lessons' sources
            self.cold.apply(got.lead)
        s.bytes_sent += sent
        s.critical_bytes += sent
        remote = critical_log.remote_changes(s, got)  # all verified before anything local changes
        covered = self.cursor
        if got.snapshot is not None and (got.snapshot[2] is not None or got.snapshot[0] == self.legacy):
            covered = max(covered, got.snapshot[0])
        cursor = max(self.cursor, got.top, covered)
        self.others_top = max([self.others_top, covered, *(seq for seq, *_ in got.rows)])
        if got.appended:
            self._synced = False  # from here on, cloud and rep are compared
            self.cloud = join(self.cloud, change)
            self.sent += 1
        if not is_empty(remote):
            s.conflicts += int(got.appended and bool(got.rows))
            self.received += len(got.rows) + int(got.snapshot is not None and got.snapshot[2] is not None)
            self._synced = False
            self.rep = absorb(s, remote, cursor)
            self.cloud = join(self.cloud, remote)
        self.cursor, self.last = cursor, got  # saved by finish(): lost before it, a change is only sent twice
        return got.applied

    def run(self) -> None:
        """Exchange until nothing is owed (a merge's own changes go up in the next round)."""
        for _ in range(MAX_ATTEMPTS):
            change = self.owed()
            if change is None and self.last is not None:
                return
            if not self.round(change):
                self.s.refresh_keys()  # a new epoch began: seal again under it
        raise RemoteError(f"gave up pushing agent {self.s.agent_id} after {MAX_ATTEMPTS} rounds", transient=True)

    def finish(self, force: bool) -> dict[str, Any]:
        """Record the sync; a snapshot when one is due. Returns what to add to the result."""
        s, extra = self.s, {}
        # periodic snapshots come from devices that write (a device that only reads adds nothing to the tail)
        due = self.last is not None and critical_log.snapshot_due(s, self.last, force or s.purge_history)
        if due and (self.sent or force or s.purge_history or self.last.snapshot is None):
            version, sent = critical_log.write_snapshot(s, self.rep, self.cursor, s.purge_history)
            s.bytes_sent += sent
            s.critical_bytes += sent
            extra["snapshot"] = version
        now = time.time()
        pushed = {"last_push": now} if self.sent else {}
        # nothing is owed now: the log holds the base replica whose hash goes in as `pushed`; cloud.json,
        # written when local edits were stamped, goes (a forgotten memory's text leaves with it)
        s.files.save_base(self.cursor, self.rep, replica_hash(self.rep), log=True, last_check=now, last_pull=now,
                          last_error=None, **pushed, **_checked(s))
        s.files.drop_cloud()
        s.files.clear_outbox()
        return extra

    def status(self, pulling: bool, snapshot: bool = False) -> str:
        if self.sent or snapshot:
            return "pushed"
        if self.received:
            return "pulled" if pulling else "merged"
        return "current" if pulling else "unchanged"



def _checked(s: Session) -> dict[str, Any]:
    return {"check": s.check} if s.check else {}


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
        sync = _Sync(s, base)
        unchanged = not force and sync.cursor >= 0 and sync.owed() is None
        cold = _cold(s, pull=False, progress=progress, upload=unchanged)  # else a page rides in the push
        if unchanged:
            s.files.clear_outbox()
            return _result(s, "unchanged", base["version"], **cold)
        sync.run()
        extra = sync.finish(force)
        if sync.uploaded and "cold" in cold:
            cold["cold"]["uploaded"] = cold["cold"].get("uploaded", 0) + sync.uploaded
        log.info("agent %s: pushed critical state (log seq %d)", s.agent_id, sync.cursor)
        return _result(s, sync.status(False, "snapshot" in extra), sync.cursor, **extra, **cold)

    try:
        return _guarded(s, body)
    finally:
        s.close()


def _cold(s: Session, *, pull: bool, force: bool = False, progress: Any = None, upload: bool = True) -> dict[str, Any]:
    """With a server URL: the cloud log's half of the sync (with file: the local index is the archive)."""
    if s.is_file:
        return {}
    return {"cold": cloudlog_exchange.exchange(s, pull=pull, force=force, progress=progress, upload=upload)}


def pull_now(config: Config, agent_id: str, *, db: Any = None, key: bytes | None = None, force: bool = False,
             progress: Any = None) -> dict[str, Any]:
    """Two-way: pull and apply what other devices pushed (cloud log, then the critical state's changes),
    and push what only we hold (the change rides in the same batch). `force` also re-sends
    everything (the cloud log from the start, the critical state even if unchanged)."""
    s = Session(config, agent_id, db=db, key=key)
    s.purge_history = bool((s.files.outbox() or {}).get("purge_history"))
    _check_agent(s)

    def body() -> dict[str, Any]:
        base = stamp_local(s)  # local edits are stamped before any network I/O
        cold_pull = None if s.is_file else cloudlog_exchange.ColdPull(s, force=force, progress=progress)
        sync = _Sync(s, base, cold_pull)
        ahead = sync.owed() is not None
        sync.run()  # one batch reads the cloud log, appends what we owe and brings what the others appended
        cold = {} if cold_pull is None else {"cold": cold_pull.result(sync.uploaded)}
        s.check = _check_report(sync, cold, ahead)
        extra = sync.finish(force or s.purge_history)
        if sync.received:
            extra.update(pulled_from=sync.start, pulled_version=sync.cursor)
        return _result(s, sync.status(True, "snapshot" in extra), sync.cursor, **extra, **cold)

    try:
        return _guarded(s, body)
    finally:
        s.close()


def _check_report(sync: _Sync, cold: dict[str, Any], ahead: bool) -> dict[str, Any]:
    """How far behind and ahead of the server this device was when it looked (shown by `status`)."""
    c = cold.get("cold") or {}
    return {"local_version": sync.start, "remote_version": sync.others_top, "behind": sync.received,
            "pulled_rows": int((c.get("pulled") or {}).get("rows", 0)), "uploaded": int(c.get("uploaded", 0)),
            "ahead": ahead}
