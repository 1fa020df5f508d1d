"""The critical state as a log: sealed per-item changes appended by each device, sealed snapshots now and then.

    critical_log(seq, agent_id, device_id, epoch, data, created_at)       (server schema v4)
    critical_state, critical_versions                                     the snapshots: version = the last seq
                                                                          of the log they cover

A change is a partial replica (sync/merge/replica.py): every item key where this device's replica differs
from what the log is known to hold (sync/device_files.py cloud.json), with its HLC stamps, tombstones and
max-fields; joining it anywhere is idempotent, so a change sent twice costs bytes, never correctness. One
batch appends the change (a server seq: devices never race on a version) and reads every other device's
change past this device's cursor, with the snapshot only when rows before it are gone (purged, or a server
of the whole-state format read once). A snapshot is written every SNAPSHOT_ROWS changes or SNAPSHOT_BYTES
of them, on `--force` and after a forget; the batch that writes it deletes the changes it covers.
"""
from __future__ import annotations

import json
import time
import zlib
from typing import Any, Sequence

from memoryd.tiers.base.atomic import dumps
from memoryd.tiers.base.errors import CryptoError

from memoryd.sync.crypto.seal import open_text, seal_text
from memoryd.sync.epoch_store import CURRENT, GUARD, guard_args
from memoryd.sync.merge.replica import Replica, empty_replica, join, valid_replica
from memoryd.sync.remote.result import Result, Stmt
from memoryd.sync.session import Session

CHANGE_VERSION = 1  # the associated-data version of a change (its seq is not known when it is sealed)
SNAPSHOT_ROWS = 64  # changes since the last snapshot before a device writes one (plus a per-device jitter)
SNAPSHOT_BYTES = 48_000  # or this many sealed bytes of them: a new device reads at most about this much tail
KEEP_VERSIONS = 30
MARKER_CHARS = 24  # base64 of MAGIC + the random nonce: identifies one envelope
_PARTS = ("items", "stamps", "tombs", "maxf")

_APPEND = ("INSERT INTO critical_log (agent_id, device_id, epoch, data, created_at) SELECT ?, ?, ?, ?, ? WHERE "
           + GUARD)
_TAIL = ("SELECT seq, device_id, epoch, data FROM critical_log WHERE agent_id = ? AND seq > ? AND device_id <> ? "
         "ORDER BY seq")
_HEAD = "SELECT COALESCE(MAX(seq), 0), COUNT(*), COALESCE(SUM(length(data)), 0) FROM critical_log WHERE agent_id = ?"
# the snapshot's data only when this device needs it: rows it has not seen were purged (version > cursor),
# or the first look at a server of the whole-state format (cursor -1) finds another version than its own
_SNAPSHOT = "SELECT version, epoch, CASE WHEN version > ? AND version <> ? THEN data END FROM critical_state WHERE agent_id = ?"
# `log` moves with every write: the schema's triggers refuse a write of the whole-state format, which leaves it
_UPSERT = ("INSERT INTO critical_state (agent_id, data, version, device_id, updated_at, epoch, log) "
           "SELECT ?, ?, ?, ?, ?, ?, 1 WHERE " + GUARD + " "
           "ON CONFLICT (agent_id) DO UPDATE SET data = excluded.data, version = excluded.version, "
           "device_id = excluded.device_id, updated_at = excluded.updated_at, epoch = excluded.epoch, "
           "log = critical_state.log + 1 WHERE excluded.version >= critical_state.version")
_COPY = ("INSERT OR REPLACE INTO critical_versions (agent_id, version, data, device_id, updated_at, epoch) "
         "SELECT agent_id, version, data, device_id, updated_at, epoch FROM critical_state "
         "WHERE agent_id = ? AND version = ? AND substr(data, 1, ?) = ?")
# the deletes apply only while the snapshot's epoch is current, as its upsert does (a refused snapshot deletes nothing)
_TRIM = ("DELETE FROM critical_versions WHERE agent_id = ? AND version < (SELECT MIN(version) FROM "
         "(SELECT version FROM critical_versions WHERE agent_id = ? ORDER BY version DESC LIMIT ?)) AND " + GUARD)
