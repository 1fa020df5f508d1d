"""The durable outbox: a failed push is recorded on disk and retried with exponential backoff and jitter.

The pending changes themselves are never at risk: they live in the agent's state files and in
sync/base.json (stamped before any network I/O). The outbox records that a push is owed, how often
it failed, the last error and when to try next, so a restart picks up where it left off.
"""
from __future__ import annotations

import random
import time
from typing import Any

from memoryd.tiers.base.backoff import Backoff
from memoryd.tiers.base.config import Config

from memoryd.sync.device_files import SyncFiles

POLICY = Backoff(base=5.0, cap=900.0, jitter=0.5)  # 5 s, 10 s, … 15 min, each ±50 % so devices spread out


def backoff(attempts: int, rng: random.Random | None = None) -> float:
    """Delay before the next try after `attempts` failures (memoryd.tiers.base.backoff, the one policy)."""
    return POLICY.delay(attempts, rng)


def record_failure(files: SyncFiles, message: str, now: float | None = None,
                   purge_history: bool = False) -> dict[str, Any]:
    """Persist (atomically) that a push failed; returns the outbox record.

    purge_history is kept until a push succeeds: older cloud versions still hold what was forgotten.
    """
    now = time.time() if now is None else now
    old = files.outbox() or {}
    attempts = int(old.get("attempts", 0)) + 1
    pending = {"since": old.get("since", now), "attempts": attempts, "last_error": message,
               "last_try": now, "next_try": now + backoff(attempts),
               "purge_history": bool(old.get("purge_history")) or purge_history}
    files.save_outbox(pending)
    files.update_state(last_error=message, last_error_at=now)
    return pending


def pending(config: Config, agent_id: str) -> dict[str, Any] | None:
    return SyncFiles(config, agent_id).outbox()


def pending_agents(config: Config) -> list[str]:
    """Agents of this home with a push waiting in their outbox."""
    root = config.agents_dir()
    if not root.is_dir():
        return []
    return sorted(p.parent.parent.parent.name for p in root.glob("*/sync/outbox/pending.json"))


def is_due(record: dict[str, Any] | None, now: float | None = None) -> bool:
    now = time.time() if now is None else now
    return record is not None and float(record.get("next_try", 0)) <= now
