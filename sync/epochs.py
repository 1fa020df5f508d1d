"""Key epochs as this device lives them: the key check of every sync, starting a new epoch, dropping old ones.

The key check (`apply_check`) runs once per session, in the same batch as its first statement (no extra
round trip on an unchanged sync): a revoked device stops with one line; a device that was never
enrolled enrols itself while the agent is still at epoch 0 (an agent from before devices upgrades with
no user action); keys of new epochs are unwrapped and kept; keys of dropped epochs are forgotten.

For other layers (e.g. a shredding forget):
    start_epoch(s, reason, revoke=None) -> int   a new current epoch, its key wrapped for the remaining devices
                                                 and the recovery key; new writes are sealed under it
    drop_epochs_below(s, epoch)                  delete older epochs' wraps on the server and their keys here
    (sync/reseal.py re-seals every row of older epochs under the current one, then calls drop_epochs_below)
"""
from __future__ import annotations

import logging
import os
import time
from datetime import datetime, timezone
from typing import Any

from memoryd.tiers.base.errors import CryptoError, UsageError

from memoryd.sync import epoch_store as store
from memoryd.sync.crypto.device_keys import KeyRing, save_ring
from memoryd.sync.crypto.seal import KEY_BYTES
from memoryd.sync.crypto.wrap import unwrap
from memoryd.sync.remote.errors import ConstraintError

log = logging.getLogger("memoryd.sync")
MAX_RACE = 8  # attempts when another device starts an epoch at the same moment


class RevokedError(CryptoError):
    """This device was revoked: it can no longer sync this agent (exit 1, not transient)."""


class NotEnrolledError(UsageError):
    """This device holds no key of the agent's current epoch: it must be enrolled first."""


def _when(ts: int) -> str:
    return datetime.fromtimestamp(ts, timezone.utc).strftime("%Y-%m-%d %H:%M UTC")


def apply_check(s: Any, ring: KeyRing, check: store.Check, *, register: bool = True) -> bool:
    """Bring `ring` up to what the server says (see the module docstring); True if the ring changed."""
    if check.revoked_at is not None:
        raise RevokedError(f"this device ({ring.device_id}) was revoked from agent {ring.agent_id} on "
                           f"{_when(check.revoked_at)}: it can no longer sync; enrol it again with "
                           "'memoryd device add --code CODE' from an enrolled device's code")
    changed = False
    if not check.registered:
        if check.current not in (None, 0) or 0 not in ring.epochs:
            raise NotEnrolledError(not_enrolled(ring.agent_id, check.current))
        if not register:
            return False  # restore: the key is verified on the data first, then the device enrols
        store.register(s, ring)
        ring.registered, ring.seen_at, changed = True, int(time.time()), True
        log.info("agent %s: this device (%s) enrolled itself for epoch 0", ring.agent_id, ring.device_id)
    if check.current is not None and check.current > ring.current:
        for epoch, wrapped in store.wraps_for(s, ring.agent_id, ring.device_id, ring.current):
            ring.add(epoch, unwrap(wrapped, ring.private, agent_id=ring.agent_id, epoch=epoch,
                                   recipient=ring.device_id))
        if check.current not in ring.epochs:
            raise NotEnrolledError(not_enrolled(ring.agent_id, check.current))
        changed = True
    if check.oldest_live is not None and ring.drop_below(check.oldest_live):
        changed = True
    if changed:
        save_ring(s.config, ring)
    return changed


def not_enrolled(agent_id: str, epoch: int | None) -> str:
    return (f"this device is not enrolled for agent {agent_id} (its key is at epoch {epoch}): on an enrolled "
            "device run 'memoryd device add', then here 'memoryd device add --code CODE' "
            "(or 'memoryd restore --code CODE' / '--recovery-key')")


def start_epoch(s: Any, reason: str, revoke: str | None = None) -> int:
    """Start a new epoch (after a fresh key check): returns its number. Writes sealed from now on use
    it; a concurrent rotation by another device is picked up and this one numbered after it."""
    for attempt in range(MAX_RACE):
        if attempt:  # a replica may not show the winner's epoch yet: give it a moment to replay it
            time.sleep(min(0.05 * 2 ** attempt, 0.5))
        ring = s.refresh_keys()
        epoch = max(ring.current, max(ring.epochs, default=0)) + 1
        key = os.urandom(KEY_BYTES)
        try:
            store.create_epoch(s, ring, epoch, key, reason, revoke)
        except ConstraintError:
            continue  # another device took this number: learn its key, then take the next
        ring.add(epoch, key)
        save_ring(s.config, ring)
        log.info("agent %s: key epoch %d started (%s)", ring.agent_id, epoch, reason)
        return epoch
    raise CryptoError(f"agent {s.agent_id}: could not start a new key epoch ({MAX_RACE} concurrent rotations)")


def drop_epochs_below(s: Any, epoch: int) -> list[int]:
    """Delete the wraps of every epoch older than `epoch` on the server and their keys on this device
    (other devices drop theirs at their next key check). Call only once no row needs them."""
    ring = s.refresh_keys()
    if epoch > ring.current:
        raise UsageError(f"cannot drop epochs below {epoch}: the current epoch is {ring.current}")
    store.drop_below(s, ring.agent_id, epoch)
    gone = ring.drop_below(epoch)
    save_ring(s.config, ring)
    return gone
