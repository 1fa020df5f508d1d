"""Devices of an agent: list, enrol (by one-time code or by the recovery key), revoke, rotate, recovery key.

    device add                 on an enrolled device: a one-time code for the new one (15 minutes, single use)
    device add --code C        on the new device: take the keys the code opens, enrol this device
    device add --recovery-key  on the new device: unwrap every live epoch with the recovery key, enrol
    device revoke ID           a new epoch wrapped for everyone but ID (sync/epochs.py)
    key rotate [--reseal]      a new epoch (and every live row moved to it: sync/reseal.py)
    key recovery --new         a new recovery key; the old one's wraps are deleted

Codes are sealed as sync/crypto/enrol.py describes; the server sees the code's id, never its secret.
"""
from __future__ import annotations

import json
import time
from typing import Any

from memoryd.tiers.base.config import Config
from memoryd.tiers.base.errors import CryptoError, UsageError

from memoryd.sync import epoch_store as store
from memoryd.sync import epochs
from memoryd.sync.crypto.device_keys import KeyRing, has_store, load_ring, new_ring, save_ring
from memoryd.sync.crypto.enrol import new_code, open_keys, parse_code, seal_keys
from memoryd.sync.crypto.recovery import new_recovery, parse_recovery
from memoryd.sync.crypto.wrap import public_of, unwrap
from memoryd.sync.session import Session

CODE_SECONDS = 15 * 60


def _session(config: Config, agent_id: str) -> Session:
    if config.db_url.startswith("file:"):
        raise UsageError("devices share an agent through a server: set MEMORYD_DB_URL to your libSQL server first")
    return Session(config, agent_id)


def list_devices(config: Config, agent_id: str) -> dict[str, Any]:
    """Every device of the agent (and its recovery key), this one marked; the current epoch."""
    s = _session(config, agent_id)
    try:
        ring = s.ring
        rows = store.devices(s, agent_id)
        history = store.epochs(s, agent_id)
    finally:
        s.close()
    out = []
    for row in rows:
        if row["kind"] == "recovery":
            continue
        out.append(dict(row, this_device=row["id"] == ring.device_id))
    recovery = next((r for r in rows if r["kind"] == "recovery"), None)
    return {"agent_id": agent_id, "devices": out, "epoch": ring.current,
            "recovery_key": {"issued": recovery["enrolled"]} if recovery else None,
            "epochs": history}


def create_code(config: Config, agent_id: str, *, seconds: int = CODE_SECONDS) -> dict[str, Any]:
    """A one-time code that enrols another device; printed once, valid `seconds`."""
    s = _session(config, agent_id)
    try:
        ring = s.refresh_keys()
        code_id, secret, shown = new_code()
        payload = json.dumps({"epochs": {str(e): k.hex() for e, k in ring.epochs.items()},
                              "current": ring.current}).encode("utf-8")
        salt, blob = seal_keys(secret, payload, agent_id=agent_id, code_id=code_id)
        now = int(time.time())
        s.batch([("DELETE FROM enrolments WHERE agent_id = ? AND expires_at < ?", [agent_id, now - 86400]),
                 ("INSERT INTO enrolments (agent_id, code_id, salt, blob, created_by, created_at, expires_at) "
                  "VALUES (?, ?, ?, ?, ?, ?, ?)", [agent_id, code_id, salt, blob, ring.device_id, now, now + seconds])])
    finally:
        s.close()
    return {"agent_id": agent_id, "code": shown, "expires_at": now + seconds, "epoch": ring.current}


def _existing(s: Session, config: Config, agent_id: str) -> KeyRing | None:
    """The keys a joining device already holds: an enrolled one refuses to join again; a revoked one
    takes a new identity (None); a pending one (code claimed, answer lost) is returned to finish."""
    if not has_store(config, agent_id):
        return None
    ring = load_ring(config, agent_id)
    if ring is None or not ring.registered:
        return ring
    rows = s.execute("SELECT revoked_at FROM devices WHERE agent_id = ? AND device_id = ?",
                     [agent_id, ring.device_id]).rows
    if rows and rows[0][0] is None:
        raise UsageError(f"this device is already enrolled for agent {agent_id} (as {ring.device_id})")
    return None


def join_with_code(config: Config, agent_id: str, code: str, name: str | None = None) -> KeyRing:
    """Enrol this device with a code from an enrolled one; returns its keys (saved, registered)."""
    code_id, secret = parse_code(code)
    s = _session(config, agent_id)
    s.keys_checked = True  # this device has no keys to check yet
    try:
        pending = _existing(s, config, agent_id)
        rows = s.execute("SELECT salt, blob, expires_at, used_at, used_by FROM enrolments "
                         "WHERE agent_id = ? AND code_id = ?", [agent_id, code_id]).rows
        if not rows:
            raise UsageError(f"unknown enrolment code for agent {agent_id} (a typo, or another agent's code?)")
        salt, blob, expires, used, used_by = rows[0]
        if used is not None and not (pending is not None and used_by == pending.device_id):
            raise UsageError("this enrolment code was already used: create a new one with 'memoryd device add'")
        if used is None:
            if int(expires) < time.time():
                raise UsageError("this enrolment code has expired (codes last 15 minutes): create a new one")
            doc = json.loads(open_keys(secret, salt, blob, agent_id=agent_id, code_id=code_id).decode("utf-8"))
            pending = new_ring(agent_id, {int(e): bytes.fromhex(k) for e, k in doc["epochs"].items()}, name=name)
            save_ring(config, pending)  # before the claim: a retry after a lost answer finds its keys here
            claimed = s.execute("UPDATE enrolments SET used_at = ?, used_by = ?, blob = '' WHERE agent_id = ? "
                                "AND code_id = ? AND used_at IS NULL AND expires_at >= ?",
                                [int(time.time()), pending.device_id, agent_id, code_id, int(time.time())])
            if claimed.rows_affected != 1:
                raise UsageError("this enrolment code was already used: create a new one with 'memoryd device add'")
        assert pending is not None
        return _register(s, config, pending)
    finally:
        s.close()


