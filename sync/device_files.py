"""The sync layer's local files in agents/<id>/sync/: state.json, base.json, outbox/, merge journal, restore marker."""
from __future__ import annotations

import hashlib
import os
import time
from pathlib import Path
from typing import Any

from memoryd.tiers.base.atomic import FileLock, atomic_write_json, ensure_private_dir, read_json
from memoryd.tiers.base.config import Config, validate_agent_id

from memoryd.sync.crypto.device_keys import ring_device_id
from memoryd.sync.merge.hlc import HLC
from memoryd.sync.merge.replica import Replica, empty_replica, replica_hash, valid_replica

KIND = "critical"  # associated-data kind of the critical-state envelope


def _is_dict(obj: Any) -> None:
    if not isinstance(obj, dict):
        raise TypeError("not an object")


def _valid_base(obj: Any) -> None:
    if not isinstance(obj, dict):
        raise TypeError("sync base")
    valid_replica(obj.get("replica"))


class SyncFiles:
    """One agent's sync metadata on this device. Callers hold `lock` around read-modify-write."""

    def __init__(self, config: Config, agent_id: str) -> None:
        self.agent_id = validate_agent_id(agent_id)
        self.config = config
        self.dir = config.agent_dir(agent_id) / "sync"
        self.lock = FileLock(self.dir / ".lock")  # serialises push/pull/restore of this agent
        self._state: dict[str, Any] | None = None
        self._base: dict[str, Any] | None = None
        # Which database the version/pushed marks refer to (a hash: the URL may carry a token).
        self.db_id = hashlib.sha256(config.db_url.encode("utf-8")).hexdigest()[:16]

    def path(self, name: str) -> Path:
        return self.dir / name

    # --- state.json: device id, HLC, last push/pull/error ---------------------------------
    def state(self) -> dict[str, Any]:
        if self._state is None:
            self._state = read_json(self.path("state.json"), dict, _is_dict)
        return self._state

    def update_state(self, **changes: Any) -> dict[str, Any]:
        state = dict(self.state(), **changes)
        # always fsynced: the file also holds the cursor, the device id and the clock, and a rename whose data a
        # power cut did not reach (filesystems without ext4's rename heuristic) would leave it empty
        atomic_write_json(self.path("state.json"), state)
        self._state = state
        return state

    def device_id(self) -> str:
        """One id per device everywhere: the key store's (what `device list` shows) once it exists."""
        device = self.state().get("device_id")
        enrolled = ring_device_id(self.config, self.agent_id)
        if enrolled and device != enrolled:
            device = enrolled
            self.update_state(device_id=device)
        if not isinstance(device, str) or not device or "." in device:
            device = os.urandom(4).hex()
            self.update_state(device_id=device)
        return device

    def hlc(self) -> HLC:
        """The device clock, resumed past every stamp this device has issued (kept in base.json)."""
        last, stored = self.state().get("hlc"), self.base().get("hlc")
        return HLC(self.device_id(), max(filter(None, (last, stored)), default=None))

    # --- base.json: the replica last agreed with the cloud plus local stamped changes --------
    # The replica (large) lives in base.json; the cloud version it includes and the hash of what
    # the cloud holds (small) live in state.json, so a successful push rewrites only state.json.
    # Writes go replica first: a crash between the two leaves an older version → a harmless re-merge.
    def base(self) -> dict[str, Any]:
        if self._base is None:
            self._base = read_json(self.path("base.json"), lambda: {"replica": empty_replica()}, _valid_base)
        state = self.state()
        if state.get("db", self.db_id) != self.db_id:  # MEMORYD_DB_URL changed: that database has nothing of ours
            return {"version": 0, "pushed": "", "replica": self._base["replica"], "hlc": self._base.get("hlc"),
                    "log": False}
        return {"version": int(state.get("version", 0) or 0), "pushed": state.get("pushed", ""),
                "replica": self._base["replica"], "hlc": self._base.get("hlc"), "log": bool(state.get("log"))}

    def save_base(self, version: int, replica: Replica, pushed: str, hlc: HLC | None = None,
                  **state_changes: Any) -> None:
        old = self.base()
        self.save_replica(replica, hlc)
        if version != old["version"] or pushed != old["pushed"] or state_changes or self.state().get("db") != self.db_id:
            self.update_state(version=version, pushed=pushed, db=self.db_id, **state_changes)

    def save_replica(self, replica: Replica, hlc: HLC | None = None) -> None:
        """base.json alone (the replica and the clock); the cursor in state.json stays where it was: a crash
        before it moves only makes the next sync read those changes again, and joining them twice changes nothing."""
        ensure_private_dir(self.dir)
        old = self.base()
        stamp = max(filter(None, (old["hlc"], hlc.last if hlc else None)), default=None)
        if replica is not old["replica"] or stamp != old["hlc"]:
            doc = {"replica": replica, "hlc": stamp}
            atomic_write_json(self.path("base.json"), doc)
            self._base = doc

    # --- cloud.json: what the critical log is known to hold (sync/critical_log.py) ------------------
    # A push sends the items where the local replica differs from it. A sync ends with nothing owed, so the
    # log then holds the base replica (`pushed` is its hash) and cloud.json is not written: it is written when
    # the base leaves that state (local edits stamped, a restore) and removed when a sync ends. One left behind
    # by a crash only ever says less than the log holds (the log only grows): a push sends a few items twice.
    # Missing or of another database: everything pushed is known to be there, else nothing is.
    def cloud(self) -> Replica:
        doc = read_json(self.path("cloud.json"), lambda: None)
        if isinstance(doc, dict) and doc.get("db") == self.db_id:
            try:
                return valid_replica(doc.get("replica"))
            except ValueError:
                pass
        base = self.base()
        pushed = base["pushed"] and base["pushed"] == replica_hash(base["replica"])
        return base["replica"] if pushed else empty_replica()

    def save_cloud(self, replica: Replica) -> None:
        ensure_private_dir(self.dir)
        # not fsynced: written after the server has the change, a lost write only makes the next push resend it
        atomic_write_json(self.path("cloud.json"), {"db": self.db_id, "replica": replica}, durable=False)

    def drop_cloud(self) -> None:
        self.path("cloud.json").unlink(missing_ok=True)

    # --- outbox: a durable "push pending" record with backoff ------------------------------
    def outbox(self) -> dict[str, Any] | None:
        pending = read_json(self.path("outbox/pending.json"), lambda: None)
        return pending if isinstance(pending, dict) else None

    def save_outbox(self, pending: dict[str, Any]) -> None:
        ensure_private_dir(self.path("outbox"))
        atomic_write_json(self.path("outbox/pending.json"), pending)

    def clear_outbox(self) -> None:
        try:
            self.path("outbox/pending.json").unlink()
        except FileNotFoundError:
            pass

    # --- merge journal: the merged replica, written before the tier files are ----------------
    def merging(self) -> dict[str, Any] | None:
        journal = read_json(self.path("merging.json"), lambda: None)
        if not isinstance(journal, dict) or not isinstance(journal.get("version"), int):
            return None
        try:
            valid_replica(journal.get("merged"))
        except ValueError:
            return None
        return journal

    def save_merging(self, version: int, remote_hash: str, merged: Replica, local: Replica | None = None) -> None:
        """The merge journal; `local`, the replica of what the files held before the merge, only when it is
        not base's (edits made after the sync stamped them): a finish tells later edits from it."""
        ensure_private_dir(self.dir)
        journal = {"version": version, "remote_hash": remote_hash, "merged": merged}
        if local is not None and local != self.base()["replica"]:
            journal["local"] = local
        atomic_write_json(self.path("merging.json"), journal)

    def clear_merging(self) -> None:
        try:
            self.path("merging.json").unlink()
        except FileNotFoundError:
            pass

    # --- restore marker: local files are being replaced; pushes wait until it completes ------
    def restoring(self) -> dict[str, Any] | None:
        marker = read_json(self.path("restoring.json"), lambda: None)
        return marker if isinstance(marker, dict) else None

    def mark_restoring(self, version: int) -> None:
        ensure_private_dir(self.dir)
        atomic_write_json(self.path("restoring.json"), {"version": version, "since": time.time()})

    def clear_restoring(self) -> None:
        try:
            self.path("restoring.json").unlink()
        except FileNotFoundError:
            pass
