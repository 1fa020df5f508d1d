"""Operations shared by the CLI (in-process) and the daemon (over its socket): wiring tiers to sync.

`dispatch(config, op, params)` is the one entry point; results are plain JSON-able dicts/lists.
"""
from __future__ import annotations

import time
from contextlib import contextmanager
from typing import Any, Callable, Iterator

from memoryd.tiers.memory.agent import AgentMemory
from memoryd.tiers.base.config import AGENT_ID_RE, Config, validate_agent_id
from memoryd.tiers.base.errors import UsageError

OPS: dict[str, Callable[[Config, dict[str, Any]], Any]] = {}
INDEXES: Any = None  # the daemon's shared IndexSource (runner.py); a CLI process opens the index per use


def op(name: str) -> Callable:
    def register(fn: Callable[[Config, dict[str, Any]], Any]) -> Callable:
        OPS[name] = fn
        return fn
    return register


def dispatch(config: Config, name: str, params: dict[str, Any]) -> Any:
    fn = OPS.get(name)
    if fn is None:
        raise UsageError(f"unknown operation {name!r}")
    return fn(config, dict(params or {}))


def _agent(params: dict[str, Any]) -> str:
    return validate_agent_id(params.get("agent_id", "default"))


@contextmanager
def memory(config: Config, params: dict[str, Any], with_archive: bool = True,
           clock: Callable[[], float] = time.time, lazy: bool = False) -> Iterator[AgentMemory]:
    """An AgentMemory for params['agent_id'] with the device's local index (local SQLite, no network,
    opened at first use; entries leaving warm go there). `with_archive`/`lazy` are kept for callers."""
    from memoryd.tiers.cold.source import IndexSource

    source = INDEXES if INDEXES is not None and INDEXES.config is config else IndexSource(config)
    archive = source.lazy(clock)
    try:
        yield AgentMemory(config, _agent(params), archive=archive, clock=clock)
    finally:
        archive.close()


def agent_ids(config: Config) -> list[str]:
    root = config.agents_dir()
    if not root.is_dir():
        return []
    return sorted(p.name for p in root.iterdir() if p.is_dir() and AGENT_ID_RE.fullmatch(p.name))


def stamp_edits(config: Config, agent_id: str) -> None:
    """Give this device's fresh edits their sync stamp now, so "newest wins" means newest edit,
    not newest push. Local files only; skipped until the agent has synced once (the first push
    stamps everything). Call with no agent lock held (the sync layer takes it)."""
    if not (config.agent_dir(agent_id) / "sync" / "state.json").exists():
        return
    from memoryd.sync.critical import Session, stamp_local
    from memoryd.tiers.base.errors import MemorydError

    session = Session(config, agent_id)
    try:
        stamp_local(session)
    except MemorydError as exc:  # the next push stamps them instead
        import logging

        logging.getLogger("memoryd.daemon").warning("agent %s: edits not stamped yet: %s", agent_id, exc.message)
    finally:
        session.close()


@op("ping")
def _ping(config: Config, params: dict[str, Any]) -> dict[str, Any]:
    return {"pong": True}


@op("init")
def init(config: Config, params: dict[str, Any]) -> dict[str, Any]:
    from memoryd.sync.crypto.keys import ensure_key, fingerprint
    from memoryd.tiers.memory.status import record_cold_count

    with memory(config, params, with_archive=True) as mem:
        mem.init()
        key = ensure_key(config, mem.agent_id)
        cold = record_cold_count(mem)
    return {"agent_id": mem.agent_id, "dir": str(mem.dir), "key_fingerprint": fingerprint(key),
            "cold_count": cold}


@op("store")
def store(config: Config, params: dict[str, Any]) -> dict[str, Any]:
    with memory(config, params) as mem:
        entry = mem.store(params.get("text", ""), params.get("category", ""), params.get("importance"),
                          params.get("metadata"))
    stamp_edits(config, mem.agent_id)
    return entry


@op("retrieve")
def retrieve(config: Config, params: dict[str, Any]) -> dict[str, Any]:
    from memoryd.tiers.memory.agent import check_query
    from memoryd.tiers.retrieval.filters import Filters

    filters = Filters.from_params(params)
    check_query(params.get("query"), int(params.get("limit", 10)), filters)  # before opening anything
    if not config.agent_dir(_agent(params)).is_dir():  # nothing to find, and nothing gets created
        return {"results": [], "warnings": [f"agent {_agent(params)!r} has no memories on this device"]}
    with memory(config, params, with_archive=True) as mem:
        results = mem.retrieve(params.get("query", ""), int(params.get("limit", 10)), paths=params.get("paths"),
                               filters=filters)
        return {"results": results, "warnings": mem.warnings}


@op("consolidate")
def consolidate(config: Config, params: dict[str, Any]) -> dict[str, Any]:
    from memoryd.tiers.memory.consolidate import consolidate as run
    from memoryd.tiers.memory.status import record_cold_count

    with memory(config, params, with_archive=True, lazy=True) as mem:
        report = run(mem, params.get("mode", "quick"))
        report["cold_count"] = record_cold_count(mem)
    stamp_edits(config, mem.agent_id)
    return report


