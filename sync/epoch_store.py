"""The server's side of devices and key epochs: the statements on `devices`, `key_epochs` and `key_wraps`.

    devices(agent_id, device_id, name, kind device|recovery, public_key, enrolled_at, revoked_at, last_seen)
    key_epochs(agent_id, epoch, created_at, created_by, reason, dropped_at)
    key_wraps(agent_id, epoch, recipient, wrapped)          one data key wrapped for one recipient

An agent with no row in key_epochs is at epoch 0 (its single key of schema v1/v2). The current epoch is
the largest; an epoch is live until dropped (its wraps deleted). Everything here is a statement or a
batch through a session (sync/session.py); the device's decisions are in sync/epochs.py.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Protocol

from memoryd.sync.crypto.device_keys import KeyRing
from memoryd.sync.crypto.wrap import public_of, wrap
from memoryd.sync.remote.result import Result, Stmt

RECOVERY = "recovery"  # the recovery key's recipient id (a row of kind 'recovery' in devices)
SEEN_EVERY = 3600  # seconds between updates of a device's "last seen" (a write per sync would cost)

# The key check: one cheap read, sent in the same batch as a sync's first statement.
CHECK = ("SELECT (SELECT MAX(epoch) FROM key_epochs WHERE agent_id = ?), "
         "(SELECT MIN(epoch) FROM key_epochs WHERE agent_id = ? AND dropped_at IS NULL), "
         "(SELECT COUNT(*) FROM devices WHERE agent_id = ? AND device_id = ?), "
         "(SELECT revoked_at FROM devices WHERE agent_id = ? AND device_id = ?)")
# Writes sealed under an epoch apply only while it is the agent's current one (a rotation in between
# refuses them: nothing is sealed under a key a revoked device still holds once the revocation is in).
GUARD = "COALESCE((SELECT MAX(epoch) FROM key_epochs WHERE agent_id = ?), 0) = ?"
CURRENT = "SELECT COALESCE(MAX(epoch), 0) FROM key_epochs WHERE agent_id = ?"


class Remote(Protocol):
    def execute(self, sql: str, args: list[Any]) -> Result: ...

    def batch(self, stmts: list[Stmt]) -> list[Result]: ...


@dataclass(frozen=True)
class Check:
    """What the server says about the agent's epochs and this device."""

    current: int | None  # None: the agent has no epochs yet (never enrolled a device)
    oldest_live: int | None
    registered: bool
    revoked_at: int | None

    @classmethod
    def from_row(cls, row: tuple[Any, ...]) -> "Check":
        cur, low, n, revoked = row
        return cls(None if cur is None else int(cur), None if low is None else int(low), bool(n),
                   None if revoked is None else int(revoked))


def check_stmt(agent_id: str, device_id: str) -> Stmt:
    return CHECK, [agent_id, agent_id, agent_id, device_id, agent_id, device_id]


def guard_args(agent_id: str, epoch: int) -> list[Any]:
    return [agent_id, int(epoch)]


def _now() -> float:
    """Milliseconds: a forget right after a rotation tells which came first (older rows: whole seconds)."""
    return round(time.time(), 3)


def wraps_for(remote: Remote, agent_id: str, recipient: str, above: int) -> list[tuple[int, str]]:
    """(epoch, wrapped) of the live epochs newer than `above` wrapped for `recipient`."""
    rows = remote.execute("SELECT w.epoch, w.wrapped FROM key_wraps w JOIN key_epochs e ON e.agent_id = w.agent_id "
                          "AND e.epoch = w.epoch WHERE w.agent_id = ? AND w.recipient = ? AND w.epoch > ? "
                          "AND e.dropped_at IS NULL ORDER BY w.epoch", [agent_id, recipient, int(above)]).rows
    return [(int(e), str(w)) for e, w in rows]


def recipients(remote: Remote, agent_id: str) -> list[tuple[str, bytes]]:
    """(id, public key) of every device not revoked, and of the recovery key."""
    rows = remote.execute("SELECT device_id, public_key FROM devices WHERE agent_id = ? AND revoked_at IS NULL "
                          "ORDER BY device_id", [agent_id]).rows
    return [(str(d), bytes.fromhex(p)) for d, p in rows]


def wrap_stmts(agent_id: str, epoch: int, key: bytes, targets: list[tuple[str, bytes]]) -> list[Stmt]:
    return [("INSERT OR REPLACE INTO key_wraps (agent_id, epoch, recipient, wrapped) VALUES (?, ?, ?, ?)",
             [agent_id, int(epoch), rid, wrap(key, pub, agent_id=agent_id, epoch=epoch, recipient=rid)])
            for rid, pub in targets]


def device_stmt(agent_id: str, device_id: str, name: str, kind: str, public: bytes) -> Stmt:
    return ("INSERT INTO devices (agent_id, device_id, name, kind, public_key, enrolled_at, last_seen) "
            "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (agent_id, device_id) DO UPDATE SET "  # a rename stays
            "public_key = excluded.public_key, last_seen = excluded.last_seen WHERE devices.revoked_at IS NULL",
            [agent_id, device_id, name, kind, public.hex(), _now(), _now() if kind == "device" else None])


def unique_name(name: str, taken: set[str]) -> str:
    """The host name, or host-2, host-3…: two devices on hosts of one name (every VM called `vm`) stay apart."""
    base, n = name[:60] or "device", 2
    while name in taken:
        name, n = f"{base}-{n}", n + 1
    return name


