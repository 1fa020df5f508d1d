"""Uploads to and pulls from the cloud log (sync/cloudlog.py's rows) through a session's database.

Push drains the device's outbox in batches (one round trip each); pull applies rows past the device's
cursor, a page per local transaction (cursor included), so a kill at any point resumes cleanly.
"""
from __future__ import annotations

import logging
from typing import Any, Callable, Protocol, Sequence

from memoryd.tiers.base.errors import RemoteError
from memoryd.tiers.cold.index_rows import reporter

from memoryd.sync.cloudlog import LOG_VERSION, open_row, ref_of, seal_row
from memoryd.sync.cloudlog_device import DeviceLog, Item
from memoryd.sync.crypto.device_keys import KeyRing
from memoryd.sync.epoch_store import CURRENT, GUARD, guard_args
from memoryd.sync.remote.result import Result, Stmt

log = logging.getLogger("memoryd.sync")
PUSH_BATCH = 200
PULL_PAGE = 1000
Progress = Callable[[int, int], None]

_INSERT = ("INSERT OR IGNORE INTO memory_log (agent_id, ref, kind, version, digest, data, device_id, created_at, "
           "epoch) SELECT * FROM (VALUES {rows}) WHERE " + GUARD)
# one (?, …) per row; the unique (agent, ref, kind, digest) drops repeats; the guard refuses a stale epoch
_ROW = "(?, ?, ?, ?, ?, ?, ?, ?, ?)"
ROWS_PER_INSERT = 100  # 9 parameters each: under SQLite's classic 999-variable limit
_PAGE = ("SELECT seq, ref, kind, version, data, epoch, device_id FROM memory_log WHERE agent_id = ? AND seq > ? "
         "ORDER BY seq LIMIT ?")
# The log's top, the rows past the cursor, and the table's AUTOINCREMENT counter: a deleted stale copy may have
# been the top row a device already pulled (its top then falls below the cursor, nothing lost), while a server
# restored from an older backup has its counter below the cursor too.
_TOP = ("SELECT (SELECT COALESCE(MAX(seq), 0) FROM memory_log WHERE agent_id = ?), "
        "(SELECT COUNT(*) FROM memory_log WHERE agent_id = ? AND seq > ?), "
        "(SELECT COALESCE(MAX(seq), 0) FROM sqlite_sequence WHERE name = 'memory_log')")


class Remote(Protocol):
    """What the log asks of the database: a session's statements (sync/session.py)."""

    def execute(self, sql: str, args: list[Any]) -> Result: ...

    def batch(self, stmts: list[Stmt]) -> list[Result]: ...

    bytes_sent: int
    log_bytes: int

    def local_ring(self) -> KeyRing: ...  # the keys as this device holds them (sync/session.py)

    def refresh_keys(self) -> KeyRing: ...


def push(remote: Remote, dev: DeviceLog, device_id: str, now: int, progress: Progress | None = None) -> int:
    """Upload the agent's outbox under the current epoch, PUSH_BATCH rows per round trip; returns how
    many went up. A page the server refuses as sealed under a stale epoch is sealed again after a key check."""
    agent_id = dev.agent_id
    advance = reporter(progress, "upload", dev.pending())
    sent = 0
    while True:
        page = dev.outbox_page(PUSH_BATCH)
        if not page:
            return sent
        ring = remote.local_ring()  # unchecked: the batch carries the key check, the guard refuses a stale epoch
        stmts = seal_page(remote, agent_id, page, ring, device_id, now)
        if stmts:
            results = remote.batch(stmts + [(CURRENT, [agent_id])])
            if int(results[-1].scalar(0) or 0) != ring.current:  # a new epoch started meanwhile: nothing was written
                remote.refresh_keys()
                continue
        dev.outbox_done([(mid, op, queued) for mid, op, queued, _ in page])
        sent += len(page)
        advance(len(page))


def seal_page(remote: Remote, agent_id: str, page: list[Any], ring: KeyRing, device_id: str, now: int) -> list[Stmt]:
    """The statements that upload one outbox page under `ring`'s current epoch (none when every item is gone),
    each applying only while that epoch is current; counts the sealed bytes on `remote`."""
    epoch = ring.current
    key = ring.key(epoch)
    rows, stale = [], []
    for mid, op, _queued, item in page:
        if item is None:
            continue  # forgotten (or gone) since it was queued: its own forget row follows
        ref, digest, data = seal_row(key, agent_id, op, item, epoch)
        rows.append([agent_id, ref, op, LOG_VERSION, digest, data, device_id, now, epoch])
        remote.bytes_sent += len(data)
        remote.log_bytes += len(data)
        # older puts of it go (a forget: every put), under whichever epoch they were sealed
        refs = {ref_of(k, agent_id, mid) for k in ring.epochs.values()} | {ref}
        stale += [(r, digest if op == "put" and r == ref else "") for r in sorted(refs)]
    return _statements(agent_id, rows, stale, epoch) if rows else []


