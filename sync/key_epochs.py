"""The keys this device holds for an agent, as `forget --verify` weighs them: each epoch's data key and when
that epoch began, this device's key pair and when it was made, and a key given in MEMORYD_KEY."""
from __future__ import annotations

from dataclasses import dataclass

from memoryd.tiers.base.config import Config

from memoryd.sync.crypto.device_keys import has_store, load_ring
from memoryd.sync.crypto.keys import fingerprint, parse_key_material


@dataclass(frozen=True)
class HeldKey:
    """One data key on this device: its epoch, the key, and when the epoch began (None: not known)."""
    epoch: int
    key: bytes
    since: float | None

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.key)


def held_keys(config: Config, agent_id: str, began: dict[int, float] | None = None) -> list[HeldKey]:
    """Every data key of the agent this device could use, oldest epoch first; `began`: epoch → start time."""
    began = began or {}
    ring = load_ring(config, agent_id)
    keys = [HeldKey(e, k, began.get(e)) for e, k in sorted(ring.epochs.items())] if ring else []
    if config.recovery_key:
        try:
            extra = parse_key_material(config.recovery_key)
        except Exception:  # noqa: BLE001 - a recovery-key string of another kind opens no data directly
            extra = None
        if extra is not None and all(k.key != extra for k in keys):
            keys.insert(0, HeldKey(0, extra, began.get(0)))
    return keys


def has_identity(config: Config, agent_id: str) -> bool:
    """Whether this device has a key pair that wraps were made for (it enrolled with a server)."""
    if not has_store(config, agent_id):
        return False
    ring = load_ring(config, agent_id)
    return bool(ring and ring.registered)
