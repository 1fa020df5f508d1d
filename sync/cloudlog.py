"""The cloud log: every archived memory and every forget, sealed on the device, appended on the server.

    memory_log(seq, agent_id, ref, kind, version, digest, data, created_at, epoch)    (server schema v2, v3)

`seq` is assigned by the server (AUTOINCREMENT: a later commit always gets a higher seq, so a
device that pulled up to N never misses a row below it). `ref` is a keyed hash of the memory id
(the server cannot test a guessed text against content-derived ids); `data` is the AES-256-GCM
envelope of the memory (or of the forget) with agent, ref, kind and version bound as associated
data, and the opened payload must name an id whose ref is the row's ref. `digest`, a keyed hash of
the payload, makes an upload retried after a lost answer a no-op. A forget appends a tombstone and
deletes the ciphertext of that memory's puts. `epoch` names the data key that sealed the row (and keys
its ref and digest); from epoch 1 on it is bound in the associated data too (sync/epochs.py).

This module is the row format (refs, sealing, verification); what the device holds of the log is
sync/cloudlog_device.py, the uploads and pulls sync/cloudlog_transfer.py, a sync's share of it
sync/cloudlog_exchange.py, the move of round-1 plaintext rows sync/cloudlog_legacy.py.
"""
from __future__ import annotations

import hashlib
import hmac
import json
from typing import Any, Callable

from memoryd.tiers.base.errors import CryptoError

from memoryd.sync.crypto.seal import open_text, seal_text

LOG_VERSION = 1


def ref_of(key: bytes, agent_id: str, memory_id: str) -> str:
    return hmac.new(key, f"memoryd/ref|{agent_id}|{memory_id}".encode(), hashlib.sha256).hexdigest()[:32]


def _digest(key: bytes, payload: bytes) -> str:
    return hmac.new(key, b"memoryd/digest|" + payload, hashlib.sha256).hexdigest()[:32]


def _payload(op: str, item: dict[str, Any]) -> bytes:
    if op == "put":
        keep = ("id", "text", "category", "importance", "created_at", "metadata")
        item = {k: item.get(k) for k in keep}
    return json.dumps(item, ensure_ascii=False, sort_keys=True, separators=(",", ":")).encode("utf-8")


def _aad_kind(op: str, ref: str, epoch: int) -> str:
    return f"memory:{op}:{ref}" + (f"@e{int(epoch)}" if epoch else "")  # epoch 0: the kind of v1/v2 rows


def seal_row(key: bytes, agent_id: str, op: str, item: dict[str, Any], epoch: int = 0) -> tuple[str, str, str]:
    """(ref, digest, data) of one outbox item: a memory (`put`) or {id, at} (`forget`), under `epoch`'s key."""
    ref = ref_of(key, agent_id, item["id"])
    payload = _payload(op, item)
    data = seal_text(key, payload, agent_id=agent_id, kind=_aad_kind(op, ref, epoch), version=LOG_VERSION)
    return ref, _digest(key, payload), data


def open_row(key: bytes | Callable[[int], bytes], agent_id: str, row: tuple[Any, ...]) -> tuple[str, dict[str, Any]]:
    """Verify and decrypt one log row (seq, ref, kind, version, data[, epoch]) → (kind, payload);
    `key` is a key or the lookup of an epoch's key. CryptoError names the row."""
    seq, ref, kind, version, data = row[:5]
    epoch = int(row[5] or 0) if len(row) > 5 else 0
    if kind not in ("put", "forget") or not isinstance(data, str):
        raise CryptoError(f"cloud log row {seq} of agent {agent_id} is malformed (kind {kind!r})")
    key = key(epoch) if callable(key) else key
    try:
        plain = open_text(key, data, agent_id=agent_id, kind=_aad_kind(kind, ref, epoch), version=int(version))
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