def _statements(agent_id: str, rows: list[list[Any]], stale: list[tuple[str, str]], epoch: int) -> list[Stmt]:
    """The new rows, then the ciphertext they replace (older versions, forgotten puts), both only while
    `epoch` is current (the caller's batch reads the current epoch back)."""
    stmts: list[Stmt] = []
    guard = guard_args(agent_id, epoch)
    for i in range(0, len(rows), ROWS_PER_INSERT):
        chunk = rows[i:i + ROWS_PER_INSERT]
        stmts.append((_INSERT.format(rows=", ".join([_ROW] * len(chunk))), [v for r in chunk for v in r] + guard))
    for i in range(0, len(stale), 400):
        part = stale[i:i + 400]
        stmts.append((f"DELETE FROM memory_log WHERE agent_id = ? AND kind = 'put' AND ref IN ({', '.join('?' * len(part))}) "
                      f"AND ref || ':' || digest NOT IN ({', '.join('?' * len(part))}) AND " + GUARD,
                      [agent_id, *[r for r, _ in part], *[f"{r}:{d}" for r, d in part], *guard]))
    return stmts


def first_look(agent_id: str, cursor: int) -> list[Stmt]:
    """The statements of a pull's first look (the log's top and its first page past `cursor`): they can ride
    in another batch, whose results pull() then takes as `first`."""
    return [(_TOP, [agent_id, agent_id, cursor]), (_PAGE, [agent_id, cursor, PULL_PAGE])]


def pull(remote: Remote, dev: DeviceLog, ring: KeyRing, progress: Progress | None = None,
         device_id: str | None = None, first: Sequence[Result] | None = None) -> dict[str, int]:
    """Apply every log row past this device's cursor; returns counts (rows, added, forgotten) and the cursor.
    `ring` may be unchecked: the first statement carries the key check, which brings it up to date.
    `device_id`: this device's own earlier uploads of a memory it changed since (still owed) are not applied
    over the change (a review's answer on an archived memory would be undone by its own echo).
    `first`: the results of first_look() at this cursor, read already (no round trip of its own)."""
    agent_id = dev.agent_id
    cursor = dev.cursor() or 0
    head = first[0] if first is not None else remote.execute(_TOP, [agent_id, agent_id, cursor])
    rows: list[Any] | None = list(first[1].rows) if first is not None else None
    top, count, counter = (int(v or 0) for v in head.rows[0])
    if counter < cursor:
        raise RemoteError(f"the cloud log of agent {agent_id} ends at {counter}, before this device's cursor {cursor}: "
                          "the server lost rows (restored from an older backup?); run 'memoryd sync --force' "
                          "to upload this device's memories again", transient=False)
    seen = added = forgotten = 0
    gone: list[str] = []  # the ids whose forget arrived: what was derived from them is made again (daemon)
    advance = reporter(progress, "cloud log", count)
    while cursor < top:
        if rows is None:
            rows = remote.execute(_PAGE, [agent_id, cursor, PULL_PAGE]).rows
        if not rows:
            break
        items = [open_row(ring.key, agent_id, tuple(r)) for r in rows]  # all verified before any is applied
        _drop_stale(remote, dev, rows, items)
        echoes = {item["id"] for r, (kind, item) in zip(rows, items)
                  if kind == "put" and device_id is not None and len(r) > 6 and r[6] == device_id}
        a, f = dev.apply_page(items, int(rows[-1][0]), echoes)
        gone += [str(item["id"]) for kind, item in items if kind == "forget"]
        cursor = int(rows[-1][0])
        seen, added, forgotten = seen + len(rows), added + a, forgotten + f
        advance(len(rows))
        rows = None
    out = {"rows": seen, "added": added, "forgotten": forgotten, "cursor": cursor}
    return dict(out, forgotten_ids=sorted(set(gone))) if gone else out


def _drop_stale(remote: Remote, dev: DeviceLog, rows: list[Any], items: list[Item]) -> None:
    """Delete the ciphertext of puts that came after a forget of the same memory (a device uploaded
    its copy before it saw the forget; a copy stored anew after the forget is newer and stays).
    Before the page is applied: if this fails, the page is pulled again and the delete retried."""
    ids = [item["id"] for kind, item in items if kind == "put"]
    if not ids:
        return
    forgotten = dev.forgotten_at(ids)
    stale = []
    for row, (kind, item) in zip(rows, items):
        if kind == "forget":
            forgotten[item["id"]] = max(forgotten.get(item["id"], -1), float(item["at"]))
        elif _created(item) <= forgotten.get(item["id"], -1):
            stale.append(int(row[0]))
    for i in range(0, len(stale), 500):
        chunk = stale[i:i + 500]
        remote.execute(f"DELETE FROM memory_log WHERE agent_id = ? AND kind = 'put' AND seq IN "
                       f"({', '.join('?' * len(chunk))})", [dev.agent_id, *chunk])
    if stale:
        log.info("agent %s: dropped %d stale cloud copies of forgotten memories", dev.agent_id, len(stale))


def _created(item: dict[str, Any]) -> float:
    try:
        return int(float(item.get("created_at")))  # as the index compares it (check_entry)
    except (TypeError, ValueError):
        return float("inf")  # malformed: apply_page refuses the page anyway
