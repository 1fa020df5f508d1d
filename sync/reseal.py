"""`key rotate --reseal`: every live row of older epochs sealed again under the current one, then the old keys gone.

    reseal(config, agent_id, start=True)   start a new epoch (or resume an interrupted reseal), then:
      1. pull everything (a normal sync): the local index holds every live memory and every forget
      2. queue every memory and every forget for upload (the outbox is the durable cursor: a kill resumes)
      3. sync again: the outbox goes up under the current epoch; each upload deletes its older copies
      4. the critical state and its stored versions sealed again under the current epoch (a snapshot that
         covers every change appended under older epochs)
      5. the log's rows of older epochs deleted, then the older epochs dropped (wraps deleted on the
         server, keys deleted here; other devices drop theirs at their next key check)

No row of an older epoch can be added meanwhile: the server refuses writes sealed under an epoch that is
no longer current (sync/epoch_store.py GUARD). The marker agents/<id>/sync/reseal.json says where a
reseal stands; `reseal(..., start=False)` only resumes one.
"""
from __future__ import annotations

import logging
import time
from typing import Any

from memoryd.tiers.base.atomic import atomic_write_json, read_json
from memoryd.tiers.base.config import Config
from memoryd.tiers.base.errors import RemoteError, UsageError

from memoryd.sync import epochs
from memoryd.sync.cloudlog_device import DeviceLog
from memoryd.sync.critical import pull_now, push_now
from memoryd.sync.session import Session, critical_kind
from memoryd.sync.crypto.seal import open_text, seal_text
from memoryd.sync.device_files import SyncFiles
from memoryd.sync.epoch_store import GUARD, guard_args

log = logging.getLogger("memoryd.sync")
STAGES = ("started", "queued", "pushed")


def _marker_path(config: Config, agent_id: str) -> Any:
    return SyncFiles(config, agent_id).path("reseal.json")


def pending(config: Config, agent_id: str) -> dict[str, Any] | None:
    """The interrupted reseal of this agent, if any: {"epoch", "stage", "since"}."""
    marker = read_json(_marker_path(config, agent_id), lambda: None)
    return marker if isinstance(marker, dict) and marker.get("stage") in STAGES else None


def _mark(config: Config, agent_id: str, epoch: int, stage: str, since: float) -> None:
    atomic_write_json(_marker_path(config, agent_id), {"epoch": epoch, "stage": stage, "since": since})


def reseal(config: Config, agent_id: str, *, start: bool = True, progress: Any = None) -> dict[str, Any]:
    """Run (or resume) a reseal; returns {"epoch", "resumed", "uploaded", "bytes_sent", "versions", ...}."""
    marker = pending(config, agent_id)
    if marker is None and not start:
        raise UsageError(f"agent {agent_id} has no interrupted reseal to resume")
    began = time.monotonic()
    resumed = marker is not None
    since = marker["since"] if marker else time.time()
    if marker is None:
        s = Session(config, agent_id)
        try:
            epoch = epochs.start_epoch(s, "rotate")
        finally:
            s.close()
        marker = {"epoch": epoch, "stage": "started"}
        _mark(config, agent_id, epoch, "started", since)
    out: dict[str, Any] = {"agent_id": agent_id, "resumed": resumed}
    sent = 0
    if marker["stage"] == "started":
        sent += int(_done(pull_now(config, agent_id, progress=progress)).get("bytes_sent", 0))  # 1. all local
        s = Session(config, agent_id)
        try:
            if not s.is_file:
                DeviceLog(s.index, agent_id, s.files.db_id).queue_everything()  # 2. the cursor: the outbox
        finally:
            s.close()
        _mark(config, agent_id, marker["epoch"], "queued", since)
        marker["stage"] = "queued"
    if marker["stage"] == "queued":
        synced = _done(pull_now(config, agent_id, progress=progress))  # 3. up under the current epoch
        out["uploaded"] = int((synced.get("cold") or {}).get("uploaded", 0))
        sent += int(synced.get("bytes_sent", 0))
        sent += int(_done(push_now(config, agent_id, force=True)).get("bytes_sent", 0))  # 4. the critical state
        _mark(config, agent_id, marker["epoch"], "pushed", since)
    s = Session(config, agent_id)
    s.destroys = "key rotate --reseal"  # deletes the rows the old epochs sealed
    try:
        ring = s.refresh_keys()
        out["versions"], more = _reseal_versions(s, ring.current)
        sent += more
        removed = s.execute("DELETE FROM memory_log WHERE agent_id = ? AND epoch < ? AND " + GUARD,
                            [agent_id, ring.current, *guard_args(agent_id, ring.current)]).rows_affected
        # critical-state changes of older epochs: the snapshot pushed above (under the current epoch) covers
        # them, since none could be appended once the current epoch began (the guard refuses them)
        removed += s.execute("DELETE FROM critical_log WHERE agent_id = ? AND epoch < ? AND " + GUARD,
                             [agent_id, ring.current, *guard_args(agent_id, ring.current)]).rows_affected
        out["old_rows_deleted"] = int(removed)
        out["dropped_epochs"] = epochs.drop_epochs_below(s, ring.current)  # 5.
        out["epoch"] = ring.current
        out["bytes_sent"] = sent + s.bytes_sent
    finally:
        s.close()
    _marker_path(config, agent_id).unlink(missing_ok=True)
    out["seconds"] = round(time.monotonic() - began, 3)
    log.info("agent %s: resealed under epoch %d", agent_id, out["epoch"])
    return out


def _done(result: dict[str, Any]) -> dict[str, Any]:
    """A sync that could only queue its push: stop here; the marker resumes the reseal next time."""
    if result.get("status") == "queued":
        raise RemoteError(f"reseal of agent {result.get('agent_id')} paused: {result.get('error')}; "
                          "run 'memoryd key rotate --reseal' again to resume", transient=False)
    return result


def _reseal_versions(s: Session, epoch: int) -> tuple[int, int]:
    """The stored critical-state versions of older epochs, sealed again under `epoch` (their numbers and
    times kept: `restore --at` still finds them). Returns (how many, bytes sent)."""
    rows = s.execute("SELECT version, data, epoch FROM critical_versions WHERE agent_id = ? AND epoch < ?",
                     [s.agent_id, epoch]).rows
    ring, key, sent, stmts = s.ring, s.ring.key(epoch), 0, []
    for version, data, old in rows:
        plain = open_text(ring.key(int(old or 0)), data, agent_id=s.agent_id, kind=critical_kind(int(old or 0)),
                          version=int(version))
        fresh = seal_text(key, plain, agent_id=s.agent_id, kind=critical_kind(epoch), version=int(version))
        sent += len(fresh)
        stmts.append(("UPDATE critical_versions SET data = ?, epoch = ? WHERE agent_id = ? AND version = ? "
                      "AND epoch = ? AND " + GUARD, [fresh, epoch, s.agent_id, int(version), int(old or 0),
                                                     *guard_args(s.agent_id, epoch)]))
    if stmts:
        s.batch(stmts)
    return len(stmts), sent
