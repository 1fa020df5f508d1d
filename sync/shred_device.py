"""A device's own part of a shred: a new identity key pair once old epochs are dropped, and its index scrubbed.

sqld's history keeps every wrap the server ever stored, and this device's X25519 private key opens the
wraps made for it: while that key lives, a dropped epoch's data key can be recovered from the history.
So when the epochs a device holds move up (a shred, or `key rotate --reseal`, seen at its key check), the
device replaces its key pair: the new public key and every live epoch wrapped for it go to the server in
one batch, then the old private key leaves the key store. Its local index is scrubbed too, so the
memories it forgot leave no bytes in the file (tiers/cold/scrub.py), no preview in its logs and no
last-good copy.

    keys/<agent>.rekey                       the next private key (0600), written before the server learns
                                             its public half: a kill in between is finished by the next call
    agents/<agent>/sync/shred-device.json    {"min_epoch": lowest epoch held at the last rekey,
                                              "identity_since": when the current key pair was made}
"""
from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from memoryd.tiers.base.atomic import atomic_write_bytes, atomic_write_json, read_json
from memoryd.tiers.base.config import Config
from memoryd.tiers.cold.scrub import scrub

from memoryd.sync import epoch_store
from memoryd.sync.crypto.device_keys import has_store, load_ring, save_ring
from memoryd.sync.crypto.keys import read_key_file
from memoryd.sync.crypto.wrap import new_private, public_of
from memoryd.sync.device_files import SyncFiles
from memoryd.sync.session import Session


def pending_path(config: Config, agent_id: str) -> Path:
    return config.key_path(agent_id).with_suffix(".rekey")


def state_path(config: Config, agent_id: str) -> Path:
    return SyncFiles(config, agent_id).path("shred-device.json")


def device_state(config: Config, agent_id: str) -> dict[str, Any]:
    doc = read_json(state_path(config, agent_id), dict)
    return doc if isinstance(doc, dict) else {}


def rekey(s: Session) -> dict[str, Any]:
    """Replace this device's key pair (after a fresh key check); returns {"device", "epochs"}."""
    ring = s.refresh_keys()
    path = pending_path(s.config, s.agent_id)
    fresh = read_key_file(path)
    if fresh is None:
        fresh = new_private()
        atomic_write_bytes(path, fresh)
    if ring.registered:
        public = public_of(fresh)
        stmts = [epoch_store.device_stmt(s.agent_id, ring.device_id, ring.name, "device", public)]
        for epoch, key in sorted(ring.epochs.items()):
            stmts += epoch_store.wrap_stmts(s.agent_id, epoch, key, [(ring.device_id, public)])
        s.batch(stmts)
    ring.private = fresh
    save_ring(s.config, ring)
    path.unlink(missing_ok=True)
    atomic_write_json(state_path(s.config, s.agent_id),
                      {"min_epoch": min(ring.epochs, default=ring.current), "identity_since": time.time()})
    return {"device": ring.device_id, "epochs": sorted(ring.epochs)}


def due(config: Config, agent_id: str) -> bool:
    """Whether this device dropped epochs since its key pair was made (local files only: no round trip)."""
    if pending_path(config, agent_id).exists():
        return True
    if not has_store(config, agent_id):
        return False  # never enrolled: nothing was ever wrapped for this device
    ring = load_ring(config, agent_id)
    if ring is None or not ring.registered:
        return False
    low = min(ring.epochs, default=ring.current)
    return low > int(device_state(config, agent_id).get("min_epoch", 0))


def after_sync(config: Config, agent_id: str) -> dict[str, Any] | None:
    """Called after each sync: a new key pair and a scrubbed index when this device dropped epochs."""
    if not due(config, agent_id):
        return None
    s = Session(config, agent_id)
    try:
        with s.files.lock.held():
            out = rekey(s)
        # what this device forgot as others told it: no preview in its logs, no last-good copy holding it
        s.mem.wipe_traces({r[0] for r in s.index.read("SELECT id FROM tombstones WHERE agent_id = ?", [agent_id])})
        out.update(scrub(s.index, agent_id))
    finally:
        s.close()
    return out
