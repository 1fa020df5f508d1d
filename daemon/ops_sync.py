"""Operations on the encrypted copy in the cloud: sync, restore, and the agent's key."""
from __future__ import annotations

import logging
from typing import Any

from memoryd.tiers.base.config import Config
from memoryd.tiers.base.errors import MemorydError, UsageError

from memoryd.daemon.engine import Engine, Params, agent_of

log = logging.getLogger("memoryd.daemon")


def stamp_edits(config: Config, agent_id: str) -> None:
    """Give this device's fresh edits their sync stamp now, so "newest wins" means newest edit,
    not newest push. Local files only; skipped until the agent has synced once (the first push
    stamps everything). Call with no agent lock held (the sync layer takes it)."""
    if not (config.agent_dir(agent_id) / "sync" / "state.json").exists():
        return
    from memoryd.sync.critical import stamp_local
    from memoryd.sync.session import Session

    session = Session(config, agent_id)
    try:
        stamp_local(session)
    except MemorydError as exc:  # the next push stamps them instead
        log.warning("agent %s: edits not stamped yet: %s", agent_id, exc.message)
    finally:
        session.close()


def sync(engine: Engine, params: Params) -> dict[str, Any]:
    """Two-way sync of one agent; `drain` (the daemon's periodic job) leaves a queued push to the outbox,
    which says when it is due (its backoff is the only one)."""
    from memoryd.sync.critical import pull_now

    config, agent_id = engine.config, agent_of(params)
    if params.get("drain"):
        from memoryd.sync.outbox import is_due, pending

        record = pending(config, agent_id)
        if record is not None and not is_due(record):
            return {"status": "waiting", "pending": 1, "next_try": record.get("next_try")}
    result = pull_now(config, agent_id, force=bool(params.get("force")))
    _after_sync(config, agent_id, result)
    return result


def _after_sync(config: Config, agent_id: str, result: dict[str, Any]) -> None:
    """Epochs dropped at this sync's key check (a shred, a reseal): a new device key pair, a scrubbed index."""
    from memoryd.sync.shred_device import after_sync

    try:
        rekeyed = after_sync(config, agent_id)
    except MemorydError as exc:  # retried after the next sync
        log.warning("agent %s: device key pair not replaced yet: %s", agent_id, exc.message)
        return
    if rekeyed:
        result["rekeyed"] = rekeyed


def push_forgotten(config: Config, agent_id: str) -> dict[str, Any]:
    """The cloud copy forgets too: push the tombstones and drop older encrypted versions holding the item."""
    from memoryd.sync.critical import push_now

    try:
        return push_now(config, agent_id, purge_history=True)
    except MemorydError as exc:  # local and cold are already clean; a transient failure waits in the outbox
        return {"status": "queued" if exc.transient else "not pushed", "error": exc.message}


def restore(engine: Engine, params: Params) -> dict[str, Any]:
    """{agent_id, key_file?, code?, recovery_key?, force?, at?}: pull, verify and decrypt the agent's state
    and cold log (with a code or the recovery key, this device enrols first: daemon/ops_devices.py)."""
    from memoryd.daemon.ops_devices import join_for_restore
    from memoryd.sync.restore import restore as run

    key = _read_key_file(params["key_file"]) if params.get("key_file") else None
    ring = None if key is not None else join_for_restore(engine, params)
    return run(engine.config, agent_of(params), key=key, force=bool(params.get("force")), at=params.get("at"),
               ring=ring)


def restore_versions(engine: Engine, params: Params) -> dict[str, Any]:
    """The stored versions `restore --at` can pick."""
    from memoryd.sync.restore import list_versions

    return {"versions": list_versions(engine.config, agent_of(params))}


def _read_key_file(path: str) -> bytes:
    from memoryd.sync.crypto.keys import parse_key_material

    try:
        with open(path, "rb") as fh:
            return parse_key_material(fh.read())
    except OSError as exc:
        raise UsageError(f"cannot read key file {path}: {exc.strerror}") from None


def _existing_key(config: Config, agent_id: str) -> bytes:
    from memoryd.sync.crypto.keys import read_key_file

    found = read_key_file(config.key_path(agent_id))
    if found is None:
        raise UsageError(f"agent {agent_id} has no key on this device: run 'memoryd init' or 'memoryd key import'")
    return found


def _ring(config: Config, agent_id: str) -> Any:
    from memoryd.sync.crypto.device_keys import has_store, load_ring

    return load_ring(config, agent_id) if has_store(config, agent_id) else None