def join_with_recovery(config: Config, agent_id: str, recovery: str, name: str | None = None) -> KeyRing:
    """Enrol this device with the agent's recovery key; returns its keys (saved, registered)."""
    private = parse_recovery(recovery)
    s = _session(config, agent_id)
    s.keys_checked = True
    try:
        _existing(s, config, agent_id)
        rows = s.execute("SELECT public_key FROM devices WHERE agent_id = ? AND device_id = ?",
                         [agent_id, store.RECOVERY]).rows
        if not rows:
            raise UsageError(f"agent {agent_id} has no recovery key on this server (none issued, or it never synced)")
        if bytes.fromhex(rows[0][0]) != public_of(private):
            raise UsageError(f"this is not agent {agent_id}'s current recovery key (re-issued since, or another agent's)")
        keys = {epoch: unwrap(w, private, agent_id=agent_id, epoch=epoch, recipient=store.RECOVERY)
                for epoch, w in store.wraps_for(s, agent_id, store.RECOVERY, -1)}
        if not keys:
            raise CryptoError(f"agent {agent_id}'s recovery key opens no epoch on this server")
        return _register(s, config, new_ring(agent_id, keys, name=name))
    finally:
        s.close()


def _register(s: Session, config: Config, ring: KeyRing) -> KeyRing:
    store.register(s, ring)
    ring.registered, ring.seen_at = True, int(time.time())
    save_ring(config, ring)
    return ring


def revoke(config: Config, agent_id: str, device_id: str) -> dict[str, Any]:
    """Revoke a device: a new epoch its keys cannot open, its wraps deleted."""
    s = _session(config, agent_id)
    try:
        ring = s.refresh_keys()
        if device_id == ring.device_id:
            raise UsageError("this is the device you are on: revoke it from another enrolled device")
        if device_id == store.RECOVERY:
            raise UsageError("the recovery key is not a device: issue a new one with 'memoryd key recovery --new'")
        known = {d["id"]: d for d in store.devices(s, agent_id)}
        if device_id not in known:
            raise UsageError(f"agent {agent_id} has no device {device_id!r} (see 'memoryd device list')")
        if known[device_id]["revoked"] is not None:
            raise UsageError(f"device {device_id} is already revoked")
        epoch = epochs.start_epoch(s, "revoke", revoke=device_id)
    finally:
        s.close()
    return {"agent_id": agent_id, "revoked": device_id, "name": known[device_id]["name"], "epoch": epoch}


def rename(config: Config, agent_id: str, device_id: str, name: str) -> dict[str, Any]:
    """`device rename ID NAME`: the name `device list` shows (this device's key store follows)."""
    name = " ".join(str(name).split())
    if not name or len(name) > 64 or any(ord(c) < 32 or ord(c) == 127 for c in name):
        raise UsageError("a device name is 1-64 printable characters")
    s = _session(config, agent_id)
    try:
        ring = s.refresh_keys()
        known = {d["id"]: d for d in store.devices(s, agent_id) if d["kind"] == "device"}
        if device_id not in known:
            raise UsageError(f"agent {agent_id} has no device {device_id!r} (see 'memoryd device list')")
        s.execute("UPDATE devices SET name = ? WHERE agent_id = ? AND device_id = ?", [name, agent_id, device_id])
    finally:
        s.close()
    if device_id == ring.device_id:
        ring.name = name
        save_ring(config, ring)
    return {"agent_id": agent_id, "device_id": device_id, "name": name, "was": known[device_id]["name"]}


def rotate(config: Config, agent_id: str) -> dict[str, Any]:
    s = _session(config, agent_id)
    try:
        epoch = epochs.start_epoch(s, "rotate")
    finally:
        s.close()
    return {"agent_id": agent_id, "epoch": epoch}


def issue_recovery(config: Config, agent_id: str) -> dict[str, Any]:
    """`key recovery --new`: a new recovery key for every live epoch; the string is returned once."""
    s = _session(config, agent_id)
    try:
        ring = s.refresh_keys()
        public, text = new_recovery()
        store.replace_recovery(s, ring, public)
    finally:
        s.close()
    return {"agent_id": agent_id, "recovery_key": text, "epochs": sorted(ring.epochs)}


def recovery_at_init(config: Config, agent_id: str, key: bytes) -> str:
    """A new agent's recovery key: its public half kept until the first sync registers it; printed once."""
    ring = load_ring(config, agent_id, key) or new_ring(agent_id, {0: key})
    public, text = new_recovery()
    ring.recovery_public = public
    save_ring(config, ring)
    return text
