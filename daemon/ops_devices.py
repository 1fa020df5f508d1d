"""Operations on an agent's devices and key epochs: device list/add/revoke, key rotate, key recovery --new."""
from __future__ import annotations

from typing import Any

from memoryd.tiers.base.errors import UsageError

from memoryd.daemon.engine import Engine, Params, agent_of


def device_list(engine: Engine, params: Params) -> dict[str, Any]:
    from memoryd.sync.devices import list_devices

    return list_devices(engine.config, agent_of(params))


def device_add(engine: Engine, params: Params) -> dict[str, Any]:
    """{agent_id, code?, recovery_key?, name?}: without either, a code for another device; with one,
    this device joins."""
    from memoryd.sync import devices

    config, agent_id = engine.config, agent_of(params)
    code, recovery = params.get("code"), params.get("recovery_key")
    if code and recovery:
        raise UsageError("give either --code or --recovery-key, not both")
    if not code and not recovery:
        return dict(devices.create_code(config, agent_id), action="code")
    ring = (devices.join_with_code(config, agent_id, str(code), params.get("name")) if code
            else devices.join_with_recovery(config, agent_id, str(recovery), params.get("name")))
    return {"agent_id": agent_id, "action": "enrolled", "device_id": ring.device_id, "name": ring.name,
            "epoch": ring.current, "epochs": sorted(ring.epochs)}


def device_revoke(engine: Engine, params: Params) -> dict[str, Any]:
    from memoryd.sync.devices import revoke

    device = str(params.get("device") or "").strip()
    if not device:
        raise UsageError("which device? give its id (see 'memoryd device list')")
    return revoke(engine.config, agent_of(params), device)


def device_rename(engine: Engine, params: Params) -> dict[str, Any]:
    """{agent_id, device, name}: the name `device list` shows."""
    from memoryd.sync.devices import rename

    device = str(params.get("device") or "").strip()
    if not device:
        raise UsageError("which device? give its id (see 'memoryd device list')")
    return rename(engine.config, agent_of(params), device, str(params.get("name") or ""))


def key_rotate(engine: Engine, params: Params) -> dict[str, Any]:
    """{agent_id, reseal?, resume?}: a new epoch; with reseal, every live row moved to it (resumable)."""
    from memoryd.sync import devices, reseal

    config, agent_id = engine.config, agent_of(params)
    if params.get("resume") or (params.get("reseal") and reseal.pending(config, agent_id)):
        return dict(reseal.reseal(config, agent_id, start=False), action="reseal")
    if params.get("reseal"):
        return dict(reseal.reseal(config, agent_id), action="reseal")
    return dict(devices.rotate(config, agent_id), action="rotate")


def key_recovery(engine: Engine, params: Params) -> dict[str, Any]:
    """{agent_id, new}: issue a new recovery key (returned once)."""
    from memoryd.sync.devices import issue_recovery

    if not params.get("new"):
        raise UsageError("the recovery key is never stored: 'memoryd key recovery --new' issues a new one")
    return issue_recovery(engine.config, agent_of(params))


def join_for_restore(engine: Engine, params: Params) -> Any:
    """restore --code / --recovery-key (or MEMORYD_KEY holding a recovery key): enrol first; the keys."""
    from memoryd.sync import devices
    from memoryd.sync.crypto.recovery import is_recovery

    config, agent_id = engine.config, agent_of(params)
    recovery = params.get("recovery_key") or (config.recovery_key if is_recovery(config.recovery_key) else None)
    if params.get("code"):
        return devices.join_with_code(config, agent_id, str(params["code"]), params.get("name"))
    if recovery:
        return devices.join_with_recovery(config, agent_id, str(recovery), params.get("name"))
    return None
