"""The keys this device holds for an agent, by epoch: what a shred must destroy and a verify must weigh.

Until key epochs exist, an agent has one key (its key file, or MEMORYD_KEY), held since the agent began.
"""
from __future__ import annotations

from dataclasses import dataclass

from memoryd.tiers.base.config import Config

from memoryd.sync.crypto.keys import fingerprint, load_key, read_key_file


@dataclass(frozen=True)
class HeldKey:
    """One data key on this device: its epoch, the key, and when the epoch began (None: from the start)."""
    epoch: int
    key: bytes
    since: float | None

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.key)


def held_keys(config: Config, agent_id: str) -> list[HeldKey]:
    """Every data key of the agent this device could use, oldest epoch first."""
    keys = []
    for key in (read_key_file(config.key_path(agent_id)), load_key(config, agent_id) if config.recovery_key else None):
        if key is not None and all(k.key != key for k in keys):
            keys.append(HeldKey(0, key, None))
    return keys
