"""A sync's share of the cloud log: migrate round-1 plaintext rows, pull the log, push the outbox.

Runs inside a critical-state sync (same lock, same database, same outbox-and-backoff on failure),
before the critical state is pushed: entries that left warm are in the cloud log before a push
announces their removal from warm, so losing this device right after the push loses nothing.
"""
from __future__ import annotations

import time
from typing import Any, Callable

from memoryd.sync import cloudlog_legacy, cloudlog_transfer
from memoryd.sync.cloudlog_device import DeviceLog
from memoryd.sync.session import Session

Progress = Callable[[int, int], None]


def exchange(s: Session, *, pull: bool = True, force: bool = False, progress: Progress | None = None) -> dict[str, Any]:
    """`s` is a session with a server URL. Returns what moved."""
    dev = DeviceLog(s.index, s.agent_id, s.files.db_id)
    out: dict[str, Any] = {}
    if force:
        out["requeued"] = dev.reset()
    migrated = cloudlog_legacy.migrate(s, progress)
    if migrated:
        out["migrated"] = migrated
    queued = dev.ensure_started()
    if queued:
        out["queued"] = queued
    if pull:
        out["pulled"] = cloudlog_transfer.pull(s, dev, s.local_ring(), progress, s.files.device_id())
        if out["pulled"].get("forgotten"):  # another device's forget: the rows' bytes leave this file too
            from memoryd.tiers.cold.scrub import scrub

            out["scrubbed"] = scrub(s.index, s.agent_id)
    out["uploaded"] = cloudlog_transfer.push(s, dev, s.files.device_id(), int(time.time()), progress)
    cloudlog_legacy.finish(s)
    return out


def upload(s: Session) -> int:
    """Entries that left warm (a merge may have just evicted some) go up before a push announces their
    removal from warm: losing this device right after the push loses nothing. 0 with nothing owed."""
    dev = DeviceLog(s.index, s.agent_id, s.files.db_id)
    if not dev.pending():
        return 0
    return cloudlog_transfer.push(s, dev, s.files.device_id(), int(time.time()))
