"""Restore an agent on a new device from the cloud (latest or an older version)."""
from __future__ import annotations

import time
from datetime import datetime, timezone
from typing import Any

from memoryd.tiers.base.config import Config
from memoryd.tiers.base.errors import MemorydError, RemoteError, UsageError

from memoryd.sync import cloudlog_transfer
from memoryd.sync.critical_log import open_change
from memoryd.sync.cloudlog_device import DeviceLog
from memoryd.sync.critical import write_local
from memoryd.sync.crypto.device_keys import KeyRing, has_store, save_ring
from memoryd.sync.crypto.keys import fingerprint, import_key, load_key, read_key_file
from memoryd.sync.device_files import SyncFiles
from memoryd.sync.merge.hlc import stamp_seconds
from memoryd.sync.merge.replica import (Replica, compact, empty_replica, explode, join, materialize, max_stamp, normal,
                                        replica_hash, restamp)
from memoryd.sync.session import Session

_ROW = "SELECT version, data, device_id, updated_at, epoch FROM critical_state WHERE agent_id = ?"
# the changes after the last snapshot (every one of them when there is none yet)
_TAIL = ("SELECT seq, device_id, epoch, data, created_at FROM critical_log WHERE agent_id = ? AND seq > "
         "COALESCE((SELECT version FROM critical_state WHERE agent_id = ?), 0) ORDER BY seq")
_AT_VERSION = ("SELECT version, data, device_id, updated_at, epoch FROM critical_versions "
               "WHERE agent_id = ? AND version = ?")
_AT_TIME = ("SELECT version, data, device_id, updated_at, epoch FROM critical_versions WHERE agent_id = ? "
            "AND updated_at <= ? ORDER BY version DESC LIMIT 1")


def parse_at(at: str | int | None) -> tuple[str, float] | None:
    """`--at`: a version number or an ISO-8601 time (naive = UTC) → ("version", n) | ("time", unix s)."""
    if at is None or at == "":
        return None
    text = str(at).strip()
    if text.isdigit():
        if not 1 <= int(text) < 2 ** 63:
            raise UsageError(f"--at {text}: versions are 1 to {2 ** 63 - 1}")
        return "version", int(text)
    try:
        when = datetime.fromisoformat(text)
        if when.tzinfo is None:
            when = when.replace(tzinfo=timezone.utc)
        stamp = when.timestamp()
        datetime.fromtimestamp(stamp, timezone.utc)  # messages print it back: must stay in range
    except (ValueError, OverflowError, OSError):
        raise UsageError(f"--at {text!r} is neither a version number nor an ISO time (2026-01-31T12:00:00Z)") from None
    return "time", stamp


def _as_row(rows: list[Any]) -> dict[str, Any] | None:
    if not rows:
        return None
    version, data, device, updated, epoch = rows[0]
    return {"version": int(version), "data": data, "device_id": device, "updated_at": float(updated),
            "epoch": int(epoch or 0)}


def _row(s: Session, sql: str, args: list[Any]) -> dict[str, Any] | None:
    return _as_row(s.execute(sql, args).rows)


def _fetch(s: Session, at: tuple[str, float] | None) -> tuple[dict[str, Any], dict[str, Any]]:
    """(the row to restore, the latest): the latest is the last snapshot with the changes after it ("tail"),
    its version the last change's seq; an older row is a stored snapshot alone."""
    snap, tail = s.batch([(_ROW, [s.agent_id]), (_TAIL, [s.agent_id, s.agent_id])])
    snapshot = _as_row(snap.rows)
    if snapshot is None and not tail.rows:
        raise RemoteError(f"no critical state for agent {s.agent_id} in {s.db.display_url}", transient=False)
    latest = dict(snapshot or {"version": 0, "data": None, "device_id": "", "updated_at": 0.0, "epoch": 0},
                  tail=[tuple(r) for r in tail.rows])
    latest["snapshot"] = latest["version"]  # the version its ciphertext is bound to
    if tail.rows:
        last = tail.rows[-1]
        latest.update(version=int(last[0]), device_id=last[1], updated_at=float(last[4]))
    if at is None:
        return latest, latest
    if at[0] == "version":
        row = _row(s, _AT_VERSION, [s.agent_id, int(at[1])])
        what = f"version {int(at[1])}"
    else:
        when = float(at[1])
        if when.is_integer():  # a time to the second (as `versions` prints it) covers that second
            when += 0.999
        row = _row(s, _AT_TIME, [s.agent_id, when])
        what = f"a version at or before {datetime.fromtimestamp(at[1], timezone.utc).isoformat()}"
    if row is None:
        raise UsageError(f"agent {s.agent_id} has no stored {what} (the cloud keeps the last 30)")
    return row, latest


