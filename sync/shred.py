"""`forget --shred`: after the forget, no key able to open the memory's old ciphertexts is left anywhere.

sqld keeps every frame it wrote (its WAL and replication log), so a forgotten memory's ciphertext outlives
its row; what can be destroyed is every key that opens it. After the local forget (daemon/ops_shred.py):

    forget   the forget goes up, and every older critical-state version with it (they hold the memory)
    reseal   a new key epoch; every live memory, forget and critical-state version sealed again under it;
             the older epochs dropped: their wraps deleted on the server, their keys here (sync/reseal.py;
             other devices drop theirs at their next key check, sync/epochs.py)
    device   this device's key pair replaced: its old private key opened the dropped epochs' wraps that
             the server's history keeps (other devices do the same after their next sync: sync/shred_device.py)
    scrub    the local index file rewritten: no byte of the forgotten memory in free pages, WAL or terms
    recovery the recovery key re-issued when the agent has one (its old wraps are in the history too):
             the new one is printed once; the old one must be destroyed

agents/<id>/sync/shred.json says which stage comes next, so `forget --shred` run again after a kill (or a
server outage) resumes there. No secret is ever written to it.
"""
from __future__ import annotations

import logging
import time
from typing import Any

from memoryd.tiers.base.atomic import atomic_write_json, read_json
from memoryd.tiers.base.config import Config
from memoryd.tiers.base.errors import RemoteError
from memoryd.tiers.cold.scrub import scrub

from memoryd.sync import epoch_store, reseal
from memoryd.sync.critical import push_now
from memoryd.sync.crypto.device_keys import save_ring
from memoryd.sync.crypto.recovery import new_recovery
from memoryd.sync.device_files import SyncFiles
from memoryd.sync.session import Session, require_admin_token
from memoryd.sync.shred_device import rekey

log = logging.getLogger("memoryd.sync")
STAGES = ("forget", "reseal", "device", "scrub", "recovery")


def _path(config: Config, agent_id: str) -> Any:
    return SyncFiles(config, agent_id).path("shred.json")


def pending(config: Config, agent_id: str) -> dict[str, Any] | None:
    """The interrupted shred of this agent: {"ids", "stage", "since", "epoch_before"}, or None."""
    doc = read_json(_path(config, agent_id), lambda: None)
    return doc if isinstance(doc, dict) and doc.get("stage") in STAGES else None


def begin(config: Config, agent_id: str, ids: list[str]) -> dict[str, Any]:
    """Record a shred before its forget is written: a kill after the forget still shreds on the next run."""
    doc = {"ids": sorted(set(ids)), "stage": "forget", "since": time.time(), "epoch_before": None}
    atomic_write_json(_path(config, agent_id), doc)
    return doc


def clear(config: Config, agent_id: str) -> None:
    """Drop a shred whose forget found nothing to forget."""
    _path(config, agent_id).unlink(missing_ok=True)


def _mark(config: Config, agent_id: str, doc: dict[str, Any], stage: str | None) -> None:
    if stage is None:
        _path(config, agent_id).unlink(missing_ok=True)
    else:
        doc["stage"] = stage
        atomic_write_json(_path(config, agent_id), doc)


def _paused(agent_id: str, why: Any) -> RemoteError:
    return RemoteError(f"shred of agent {agent_id} paused: {why}; run 'memoryd forget --shred ID' again to "
                       "finish it", transient=False)


def run(config: Config, agent_id: str, doc: dict[str, Any], progress: Any = None, *,
        new_recovery: bool = False) -> dict[str, Any]:
    """Every stage from the one recorded; returns what each did. The recovery key is re-issued only for a
    caller that shows it to a person (`new_recovery`: the CLI), never into an MCP client or a web page:
    elsewhere the result says to run 'memoryd key recovery --new'."""
    require_admin_token(config, "forget --shred")
    began = time.monotonic()
    out: dict[str, Any] = {"ids": doc["ids"], "resumed_at": doc["stage"]}
    if doc["stage"] == "forget":
        pushed = push_now(config, agent_id, purge_history=True)
        if pushed.get("status") == "queued":
            raise _paused(agent_id, pushed.get("error"))
        out["forget"] = {k: pushed.get(k) for k in ("status", "version", "bytes_sent")}
        s = Session(config, agent_id)
        try:
            doc["epoch_before"] = s.refresh_keys().current if not s.is_file else 0
        finally:
            s.close()
        _mark(config, agent_id, doc, "reseal")
    if doc["stage"] == "reseal":
        out["reseal"] = _reseal(config, agent_id, doc, progress)
        _mark(config, agent_id, doc, "device")
    s = Session(config, agent_id)
    try:
        if doc["stage"] == "device":
            with s.files.lock.held():
                out["device"] = rekey(s)
            _mark(config, agent_id, doc, "scrub")
        if doc["stage"] == "scrub":
            out["scrub"] = scrub(s.index, agent_id)
            _mark(config, agent_id, doc, "recovery")
        if doc["stage"] == "recovery":
            if new_recovery:
                out["recovery"] = reissue_recovery(s)
            elif has_recovery(s):
                out["note"] = ("the recovery key still opens the old keys' wraps in the server's history: run "
                               "'memoryd key recovery --new' in a terminal and destroy the old one")
            _mark(config, agent_id, doc, None)
    finally:
        s.close()
    out["seconds"] = round(time.monotonic() - began, 3)
    log.info("agent %s: shredded %d memories", agent_id, len(doc["ids"]))
    return out


def _reseal(config: Config, agent_id: str, doc: dict[str, Any], progress: Any) -> dict[str, Any]:
    """sync/reseal.py's reseal, resumed when it was interrupted; none when a kill came just after it ended
    (every epoch this device holds is newer than the one the forget was sealed under)."""
    if reseal.pending(config, agent_id) is not None:
        return reseal.reseal(config, agent_id, start=False, progress=progress)
    s = Session(config, agent_id)
    try:
        ring = s.refresh_keys()
    finally:
        s.close()
    before = doc.get("epoch_before")
    if before is not None and min(ring.epochs, default=ring.current) > int(before):
        return {"epoch": ring.current, "resumed": True, "already": True}
    try:
        return reseal.reseal(config, agent_id, start=True, progress=progress)
    except RemoteError as exc:
        raise _paused(agent_id, exc.message) from None


def has_recovery(s: Session) -> bool:
    if s.is_file:
        return False
    rows = s.execute("SELECT COUNT(*) FROM devices WHERE agent_id = ? AND device_id = ?",
                     [s.agent_id, epoch_store.RECOVERY]).rows
    return bool(rows and int(rows[0][0] or 0))


def reissue_recovery(s: Session) -> str | None:
    """A new recovery key when the agent has one (every live epoch wrapped for it alone); the string to
    print once, or None."""
    if not has_recovery(s):
        return None
    ring = s.refresh_keys()
    public, printable = new_recovery()
    epoch_store.replace_recovery(s, ring, public)
    ring.recovery_public = public
    save_ring(s.config, ring)
    return printable