_PURGE_VERSIONS = "DELETE FROM critical_versions WHERE agent_id = ? AND version < ? AND " + GUARD
_PURGE_LOG = ("DELETE FROM critical_log WHERE agent_id = ? AND seq <= "
              "COALESCE((SELECT version FROM critical_state WHERE agent_id = ?), 0) AND " + GUARD)
_VERSION = "SELECT version FROM critical_state WHERE agent_id = ?"


def delta(cloud: Replica, local: Replica) -> Replica:
    """The items of `local` that differ from `cloud` in any part (keys `local` no longer has are left out:
    what dropped them, a compaction of old tombstones, is nothing another device must learn)."""
    out = empty_replica()
    keys = set(local["stamps"]) | set(local["tombs"]) | set(local["maxf"])
    for key in keys:
        if any(local[p].get(key) != cloud[p].get(key) for p in _PARTS):
            for part in _PARTS:
                if key in local[part]:
                    out[part][key] = local[part][key]
    return out


def is_empty(rep: Replica) -> bool:
    return not any(rep[p] for p in _PARTS)


def change_kind(device_id: str, epoch: int) -> str:
    """A change's associated-data kind names the device that sealed it (a row moved to another device's
    name, where that device would skip it as its own, fails to open)."""
    return f"critical-change:{device_id}" + (f"@e{int(epoch)}" if epoch else "")


def seal_change(s: Session, change: Replica, device_id: str) -> tuple[int, str]:
    """(epoch, ciphertext) of a change under the current epoch as this device knows it."""
    ring = s.local_ring()  # unchecked: the batch carries the key check, the guard refuses a stale epoch
    epoch = ring.current
    return epoch, seal_text(ring.key(epoch), dumps(change), agent_id=s.agent_id,
                            kind=change_kind(device_id, epoch), version=CHANGE_VERSION)


def open_change(s: Session, seq: int, device_id: str, epoch: int, data: str) -> Replica:
    """Verify and decrypt one change row; CryptoError (naming the row) when it does not open."""
    plain = open_text(s.ring.key(epoch), data, agent_id=s.agent_id, kind=change_kind(device_id, epoch),
                      version=CHANGE_VERSION)
    try:
        return valid_replica(json.loads(plain.decode("utf-8")))
    except (ValueError, UnicodeDecodeError) as exc:
        raise CryptoError(f"critical change {seq} of agent {s.agent_id} is malformed: {exc}") from None


def change_size(change: Replica, key: bytes, agent_id: str) -> int:
    """The sealed size of the changed items alone (their values, no stamps): what the change is, for
    comparing with what a push sends. Sealing here only measures; nothing of it leaves the device."""
    values = {part: change[part] for part in ("items", "maxf")}
    values["tombs"] = sorted(change["tombs"])
    return len(seal_text(key, dumps(values), agent_id=agent_id, kind="measure", version=0))


class Exchange:
    """What one exchange batch brought back."""

    def __init__(self, results: list[Result], lead: int = 0) -> None:
        self.lead = results[:lead]  # the results of the statements that led the batch (exchange's `lead`)
        tail, head, snap, current = results[-4:]
        self.rows = [(int(r[0]), str(r[1]), int(r[2] or 0), r[3]) for r in tail.rows]
        top, count, size = head.rows[0]
        self.top, self.count, self.size = int(top or 0), int(count or 0), int(size or 0)
        self.snapshot = None if not snap.rows else (int(snap.rows[0][0]), int(snap.rows[0][1] or 0), snap.rows[0][2])
        self.epoch = int(current.scalar(0) or 0)
        self.applied = self.appended = False  # set by exchange(), which knows the epoch it sealed under