def _has_memory(s: Session) -> bool:
    return s.mem.exists() and bool(explode(s.mem.read_state()))


def _check_key(config: Config, agent_id: str, key: bytes, force: bool) -> None:
    """A different local key may be replaced only if it never encrypted anything (no sync history) or force."""
    current = read_key_file(config.key_path(agent_id))
    never_synced = not SyncFiles(config, agent_id).path("base.json").exists()
    if current is not None and current != key and not force and not never_synced:
        raise UsageError(f"agent {agent_id} already has a different key ({fingerprint(current)}); use --force")


def _newest(s: Session, latest: dict[str, Any]) -> Replica:
    """The last snapshot joined with every change after it (each verified as it is opened)."""
    rep = empty_replica()
    if latest["data"] is not None:
        rep = s.open(latest["snapshot"], latest["data"], latest["epoch"])
    for seq, device_id, epoch, data, _ in latest["tail"]:
        rep = join(rep, open_change(s, int(seq), device_id, int(epoch or 0), data))
    return normal(rep)


def _target(s: Session, row: dict[str, Any], latest: dict[str, Any]) -> tuple[Replica, Replica]:
    """Decrypt (nothing is written before this succeeds); an older version becomes a new change on top."""
    newest = _newest(s, latest)
    if row is latest:
        return newest, newest
    chosen = s.open(row["version"], row["data"], row["epoch"])
    hlc = s.files.hlc()
    hlc.observe(max(max_stamp(chosen), max_stamp(newest)))
    s.files.update_state(hlc=hlc.last)
    return normal(restamp(newest, materialize(chosen), hlc.now())), newest


def restore(config: Config, agent_id: str, key: bytes | None = None, force: bool = False,
            at: str | int | None = None, *, db: Any = None, progress: Any = None,
            ring: KeyRing | None = None) -> dict[str, Any]:
    """Pull, verify, decrypt and write hot, warm, tree and MEMORY.md, then the whole cold log into the
    local index; refuses to overwrite without force. Killed at any point, the next restore resumes.
    The keys: `ring` (a device just enrolled by code or recovery key), else `key` (epoch 0's single key),
    else this device's key store, else MEMORYD_KEY or the key file."""
    when = parse_at(at)
    if ring is None and key is None and not has_store(config, agent_id):
        key = load_key(config, agent_id)
    fresh = not config.agent_dir(agent_id).exists()
    try:
        return _restore(config, agent_id, key, force, when, db, progress, ring)
    except BaseException:
        if fresh:  # a failed restore leaves no (phantom) agent behind
            _remove_lock_only_dir(config.agent_dir(agent_id))
        raise


def _remove_lock_only_dir(agent_dir: Any) -> None:
    import shutil

    files = [p for p in agent_dir.rglob("*") if p.is_file()]
    if all(p.name in (".lock", "state.json") for p in files):
        shutil.rmtree(agent_dir, ignore_errors=True)


