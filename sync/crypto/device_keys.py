"""This device's key store for one agent: its X25519 identity and the data key of every epoch it holds.

    $MEMORYD_HOME/keys/<agent>.key           epoch 0's data key (the round-1/2 single agent key, 32 raw bytes)
    $MEMORYD_HOME/keys/<agent>.device.json   {"device_id", "name", "private", "epochs": {"1": hex, …},
                                              "current", "recovery_public", "registered", "seen_at"}

Both 0600 in a 0700 folder. An agent that never rotated has only the first file: its single key is epoch
0, and the device store is created (identity, no further epochs) when the device enrols itself at its
first sync with a server. Dropping epoch 0 (after `key rotate --reseal`) deletes the first file.
"""
from __future__ import annotations

import os
import socket
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memoryd.tiers.base.atomic import atomic_write_json, ensure_private_dir, read_json
from memoryd.tiers.base.config import Config
from memoryd.tiers.base.errors import CryptoError

from memoryd.sync.crypto.keys import read_key_file
from memoryd.sync.crypto.seal import KEY_BYTES


def store_path(config: Config, agent_id: str) -> Path:
    legacy = config.key_path(agent_id)
    return legacy.with_name(legacy.stem + ".device.json")


def default_name() -> str:
    return (socket.gethostname() or "device")[:64]


@dataclass
class KeyRing:
    """The keys one device holds for one agent. `epochs` maps epoch → 32-byte data key."""

    agent_id: str
    device_id: str
    private: bytes
    epochs: dict[int, bytes] = field(default_factory=dict)
    current: int = 0
    name: str = ""
    recovery_public: bytes | None = None
    registered: bool = False  # this device's row and wraps are on the server
    seen_at: int = 0  # when the server's "last seen" of this device was last moved

    def key(self, epoch: int) -> bytes:
        """The data key of `epoch`; CryptoError when this device does not hold it."""
        found = self.epochs.get(int(epoch))
        if found is None:
            raise CryptoError(f"this device holds no key for epoch {epoch} of agent {self.agent_id} "
                              "(written after this device was revoked, or an epoch dropped since: sync again)")
        return found

    def current_key(self) -> bytes:
        return self.key(self.current)

    def add(self, epoch: int, key: bytes) -> None:
        if len(key) != KEY_BYTES:
            raise CryptoError("a data key is 32 bytes")
        self.epochs[int(epoch)] = bytes(key)
        self.current = max(self.current, int(epoch))

    def drop_below(self, epoch: int) -> list[int]:
        """Forget every epoch older than `epoch` (never the current one); returns those dropped."""
        gone = sorted(e for e in self.epochs if e < epoch and e != self.current)
        for e in gone:
            del self.epochs[e]
        return gone


def synced_device_id(config: Config, agent_id: str) -> str | None:
    """The id this device already signs its pushes with (agents/<id>/sync/state.json), if any."""
    state = read_json(config.agent_dir(agent_id) / "sync" / "state.json", lambda: None)
    device = state.get("device_id") if isinstance(state, dict) else None
    return device if isinstance(device, str) and device and "." not in device else None


def ring_device_id(config: Config, agent_id: str) -> str | None:
    """The device id in the key store (what `device list` shows), without opening any key."""
    doc = read_json(store_path(config, agent_id), lambda: None)
    device = doc.get("device_id") if isinstance(doc, dict) else None
    return device if isinstance(device, str) and device else None


def new_ring(agent_id: str, epochs: dict[int, bytes], *, name: str | None = None,
             device_id: str | None = None) -> KeyRing:
    """A fresh device identity (not yet registered) holding `epochs`."""
    from memoryd.sync.crypto.wrap import new_private

    ring = KeyRing(agent_id, device_id or os.urandom(4).hex(), new_private(), name=(name or default_name())[:64])
    for epoch, key in epochs.items():
        ring.add(epoch, key)
    return ring


def load_ring(config: Config, agent_id: str, legacy: bytes | None = None) -> KeyRing | None:
    """The device store plus epoch 0 from the legacy key file (or `legacy`); None when neither exists."""
    doc = read_json(store_path(config, agent_id), lambda: None)
    zero = legacy if legacy is not None else read_key_file(config.key_path(agent_id))
    if not isinstance(doc, dict):
        if zero is None:
            return None
        # first use: an identity for this device, saved when registered; it keeps the id its pushes carry
        return new_ring(agent_id, {0: zero}, device_id=synced_device_id(config, agent_id))
    try:
        ring = KeyRing(agent_id, str(doc["device_id"]), bytes.fromhex(doc["private"]), name=str(doc.get("name") or ""),
                       recovery_public=bytes.fromhex(doc["recovery_public"]) if doc.get("recovery_public") else None,
                       registered=bool(doc.get("registered")), seen_at=int(doc.get("seen_at") or 0))
        for epoch, hexkey in (doc.get("epochs") or {}).items():
            ring.add(int(epoch), bytes.fromhex(hexkey))
        ring.current = max(ring.current, int(doc.get("current") or 0))
    except (KeyError, ValueError, TypeError):
        raise CryptoError(f"device key store {store_path(config, agent_id)} is damaged") from None
    if zero is not None and not doc.get("dropped_zero"):
        ring.epochs[0] = zero
    return ring


def save_ring(config: Config, ring: KeyRing) -> None:
    """Write the device store (atomic, 0600); epoch 0 stays in (or leaves) the legacy key file."""
    path = store_path(config, ring.agent_id)
    ensure_private_dir(path.parent)
    doc: dict[str, Any] = {
        "format": 1, "device_id": ring.device_id, "name": ring.name, "private": ring.private.hex(),
        "epochs": {str(e): k.hex() for e, k in sorted(ring.epochs.items()) if e != 0},
        "current": ring.current, "registered": ring.registered, "seen_at": ring.seen_at,
        "recovery_public": ring.recovery_public.hex() if ring.recovery_public else None,
        "dropped_zero": 0 not in ring.epochs,
    }
    legacy = config.key_path(ring.agent_id)
    if 0 in ring.epochs and read_key_file(legacy) is None:
        from memoryd.sync.crypto.keys import import_key

        import_key(config, ring.agent_id, ring.epochs[0])
    atomic_write_json(path, doc)
    if 0 not in ring.epochs:
        legacy.unlink(missing_ok=True)  # epoch 0 dropped: its key leaves this device


def has_store(config: Config, agent_id: str) -> bool:
    return store_path(config, agent_id).exists()
