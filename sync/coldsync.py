"""The cold half of a sync: migrate round-1 plaintext rows, pull the cloud log, push the outbox.

Runs inside a critical-state sync (same lock, same database, same outbox-and-backoff on failure),
before the critical state is pushed: entries that left warm are in the cloud log before a push
announces their removal from warm, so losing this device right after the push loses nothing.
"""
from __future__ import annotations

import time
from typing import Any, Callable

from memoryd.sync import cloudlog
from memoryd.sync.remote import legacy

Progress = Callable[[int, int], None]


def sync_cold(s: Any, *, pull: bool = True, force: bool = False, progress: Progress | None = None) -> dict[str, Any]:
    """`s` is a sync.critical.Session with a server URL. Returns what moved."""
    index, agent, remote_id = s.index, s.agent_id, s.files.db_id
    out: dict[str, Any] = {}
    if force:
        out["requeued"] = cloudlog.reset(index, agent, remote_id)
    migrated = legacy.migrate(s, progress)
    if migrated:
        out["migrated"] = migrated
    queued = cloudlog.ensure_started(index, agent, remote_id)
    if queued:
        out["queued"] = queued
    if pull:
        out["pulled"] = cloudlog.pull(s, index, s.key, agent, remote_id, progress)
    out["uploaded"] = cloudlog.push(s, index, s.key, agent, s.files.device_id(), int(time.time()), progress)
    legacy.finish(s)
    return out
