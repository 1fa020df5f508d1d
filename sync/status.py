"""Sync status for `memoryd status`: local files only (fast start-up) unless asked for the cloud's versions."""
from __future__ import annotations

from typing import Any

from memoryd.tiers.base.config import Config
from memoryd.tiers.base.errors import MemorydError

from memoryd.sync.merge.replica import replica_hash
from memoryd.sync.device_files import SyncFiles


def status_info(config: Config, agent_id: str, *, db: Any = None, remote: bool = False) -> dict[str, Any]:
    """Version, last push/pull/error and the outbox; with `remote`, one round trip for the latest versions."""
    files = SyncFiles(config, agent_id)
    state = files.state()
    base = files.base() if files.path("base.json").exists() else None
    info: dict[str, Any] = {
        "device_id": state.get("device_id"), "version": state.get("version", 0),
        "last_push": state.get("last_push"), "last_pull": state.get("last_pull"),
        "last_check": state.get("last_check"), "check": state.get("check"),
        "last_error": state.get("last_error"), "pending": 1 if files.outbox() else 0, "outbox": files.outbox(),
        "restoring": files.restoring() is not None,
        "unpushed_changes": bool(base and replica_hash(base["replica"]) != base["pushed"]),
    }
    if remote:
        from memoryd.sync.remote.namespaces import namespace_name, uses_namespaces
        from memoryd.sync.restore import list_versions

        info["namespace"] = namespace_name(agent_id) if uses_namespaces(config) else None

        try:
            info["versions"] = list_versions(config, agent_id, db=db)
        except MemorydError as exc:
            info["remote_error"] = exc.message
    return info