def _restore(config: Config, agent_id: str, key: bytes | None, force: bool, when: tuple[str, float] | None,
             db: Any, progress: Any, ring: KeyRing | None) -> dict[str, Any]:
    s = Session(config, agent_id, db=db, key=key)
    s.register = False  # with a single key, this device enrols once the key has opened the data
    if ring is not None:
        s.use_ring(ring)
    try:
        if not force and s.files.restoring() is None and _has_memory(s):  # refused before the lock makes sync/
            raise UsageError(f"agent {agent_id} already has memory on this device; use --force to overwrite it")
        with s.files.lock.held():
            resuming = s.files.restoring() is not None
            if not force and not resuming and _has_memory(s):
                raise UsageError(f"agent {agent_id} already has memory on this device; use --force to overwrite it")
            if key is not None:
                _check_key(config, agent_id, key, force)
            row, latest = _fetch(s, when)
            target, newest = _target(s, row, latest)  # the key is right before anything is written
            cold = _restore_cold(s, progress)  # every row verified as it is applied; resumes at its cursor
            s.files.mark_restoring(row["version"])  # a crash from here on is resumed by the next restore
            if key is not None:
                import_key(config, agent_id, key, force=True)
            _enrol_if_new(s)
            _write(s, target, newest, latest["version"])
            s.files.update_state(last_pull=time.time(), last_error=None, restored_from=row["version"])
            s.files.clear_outbox()
            s.files.clear_restoring()
        return dict(_report(s, row, latest), **cold)
    finally:
        s.close()


def _restore_cold(s: Session, progress: Any) -> dict[str, Any]:
    """Every archived memory from the cloud log into the local index (resumes at its cursor)."""
    if s.is_file:
        return {}
    dev = DeviceLog(s.index, s.agent_id, s.files.db_id)
    empty = s.index.count(s.agent_id) == 0 and dev.cursor() is None
    dev.ensure_started()
    try:
        return {"cold_pulled": cloudlog_transfer.pull(s, dev, s.ring, progress)}
    except MemorydError as exc:
        if empty and not exc.transient:  # refused (tampered, wrong key): keep nothing of it
            dev.drop()
        raise


def _enrol_if_new(s: Session) -> None:
    """A single key (epoch 0) opened the data: this device enrols itself (its row, its wrap)."""
    ring = s.ring
    if not ring.registered:
        from memoryd.sync.epoch_store import register

        register(s, ring)
        ring.registered = True
        save_ring(s.config, ring)


def _write(s: Session, target: Replica, newest: Replica, version: int) -> None:
    with s.mem.exclusive():
        top = max_stamp(target)
        write_local(s, materialize(target), stamp_seconds(top) if top else time.time(), "restore")
        hlc = s.files.hlc()
        hlc.observe(top)
        final = compact(normal(restamp(target, s.mem.read_state(), hlc.now())))
        s.files.save_cloud(newest)  # what the critical log holds: a change from it goes up at the next push
        s.files.save_base(version, final, replica_hash(newest), hlc, log=True)


def _report(s: Session, row: dict[str, Any], latest: dict[str, Any]) -> dict[str, Any]:
    state = s.mem.read_state()
    out: dict[str, Any] = {
        "agent_id": s.agent_id, "restored_version": row["version"], "version": latest["version"],
        "from_device": row["device_id"], "updated_at": row["updated_at"],
        "key_fingerprint": fingerprint(s.key),
        "hot_items": sum(1 for k in explode({"hot": state["hot"]})),
        "warm_entries": len(state["warm"]["entries"]), "tree_nodes": len(state["tree"]["nodes"]),
    }
    out["cold_count"] = s.index.count(s.agent_id)
    out["cold_reachable"] = True
    return out


def list_versions(config: Config, agent_id: str, *, db: Any = None, limit: int = 30) -> list[dict[str, Any]]:
    """The newest stored versions (no decryption): version, device_id, updated_at, bytes."""
    s = Session(config, agent_id, db=db)
    try:
        rows = s.execute("SELECT version, device_id, updated_at, length(data) FROM critical_versions "
                         "WHERE agent_id = ? ORDER BY version DESC LIMIT ?", [agent_id, int(limit)]).rows
    finally:
        s.close()
    return [{"version": int(v), "device_id": d, "updated_at": float(u), "bytes": int(n)} for v, d, u, n in rows]
