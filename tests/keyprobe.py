"""Test helper: every key a device's files hold, and whether any of them opens a server row (read raw)."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from memoryd.sync.cloudlog import open_row
from memoryd.sync.critical_log import CHANGE_VERSION, change_kind
from memoryd.sync.crypto.seal import open_text
from memoryd.sync.crypto.wrap import unwrap
from memoryd.sync.session import critical_kind
from memoryd.tiers.base.errors import MemorydError


def keys_on_device(home: Path, agent_id: str, db: Any = None) -> list[bytes]:
    """Every 32-byte secret under the device's key folder: key files, the device store's epoch keys and,
    when `db` is given, whatever its private key unwraps from the server's wraps."""
    keys: list[bytes] = []
    privates: list[bytes] = []
    for path in sorted((home / "keys").rglob("*")):
        if not path.is_file():
            continue
        raw = path.read_bytes()
        if len(raw) == 32:
            keys.append(raw)
            continue
        try:
            doc = json.loads(raw)
        except ValueError:
            continue
        keys += [bytes.fromhex(v) for v in (doc.get("epochs") or {}).values()]
        if doc.get("private"):
            privates.append(bytes.fromhex(doc["private"]))
    if db is not None:
        for epoch, recipient, wrapped in db.execute("SELECT epoch, recipient, wrapped FROM key_wraps "
                                                    "WHERE agent_id = ?", [agent_id]).rows:
            for private in privates:
                try:
                    keys.append(unwrap(wrapped, private, agent_id=agent_id, epoch=int(epoch), recipient=recipient))
                except MemorydError:
                    pass
    return keys


def rows_since(db: Any, agent_id: str, *, epoch: int, below: int | None = None) -> list[tuple[str, tuple]]:
    """Raw rows of the log, the critical state and its versions sealed under `epoch` or later (< below)."""
    top = below if below is not None else 2 ** 62
    out: list[tuple[str, tuple]] = []
    for row in db.execute("SELECT seq, ref, kind, version, data, epoch FROM memory_log WHERE agent_id = ? "
                          "AND epoch >= ? AND epoch < ?", [agent_id, epoch, top]).rows:
        out.append(("log", tuple(row)))
    for table in ("critical_state", "critical_versions"):
        for row in db.execute(f"SELECT version, data, epoch FROM {table} WHERE agent_id = ? AND epoch >= ? "
                              "AND epoch < ?", [agent_id, epoch, top]).rows:
            out.append(("critical", tuple(row)))
    for row in db.execute("SELECT device_id, data, epoch FROM critical_log WHERE agent_id = ? AND epoch >= ? "
                          "AND epoch < ?", [agent_id, epoch, top]).rows:
        out.append(("change", tuple(row)))
    return out


def opens_any(keys: list[bytes], agent_id: str, item: tuple[str, tuple]) -> bool:
    """Whether any key opens the row (with the associated data the row itself names)."""
    what, row = item
    for key in keys:
        try:
            if what == "log":
                open_row(key, agent_id, row)
            elif what == "change":
                device_id, data, epoch = row
                open_text(key, data, agent_id=agent_id, kind=change_kind(str(device_id), int(epoch)),
                          version=CHANGE_VERSION)
            else:
                version, data, epoch = row
                open_text(key, data, agent_id=agent_id, kind=critical_kind(int(epoch)), version=int(version))
            return True
        except MemorydError:
            continue
    return False
