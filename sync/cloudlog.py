"""The cloud log: every archived memory and every forget, sealed on the device, appended on the server.

    memory_log(seq, agent_id, ref, kind, version, digest, data, created_at)    (server schema v2)

`seq` is assigned by the server (AUTOINCREMENT: a later commit always gets a higher seq, so a
device that pulled up to N never misses a row below it). `ref` is a keyed hash of the memory id
(the server cannot test a guessed text against content-derived ids); `data` is the AES-256-GCM
envelope of the memory (or of the forget) with agent, ref, kind and version bound as associated
data, and the opened payload must name an id whose ref is the row's ref. `digest`, a keyed hash of
the payload, makes an upload retried after a lost answer a no-op. A forget appends a tombstone and
deletes the ciphertext of that memory's puts.

Push drains the local outbox in batches (one round trip each); pull applies rows past the device's
cursor, a page per local transaction (cursor included), so a kill at any point resumes cleanly.
"""
from __future__ import annotations

import hashlib
import hmac
import json
import logging
from typing import Any, Callable

from memoryd.tiers.base.errors import CryptoError, RemoteError

from memoryd.sync.crypto.seal import open_text, seal_text
from memoryd.tiers.cold.index import LocalIndex
from memoryd.tiers.cold.index_rows import reporter

log = logging.getLogger("memoryd.sync")
LOG_VERSION = 1
PUSH_BATCH = 200
PULL_PAGE = 1000
Progress = Callable[[int, int], None]

_INSERT = ("INSERT OR IGNORE INTO memory_log (agent_id, ref, kind, version, digest, data, device_id, created_at) "
           "VALUES ")  # + one (?, ?, ?, ?, ?, ?, ?, ?) per row; the unique (agent, ref, kind, digest) drops repeats
_ROW = "(?, ?, ?, ?, ?, ?, ?, ?)"
ROWS_PER_INSERT = 100  # 8 parameters each: under SQLite's classic 999-variable limit
_PAGE = ("SELECT seq, ref, kind, version, data FROM memory_log WHERE agent_id = ? AND seq > ? "
         "ORDER BY seq LIMIT ?")
_TOP = ("SELECT (SELECT COALESCE(MAX(seq), 0) FROM memory_log WHERE agent_id = ?), "
        "(SELECT COUNT(*) FROM memory_log WHERE agent_id = ? AND seq > ?)")


def ref_of(key: bytes, agent_id: str, memory_id: str) -> str:
    return hmac.new(key, f"memoryd/ref|{agent_id}|{memory_id}".encode(), hashlib.sha256).hexdigest()[:32]


def _digest(key: bytes, payload: bytes) -> str:
    return hmac.new(key, b"memoryd/digest|" + payload, hashlib.sha256).hexdigest()[:32]


def _payload(op: str, item: dict[str, Any]) -> bytes:
    if op == "put":
        keep = ("id", "text", "category", "importance", "created_at", "metadata")
        item = {k: item.get(k) for k in keep}
    return json.dumps(item, ensure_ascii=False, sort_keys=True, separators=(",", ":")).encode("utf-8")


def seal_row(key: bytes, agent_id: str, op: str, item: dict[str, Any]) -> tuple[str, str, str]:
    """(ref, digest, data) of one outbox item: a memory (`put`) or {id, at} (`forget`)."""
    ref = ref_of(key, agent_id, item["id"])
    payload = _payload(op, item)
    data = seal_text(key, payload, agent_id=agent_id, kind=f"memory:{op}:{ref}", version=LOG_VERSION)
    return ref, _digest(key, payload), data


def open_row(key: bytes, agent_id: str, row: tuple[Any, ...]) -> tuple[str, dict[str, Any]]:
    """Verify and decrypt one log row → (kind, payload); CryptoError names the row."""
    seq, ref, kind, version, data = row
    if kind not in ("put", "forget") or not isinstance(data, str):
        raise CryptoError(f"cloud log row {seq} of agent {agent_id} is malformed (kind {kind!r})")
    try:
        plain = open_text(key, data, agent_id=agent_id, kind=f"memory:{kind}:{ref}", version=int(version))
        item = json.loads(plain.decode("utf-8"))
    except CryptoError:
        raise CryptoError(f"cloud log row {seq} of agent {agent_id} fails verification: wrong key, tampered, "
                          "or copied from another agent") from None
    except (ValueError, TypeError, UnicodeDecodeError):
        raise CryptoError(f"cloud log row {seq} of agent {agent_id} decrypted but is malformed") from None
    if not isinstance(item, dict) or not isinstance(item.get("id"), str) or ref_of(key, agent_id, item["id"]) != ref:
        raise CryptoError(f"cloud log row {seq} of agent {agent_id} names another memory than its ref (moved row)")
    if kind == "forget" and not isinstance(item.get("at"), (int, float)):
        raise CryptoError(f"cloud log row {seq} of agent {agent_id}: forget without a time")
    return kind, item