def exchange(s: Session, cursor: int, legacy_version: int, change: Replica | None,
             ride: Sequence[Stmt] = (), lead: Sequence[Stmt] = ()) -> tuple[Exchange, int]:
    """One batch: append `change` (if any) under the current epoch, read what others appended past `cursor`.
    `cursor` -1: this device never read this server's log (a server of the whole-state format is read once:
    its critical_state unless at `legacy_version`, which this device already holds). Returns (what came
    back, the sealed bytes sent); a change the guard refused (a new epoch) has `appended` False. `ride`:
    statements sealed under the current epoch too (cloud-log uploads) sent first in the same batch. `lead`:
    reads that go before everything (a pull's first look at the cloud log), their results in `lead`."""
    device_id = s.files.device_id()
    stmts: list[Stmt] = [*lead, *ride]
    sent = 0
    epoch = s.local_ring().current
    if change is not None:
        epoch, data = seal_change(s, change, device_id)
        sent = len(data)
        stmts.append((_APPEND, [s.agent_id, device_id, epoch, data, int(time.time()), *guard_args(s.agent_id, epoch)]))
    stmts += [(_TAIL, [s.agent_id, max(cursor, 0), device_id]), (_HEAD, [s.agent_id]),
              (_SNAPSHOT, [cursor, legacy_version if cursor < 0 else -1, s.agent_id]), (CURRENT, [s.agent_id])]
    out = Exchange(s.batch(stmts), len(lead))
    out.applied = out.epoch == epoch  # False: a new epoch began; the guard refused every write of this batch
    out.appended = change is not None and out.applied
    return out, sent


def remote_changes(s: Session, got: Exchange) -> Replica:
    """Every change other devices appended (and the snapshot when it came), opened and joined; any row that
    fails to open raises CryptoError before anything local changes."""
    remote = empty_replica()
    if got.snapshot is not None and got.snapshot[2] is not None:
        remote = s.open(got.snapshot[0], got.snapshot[2], got.snapshot[1])
    for seq, device_id, epoch, data in got.rows:
        remote = join(remote, open_change(s, seq, device_id, epoch, data))
    return remote


def snapshot_due(s: Session, got: Exchange, force: bool) -> bool:
    """A snapshot now: forced, none yet, or enough changes since the last one (a per-device jitter keeps the
    devices of an agent from all writing one at the same push)."""
    if force or got.snapshot is None:
        return True
    jitter = zlib.crc32(s.files.device_id().encode("utf-8")) % 16
    return got.count >= SNAPSHOT_ROWS + jitter or got.size >= SNAPSHOT_BYTES


def write_snapshot(s: Session, rep: Replica, version: int, purge_history: bool) -> tuple[int, int]:
    """Seal `rep` (everything up to log seq `version`) as the snapshot at `version` unless a newer one is there,
    keep it in the history, delete the changes it covers. Returns (the server's snapshot version, bytes sent)."""
    for _ in range(3):  # a rotation between our key check and this write: check again, seal again
        epoch, data = s.seal(rep, version)
        marker = data[:MARKER_CHARS]
        guard = guard_args(s.agent_id, epoch)
        trim = ((_PURGE_VERSIONS, [s.agent_id, version, *guard]) if purge_history
                else (_TRIM, [s.agent_id, s.agent_id, KEEP_VERSIONS, *guard]))
        results = s.batch([
            (_UPSERT, [s.agent_id, data, version, s.files.device_id(), round(time.time(), 3), epoch, *guard]),
            (_COPY, [s.agent_id, version, MARKER_CHARS, marker]),
            trim,
            (_PURGE_LOG, [s.agent_id, s.agent_id, *guard]),
            (_VERSION, [s.agent_id]),
            (CURRENT, [s.agent_id]),
        ])
        if int(results[-1].scalar(0) or 0) == epoch:
            return int(results[-2].scalar(0) or 0), len(data)
        s.refresh_keys()
    return 0, 0


def legacy_cursor(base: dict[str, Any]) -> int:
    """-1 for a device that never read this server's log: the first exchange also reads critical_state."""
    return int(base["version"]) if base.get("log") else -1