def register(remote: Remote, ring: KeyRing) -> None:
    """Enrol this device: its row, and every epoch it holds wrapped for it (and for the recovery key
    when the agent has none yet and this device knows one: a new agent's first sync). Epoch 0 gets its
    key_epochs row here when the agent had none (an agent from before devices upgrades itself)."""
    agent = ring.agent_id
    me = [(ring.device_id, public_of(ring.private))]
    ring.name = unique_name(ring.name, {d["name"] for d in devices(remote, agent)
                                        if d["kind"] == "device" and d["id"] != ring.device_id and d["revoked"] is None})
    stmts: list[Stmt] = [device_stmt(agent, ring.device_id, ring.name, "device", me[0][1])]
    if 0 in ring.epochs:
        stmts.append(("INSERT OR IGNORE INTO key_epochs (agent_id, epoch, created_at, created_by, reason) "
                      "VALUES (?, 0, ?, ?, 'initial')", [agent, _now(), ring.device_id]))
    for epoch, key in sorted(ring.epochs.items()):
        stmts += wrap_stmts(agent, epoch, key, me)
    if ring.recovery_public is not None:
        has = remote.execute("SELECT COUNT(*) FROM devices WHERE agent_id = ? AND device_id = ?", [agent, RECOVERY]).rows
        if not has[0][0]:
            stmts.append(device_stmt(agent, RECOVERY, "recovery key", "recovery", ring.recovery_public))
            for epoch, key in sorted(ring.epochs.items()):
                stmts += [(sql.replace("INSERT OR REPLACE", "INSERT OR IGNORE"), args) for sql, args in
                          wrap_stmts(agent, epoch, key, [(RECOVERY, ring.recovery_public)])]
    remote.batch(stmts)


def seen(agent_id: str, device_id: str) -> Stmt:
    return ("UPDATE devices SET last_seen = ? WHERE agent_id = ? AND device_id = ? AND revoked_at IS NULL",
            [_now(), agent_id, device_id])


def create_epoch(remote: Remote, ring: KeyRing, epoch: int, key: bytes, reason: str,
                 revoke: str | None = None) -> None:
    """One atomic batch: the epoch's row (a concurrent rotation to the same number fails on its primary
    key), the revocation, and the new key wrapped for every remaining device and the recovery key."""
    agent = ring.agent_id
    targets = [(rid, pub) for rid, pub in recipients(remote, agent) if rid != revoke]
    stmts: list[Stmt] = [("INSERT INTO key_epochs (agent_id, epoch, created_at, created_by, reason) "
                          "VALUES (?, ?, ?, ?, ?)", [agent, int(epoch), _now(), ring.device_id, reason])]
    if revoke is not None:
        stmts.append(("UPDATE devices SET revoked_at = ? WHERE agent_id = ? AND device_id = ? AND revoked_at IS NULL",
                      [_now(), agent, revoke]))
        stmts.append(("DELETE FROM key_wraps WHERE agent_id = ? AND recipient = ?", [agent, revoke]))
    stmts += wrap_stmts(agent, epoch, key, targets)
    remote.batch(stmts)


def drop_below(remote: Remote, agent_id: str, epoch: int) -> None:
    """Older epochs' wraps leave the server; their rows stay, marked dropped (devices then drop the keys)."""
    remote.batch([("DELETE FROM key_wraps WHERE agent_id = ? AND epoch < ?", [agent_id, int(epoch)]),
                  ("UPDATE key_epochs SET dropped_at = ? WHERE agent_id = ? AND epoch < ? AND dropped_at IS NULL",
                   [_now(), agent_id, int(epoch)])])


def replace_recovery(remote: Remote, ring: KeyRing, public: bytes) -> None:
    """A new recovery key: its row replaces the old one and every live epoch is wrapped for it alone."""
    agent = ring.agent_id
    stmts: list[Stmt] = [("DELETE FROM key_wraps WHERE agent_id = ? AND recipient = ?", [agent, RECOVERY]),
                         ("DELETE FROM devices WHERE agent_id = ? AND device_id = ?", [agent, RECOVERY]),
                         device_stmt(agent, RECOVERY, "recovery key", "recovery", public)]
    for epoch, key in sorted(ring.epochs.items()):
        stmts += wrap_stmts(agent, epoch, key, [(RECOVERY, public)])
    remote.batch(stmts)


def devices(remote: Remote, agent_id: str) -> list[dict[str, Any]]:
    rows = remote.execute("SELECT device_id, name, kind, enrolled_at, revoked_at, last_seen FROM devices "
                          "WHERE agent_id = ? ORDER BY enrolled_at, device_id", [agent_id]).rows
    return [{"id": d, "name": n, "kind": k, "enrolled": int(e), "revoked": None if r is None else int(r),
             "last_seen": None if s is None else int(s)} for d, n, k, e, r, s in rows]


def epochs(remote: Remote, agent_id: str) -> list[dict[str, Any]]:
    rows = remote.execute("SELECT epoch, created_at, created_by, reason, dropped_at FROM key_epochs "
                          "WHERE agent_id = ? ORDER BY epoch", [agent_id]).rows
    return [{"epoch": int(e), "created": int(c), "by": b, "reason": r, "dropped": None if d is None else int(d)}
            for e, c, b, r, d in rows]