def push(remote: Any, index: LocalIndex, key: bytes, agent_id: str, device_id: str, now: int,
         progress: Progress | None = None) -> int:
    """Upload the agent's outbox, PUSH_BATCH rows per round trip; returns how many went up."""
    total = index.pending_uploads(agent_id)
    advance = reporter(progress, "upload", total)
    sent = 0
    while True:
        page = index.outbox_page(agent_id, PUSH_BATCH)
        if not page:
            return sent
        rows, stale = [], []
        for mid, op, _queued, item in page:
            if item is None:
                continue  # forgotten (or gone) since it was queued: its own forget row follows
            ref, digest, data = seal_row(key, agent_id, op, item)
            rows.append([agent_id, ref, op, LOG_VERSION, digest, data, device_id, now])
            stale.append((ref, digest if op == "put" else ""))  # older puts of it go (a forget: every put)
        if rows:
            remote.batch(_statements(agent_id, rows, stale))
        index.outbox_done(agent_id, [(mid, op, queued) for mid, op, queued, _ in page])
        sent += len(page)
        advance(len(page))


def _statements(agent_id: str, rows: list[list[Any]], stale: list[tuple[str, str]]) -> list[tuple[str, list[Any]]]:
    """One atomic batch: the new rows, then the ciphertext they replace (older versions, forgotten puts)."""
    stmts = []
    for i in range(0, len(rows), ROWS_PER_INSERT):
        chunk = rows[i:i + ROWS_PER_INSERT]
        stmts.append((_INSERT + ", ".join([_ROW] * len(chunk)), [v for r in chunk for v in r]))
    for i in range(0, len(stale), 400):
        chunk = stale[i:i + 400]
        stmts.append((f"DELETE FROM memory_log WHERE agent_id = ? AND kind = 'put' AND ref IN ({', '.join('?' * len(chunk))}) "
                      f"AND ref || ':' || digest NOT IN ({', '.join('?' * len(chunk))})",
                      [agent_id, *[r for r, _ in chunk], *[f"{r}:{d}" for r, d in chunk]]))
    return stmts


def cursor_key(agent_id: str, remote_id: str) -> str:
    return f"cursor:{agent_id}:{remote_id}"


def pull(remote: Any, index: LocalIndex, key: bytes, agent_id: str, remote_id: str,
         progress: Progress | None = None) -> dict[str, int]:
    """Apply every log row past this device's cursor; returns counts (rows, added, forgotten)."""
    ck = cursor_key(agent_id, remote_id)
    cursor = int(index.meta(ck) or 0)
    top, count = remote.execute(_TOP, [agent_id, agent_id, cursor]).rows[0]
    top, count = int(top or 0), int(count or 0)
    if top < cursor:
        raise RemoteError(f"the cloud log of agent {agent_id} ends at {top}, before this device's cursor {cursor}: "
                          "the server lost rows (restored from an older backup?); run 'memoryd sync --force' "
                          "to upload this device's memories again", transient=False)
    seen = added = forgotten = 0
    advance = reporter(progress, "cloud log", count)
    while cursor < top:
        rows = remote.execute(_PAGE, [agent_id, cursor, PULL_PAGE]).rows
        if not rows:
            break
        items = [open_row(key, agent_id, tuple(r)) for r in rows]  # all verified before any is applied
        _drop_stale(remote, index, agent_id, rows, items)
        a, f = index.apply_remote(agent_id, items, ck, int(rows[-1][0]))
        cursor = int(rows[-1][0])
        seen, added, forgotten = seen + len(rows), added + a, forgotten + f
        advance(len(rows))
    return {"rows": seen, "added": added, "forgotten": forgotten, "cursor": cursor}


def _drop_stale(remote: Any, index: LocalIndex, agent_id: str, rows: list[Any],
                items: list[tuple[str, dict[str, Any]]]) -> None:
    """Delete the ciphertext of puts that came after a forget of the same memory (a device uploaded
    its copy before it saw the forget; a copy stored anew after the forget is newer and stays).
    Before the page is applied: if this fails, the page is pulled again and the delete retried."""
    ids = [item["id"] for kind, item in items if kind == "put"]
    if not ids:
        return
    forgotten = index.forgotten_at(agent_id, ids)
    stale = []
    for row, (kind, item) in zip(rows, items):
        if kind == "forget":
            forgotten[item["id"]] = max(forgotten.get(item["id"], -1), int(item["at"]))
        elif _created(item) <= forgotten.get(item["id"], -1):
            stale.append(int(row[0]))
    for i in range(0, len(stale), 500):
        chunk = stale[i:i + 500]
        remote.execute(f"DELETE FROM memory_log WHERE agent_id = ? AND kind = 'put' AND seq IN "
                       f"({', '.join('?' * len(chunk))})", [agent_id, *chunk])
    if stale:
        log.info("agent %s: dropped %d stale cloud copies of forgotten memories", agent_id, len(stale))


def _created(item: dict[str, Any]) -> float:
    try:
        return int(float(item.get("created_at")))  # as the index compares it (check_entry)
    except (TypeError, ValueError):
        return float("inf")  # malformed: apply_remote refuses the page anyway


def reset(index: LocalIndex, agent_id: str, remote_id: str) -> int:
    """Start over with this database: pull it from the beginning, upload everything we hold."""
    index.set_meta(cursor_key(agent_id, remote_id), None)
    return index.queue_everything(agent_id)


def ensure_started(index: LocalIndex, agent_id: str, remote_id: str) -> int:
    """First sync of this agent with this database: everything local is owed to it."""
    if index.meta(cursor_key(agent_id, remote_id)) is not None:
        return 0
    n = index.queue_everything(agent_id)
    index.set_meta(cursor_key(agent_id, remote_id), "0")
    return n