def key_show(engine: Engine, params: Params) -> dict[str, Any]:
    """The key's fingerprint and file (never the key); with devices, the current epoch's key and its number."""
    from memoryd.sync.crypto.device_keys import store_path
    from memoryd.sync.crypto.keys import fingerprint

    agent_id = agent_of(params)
    ring = _ring(engine.config, agent_id)
    if ring is not None and ring.current > 0:
        return {"agent_id": agent_id, "fingerprint": fingerprint(ring.current_key()), "epoch": ring.current,
                "device_id": ring.device_id, "path": str(store_path(engine.config, agent_id))}
    out = {"agent_id": agent_id, "fingerprint": fingerprint(_existing_key(engine.config, agent_id)),
           "path": str(engine.config.key_path(agent_id)), "epoch": 0}
    return dict(out, device_id=ring.device_id) if ring is not None else out


def key_export(engine: Engine, params: Params) -> dict[str, Any]:
    """The recovery string of the agent's key (its single key: epoch 0, before any rotation)."""
    from memoryd.sync.crypto.keys import export_recovery, fingerprint

    agent_id = agent_of(params)
    ring = _ring(engine.config, agent_id)
    if ring is not None and ring.current > 0:
        raise UsageError(f"agent {agent_id}'s key was rotated (epoch {ring.current}): there is no single key to "
                         "export; enrol a device with 'memoryd device add', or keep the recovery key "
                         "('memoryd key recovery --new')")
    secret = _existing_key(engine.config, agent_id)
    return {"agent_id": agent_id, "fingerprint": fingerprint(secret), "recovery": export_recovery(secret)}


def key_import(engine: Engine, params: Params) -> dict[str, Any]:
    """{agent_id, recovery, force?}: install a key from its recovery string."""
    from memoryd.sync.crypto.keys import fingerprint, import_key, import_recovery

    agent_id = agent_of(params)
    text = str(params.get("recovery") or "")
    if not text.strip():
        raise UsageError("no recovery string given (argument or stdin)")
    secret = import_recovery(text)
    written = import_key(engine.config, agent_id, secret, force=bool(params.get("force")))
    return {"agent_id": agent_id, "fingerprint": fingerprint(secret), "changed": written}


def namespace_migrate(engine: Engine, params: Params) -> dict[str, Any]:
    """{agents?}: move every agent (or these) of the single database into its own namespace; rerun resumes."""
    from memoryd.sync.migrate_namespaces import migrate
    from memoryd.tiers.base.config import validate_agent_id

    given = params.get("agents") or []
    if not isinstance(given, list):
        raise UsageError("agents must be a list of agent ids")
    agents = [validate_agent_id(a) for a in given]
    return migrate(engine.config, agents or None)


def _admin(config: Config) -> Any:
    from memoryd.sync.remote.namespaces import NamespaceAdmin

    if not config.sync.namespace_admin_url:
        raise UsageError("this needs sqld's admin API: set MEMORYD_NAMESPACE_ADMIN_URL (and _KEY)")
    return NamespaceAdmin(config.sync.namespace_admin_url, config.namespace_admin_key, timeout=config.db.timeout)


def namespace_show(engine: Engine, params: Params) -> dict[str, Any]:
    """{agent_id}: the agent's namespace name (what a token's `p` claim lists) and, with the admin API, whether
    it exists."""
    from memoryd.sync.remote.namespaces import namespace_name, uses_namespaces

    config, agent_id = engine.config, agent_of(params)
    out: dict[str, Any] = {"agent_id": agent_id, "namespace": namespace_name(agent_id),
                           "layout": "namespace" if uses_namespaces(config) else "single"}
    if config.sync.namespace_admin_url:
        out["exists"] = _admin(config).exists(out["namespace"])
    return out


def namespace_keys(engine: Engine, params: Params) -> dict[str, Any]:
    """{agent_id, jwt_keys?, create?}: create the agent's namespace and/or set the public keys (PEM text,
    concatenated) its tokens are verified with; no keys: the server's own key again. Live: a device whose
    key is left out is refused at its next request, the others are untouched."""
    from memoryd.sync.remote.namespaces import namespace_name

    config, agent_id = engine.config, agent_of(params)
    keys = params.get("jwt_keys")
    if keys is not None and (not isinstance(keys, str) or "-----BEGIN PUBLIC KEY-----" not in keys):
        raise UsageError("jwt keys must be Ed25519 public keys in PEM (-----BEGIN PUBLIC KEY-----), concatenated")
    admin, ns = _admin(config), namespace_name(agent_id)
    created = admin.create(ns, jwt_keys=keys or None) if params.get("create") else False
    if not created:
        admin.set_jwt_keys(ns, keys or None)
    count = keys.count("-----BEGIN PUBLIC KEY-----") if keys else 0
    return {"agent_id": agent_id, "namespace": ns, "created": created, "keys": count}