@op("status")
def status(config: Config, params: dict[str, Any]) -> dict[str, Any]:
    from memoryd.tiers.memory.status import agent_status

    ids = [_agent(params)] if params.get("agent_id") else agent_ids(config)
    for agent_id in ids:
        if not config.agent_dir(agent_id).is_dir():
            raise UsageError(f"no agent {agent_id!r} on this device (memoryd init, or memoryd restore)")
    out = []
    for agent_id in ids:
        with memory(config, {"agent_id": agent_id}) as mem:
            info = agent_status(mem)
            info["cold"].update(_migration_status(config, mem))
        info["sync"] = _sync_status(config, agent_id, bool(params.get("remote")))
        info["openclaw"] = _openclaw_status(config, agent_id)
        out.append(info)
    return {"home": str(config.home), "agents": out}


def _migration_status(config: Config, mem: AgentMemory) -> dict[str, Any]:
    """Where the move of round-1 plaintext cold rows off the server stands (server URLs only)."""
    if config.db_url.startswith("file:") or not (config.agent_dir(mem.agent_id) / "sync").is_dir():
        return {}
    from memoryd.sync.cloudlog_legacy import status
    from memoryd.sync.device_files import SyncFiles

    state = status(mem.archive, mem.agent_id, SyncFiles(config, mem.agent_id).db_id)
    return {"plaintext_migration": state} if state and state != "done" else {}


def _openclaw_status(config: Config, agent_id: str) -> list[dict[str, Any]]:
    """The OpenClaw agents feeding this memoryd agent (read-only; one short query per store)."""
    from memoryd.tiers.base.errors import MemorydError

    try:
        return dispatch(config, "openclaw_status", {"agent_id": agent_id})["agents"]
    except MemorydError as exc:
        return [{"error": exc.message}]


def _sync_status(config: Config, agent_id: str, remote: bool) -> dict[str, Any]:
    if not remote and not (config.agent_dir(agent_id) / "sync").is_dir():  # never synced: nothing to load
        return {"version": 0, "last_push": None, "last_pull": None, "last_error": None, "pending": 0,
                "outbox": None, "restoring": False, "unpushed_changes": False, "device_id": None}
    from memoryd.sync.status import status_info

    return status_info(config, agent_id, remote=remote)


@op("sync")
def sync(config: Config, params: dict[str, Any]) -> dict[str, Any]:
    """Two-way sync of one agent; `drain` (the daemon's periodic job) waits out the outbox's backoff."""
    from memoryd.sync.critical import pull_now

    agent_id = _agent(params)
    if params.get("drain"):
        from memoryd.sync.outbox import is_due, pending

        record = pending(config, agent_id)
        if record is not None and not is_due(record):
            return {"status": "waiting", "pending": 1, "next_try": record.get("next_try")}
    return pull_now(config, agent_id, force=bool(params.get("force")))


@op("forget")
def forget(config: Config, params: dict[str, Any]) -> dict[str, Any]:
    from memoryd.tiers.memory.forget import check_days, forget_days, forget_id

    if params.get("days") is not None:
        check_days(params["days"])
    elif not str(params.get("id") or "").strip():
        raise UsageError("memory id is empty")
    if not config.agent_dir(_agent(params)).exists():
        raise UsageError(f"agent {_agent(params)!r} has no memories on this device")
    with memory(config, params, with_archive=True) as mem:
        if params.get("days") is not None:
            result = forget_days(mem, float(params["days"]))
        else:
            result = forget_id(mem, str(params.get("id", "")))
    result["sync"] = _push_forgotten(config, mem.agent_id)
    return result


def _push_forgotten(config: Config, agent_id: str) -> dict[str, Any]:
    """The cloud copy forgets too: push the tombstones and drop older encrypted versions holding the item."""
    from memoryd.sync.critical import push_now
    from memoryd.tiers.base.errors import MemorydError

    try:
        return push_now(config, agent_id, purge_history=True)
    except MemorydError as exc:  # local and cold are already clean; a transient failure waits in the outbox
        return {"status": "queued" if exc.transient else "not pushed", "error": exc.message}


@op("ingest_daily")
def ingest_daily(config: Config, params: dict[str, Any]) -> dict[str, Any]:
    from memoryd.tiers.ingest.dailynotes import ingest

    with memory(config, params) as mem:
        report = ingest(mem, config.workspace, date=params.get("date"), all_=bool(params.get("all")))
    stamp_edits(config, mem.agent_id)
    return report


@op("ingest_transcript")
def ingest_transcript(config: Config, params: dict[str, Any]) -> dict[str, Any]:
    """A conversation went quiet: distil its new messages into warm, then push the critical state."""
    from pathlib import Path

    from memoryd.tiers.base.errors import MemorydError
    from memoryd.tiers.ingest.transcripts import ingest_transcript as ingest

    with memory(config, params) as mem:
        report = ingest(mem, Path(str(params.get("path", ""))))
    if report["stored"]:
        try:
            report["sync"] = sync(config, {"agent_id": mem.agent_id})
        except MemorydError as exc:  # queued in the outbox; the daemon retries it
            report["sync"] = {"queued": True, "error": exc.message}
    return report


from memoryd.daemon import openclaw_ops  # noqa: E402,F401 - registers openclaw_sync, openclaw_status and flush
