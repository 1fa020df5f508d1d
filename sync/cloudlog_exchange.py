"""A sync's share of the cloud log: migrate round-1 plaintext rows, pull the log, push the outbox.

Runs inside a critical-state sync (same lock, same database, same outbox-and-backoff on failure),
before the critical state is pushed: entries that left warm are in the cloud log before a push
announces their removal from warm (or in the same batch), so losing this device right after the push
loses nothing. A pull's first look at the log rides in the critical state's first batch (ColdPull).
"""
from __future__ import annotations

import time
from typing import Any, Callable

from memoryd.sync import cloudlog_legacy, cloudlog_transfer
from memoryd.sync.cloudlog_device import DeviceLog
from memoryd.sync.remote.result import Stmt
from memoryd.sync.session import Session

Progress = Callable[[int, int], None]


def exchange(s: Session, *, pull: bool = True, force: bool = False, progress: Progress | None = None,
             upload: bool = True) -> dict[str, Any]:
    """`s` is a session with a server URL. Returns what moved. `upload` False: a page of uploads rides in the
    critical state's batch instead (riding()), unless more than a page is owed."""
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
    if upload or dev.pending() > cloudlog_transfer.PUSH_BATCH:
        out["uploaded"] = cloudlog_transfer.push(s, dev, s.files.device_id(), int(time.time()), progress)
    else:
        out["uploaded"] = 0
    cloudlog_legacy.finish(s)
    return out


class ColdPull:
    """A pull's share of the cloud log whose first look rides in the critical state's first batch (one round
    trip for both): made before it (migration, first start, more than a page of uploads owed), then apply()
    with that batch's results, before the critical changes are merged, as exchange() runs before them."""

    def __init__(self, s: Session, *, force: bool = False, progress: Progress | None = None) -> None:
        self.s, self.progress = s, progress
        self.dev = DeviceLog(s.index, s.agent_id, s.files.db_id)
        self.out: dict[str, Any] = {}
        if force:
            self.out["requeued"] = self.dev.reset()
        migrated = cloudlog_legacy.migrate(s, progress)
        if migrated:
            self.out["migrated"] = migrated
        queued = self.dev.ensure_started()
        if queued:
            self.out["queued"] = queued
        if self.dev.pending() > cloudlog_transfer.PUSH_BATCH:  # else a page rides in the batch (riding())
            self.out["uploaded"] = cloudlog_transfer.push(s, self.dev, s.files.device_id(), int(time.time()), progress)
        self.reads: list[Stmt] = cloudlog_transfer.first_look(s.agent_id, self.dev.cursor() or 0)
        self.applied = False

    def apply(self, first: list[Any]) -> None:
        """The rows past this device's cursor into the local index (first: the results of `reads`)."""
        s = self.s
        self.applied = True
        pulled = cloudlog_transfer.pull(s, self.dev, s.local_ring(), self.progress, s.files.device_id(), first=first)
        self.out["pulled"] = pulled
        if pulled.get("forgotten"):  # another device's forget: the rows' bytes leave this file too
            from memoryd.tiers.cold.scrub import scrub

            self.out["scrubbed"] = scrub(s.index, s.agent_id)

    def result(self, uploaded: int) -> dict[str, Any]:
        """What moved (as exchange() says it), `uploaded` rows having ridden in the critical batches."""
        cloudlog_legacy.finish(self.s)
        return dict(self.out, uploaded=self.out.get("uploaded", 0) + uploaded)


class Riding:
    """A page of the outbox sealed for the critical state's batch: its statements, and what to settle once the
    batch applied them (the caller checks the epoch the batch read back is `epoch`)."""

    def __init__(self, dev: DeviceLog, page: list[Any], stmts: list[Stmt], epoch: int) -> None:
        self.dev, self.page, self.stmts, self.epoch = dev, page, stmts, epoch

    def done(self) -> int:
        self.dev.outbox_done([(mid, op, queued) for mid, op, queued, _ in self.page])
        return len(self.page)


def riding(s: Session) -> Riding | None:
    """What of the cloud log a critical push carries in its own batch: entries that left warm are in the log
    in the same transaction that announces their removal from warm. More than a page goes up first, alone."""
    if s.is_file:
        return None
    dev = DeviceLog(s.index, s.agent_id, s.files.db_id)
    pending = dev.pending()
    if not pending:
        return None
    if pending > cloudlog_transfer.PUSH_BATCH:
        cloudlog_transfer.push(s, dev, s.files.device_id(), int(time.time()))
        return None
    page = dev.outbox_page(cloudlog_transfer.PUSH_BATCH)
    ring = s.local_ring()  # the batch carries the key check; the guard refuses a stale epoch
    stmts = cloudlog_transfer.seal_page(s, s.agent_id, page, ring, s.files.device_id(), int(time.time()))
    return Riding(dev, page, stmts, ring.current)
