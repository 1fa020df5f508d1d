"""The core operations on one agent's memory: init, store, retrieve, consolidate, forget, ingest, export/import."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from memoryd.tiers.base.errors import MemorydError, UsageError

from memoryd.daemon.engine import Engine, Params, agent_of
from memoryd.daemon.ops_shred import forget_shredding, wants_shred
from memoryd.daemon.ops_sync import push_forgotten, stamp_edits, sync


def ping(engine: Engine, params: Params) -> dict[str, Any]:
    return {"pong": True}


def init(engine: Engine, params: Params) -> dict[str, Any]:
    """Create the agent's dirs, key and local index (idempotent)."""
    from memoryd.sync.crypto.keys import ensure_key, fingerprint
    from memoryd.tiers.memory.status import record_cold_count

    with engine.memory(agent_of(params)) as mem:
        mem.init()
        new_key = not engine.config.key_path(mem.agent_id).exists()
        key = ensure_key(engine.config, mem.agent_id)
        cold = record_cold_count(mem)
    out = {"agent_id": mem.agent_id, "dir": str(mem.dir), "key_fingerprint": fingerprint(key), "cold_count": cold}
    if new_key:  # a new agent: its recovery key, printed this once and never stored (sync/crypto/recovery.py)
        from memoryd.sync.devices import recovery_at_init

        out["recovery_key"] = recovery_at_init(engine.config, mem.agent_id, key)
    return out


def store(engine: Engine, params: Params) -> dict[str, Any]:
    from memoryd.tiers.ingest.hot_updates import stored_lessons
    from memoryd.tiers.knowledge.given import given_kind

    if params.get("supersedes"):  # the agent names what the new memory replaces (daemon/ops_review.py)
        from memoryd.daemon.ops_review import store_superseding

        return store_superseding(engine, params)
    metadata = given_kind(params.get("metadata"), params.get("kind"), params.get("confidence"), params.get("basis"))
    text = params.get("text", "")
    with engine.memory(agent_of(params)) as mem:
        then = stored_lessons(text, _day(mem.clock())) if isinstance(text, str) else None
        entry = mem.store_many([(text, params.get("category", ""), params.get("importance"), metadata)],
                               then=then)[0]
    stamp_edits(engine.config, mem.agent_id)
    return entry


def _day(now: float) -> str:
    import datetime as dt

    return dt.datetime.fromtimestamp(now, dt.timezone.utc).date().isoformat()


def retrieve(engine: Engine, params: Params) -> dict[str, Any]:
    from memoryd.tiers.memory.agent import check_query
    from memoryd.tiers.retrieval.filters import Filters

    filters = Filters.from_params(params)
    check_query(params.get("query"), int(params.get("limit", 10)), filters)  # before opening anything
    agent_id = agent_of(params)
    if not engine.config.agent_dir(agent_id).is_dir():  # nothing to find, and nothing gets created
        return {"results": [], "warnings": [f"agent {agent_id!r} has no memories on this device"]}
    with engine.memory(agent_id) as mem:
        results = mem.retrieve(params.get("query", ""), int(params.get("limit", 10)), paths=params.get("paths"),
                               filters=filters)
        return {"results": results, "warnings": mem.warnings}


def consolidate(engine: Engine, params: Params) -> dict[str, Any]:
    from memoryd.tiers.memory.consolidate import consolidate as run
    from memoryd.tiers.memory.status import record_cold_count

    from memoryd.daemon.ops_seal import knowledge_llm

    mode = params.get("mode", "quick")
    with engine.memory(agent_of(params), engine.clock) as mem:  # decay and sealing on the test clock, if set
        report = run(mem, mode, llm=knowledge_llm(engine.config) if mode != "quick" else None)
        report["cold_count"] = record_cold_count(mem)
    stamp_edits(engine.config, mem.agent_id)
    return report


def forget(engine: Engine, params: Params) -> dict[str, Any]:
    """{id} or {days}: delete from every tier, then from the cloud copy."""
    from memoryd.tiers.memory.forget import check_days, forget_days, forget_id

    if params.get("days") is not None:
        check_days(params["days"])
    elif not str(params.get("id") or "").strip():
        raise UsageError("memory id is empty")
    agent_id = agent_of(params)
    if not engine.config.agent_dir(agent_id).exists():
        raise UsageError(f"agent {agent_id!r} has no memories on this device")
    if wants_shred(engine, params):
        return forget_shredding(engine, params)
    with engine.memory(agent_id) as mem:
        if params.get("days") is not None:
            result = forget_days(mem, float(params["days"]))
        else:
            from memoryd.tiers.knowledge.seal import release_summary

            release_summary(mem, str(params.get("id", "")).strip(), mem.clock())  # a summary: members back first
            result = forget_id(mem, str(params.get("id", "")))
    from memoryd.daemon.forget_derived import refresh_derived, scrub_index

    # digests, summaries, bank pages, the snapshot and rendered files made again without it; then the
    # index file rewritten so that its free pages and WAL keep none of its bytes
    result.update(refresh_derived(engine, agent_id, set(result.get("ids") or [result.get("id")]) - {None},
                                  scrub=False))
    result["sync"] = push_forgotten(engine.config, mem.agent_id)
    result["scrub"] = scrub_index(engine, agent_id)
    return result


def urls(engine: Engine, params: Params) -> dict[str, Any]:
    """Every URL stored in warm memory."""
    with engine.memory(agent_of(params)) as mem:
        state = mem.read_state()
    return {"urls": sorted({u for e in state["warm"]["entries"] for u in e.get("metadata", {}).get("urls", [])})}


def ingest_daily(engine: Engine, params: Params) -> dict[str, Any]:
    """The workspace's daily notes into the agent it feeds (daemon/ops_route.py: `agent_id` when given must
    be that agent; none given: that agent, or `default` for a workspace read for the first time)."""
    from memoryd.tiers.ingest.dailynotes import ingest

    from memoryd.daemon.ops_route import workspace_agent

    agent_id = workspace_agent(engine, params.get("agent_id"), "ingest-daily", record=False)
    with engine.memory(agent_id) as mem:
        report = ingest(mem, engine.config.workspace, date=params.get("date"), all_=bool(params.get("all")))
    workspace_agent(engine, params.get("agent_id"), "ingest-daily")  # recorded once the notes were read
    stamp_edits(engine.config, mem.agent_id)
    report["agent_id"] = agent_id
    return report


def ingest_transcript(engine: Engine, params: Params) -> dict[str, Any]:
    """A conversation went quiet: distil its new messages into warm, then push the critical state."""
    from memoryd.tiers.ingest.transcripts import ingest_transcript as ingest

    with engine.memory(agent_of(params)) as mem:
        report = ingest(mem, Path(str(params.get("path", ""))))
    if report["stored"]:
        try:
            report["sync"] = sync(engine, {"agent_id": mem.agent_id})
        except MemorydError as exc:  # queued in the outbox; the daemon retries it
            report["sync"] = {"queued": True, "error": exc.message}
    return report


def export_to(engine: Engine, params: Params) -> dict[str, Any]:
    """{agent_id, file}: hot, tree, warm and cold memories as JSON Lines, header first."""
    from memoryd.tiers.memory.transfer import export_to as export

    file = Path(params["file"])
    with engine.memory(agent_of(params)) as mem:
        lines = export(mem, file)
    return {"file": str(file), "lines": lines}


def import_from(engine: Engine, params: Params) -> dict[str, Any]:
    """{agent_id, file}: read an export (every line checked first; importing twice changes nothing more).
    Returns {"counts", "warnings"}."""
    from memoryd.tiers.memory.transfer import import_from as load

    file = params["file"]
    try:
        fh = open(file, encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"cannot read {file}: {exc.strerror}") from None
    with fh, engine.memory(agent_of(params)) as mem:
        counts = load(mem, fh)
    stamp_edits(engine.config, mem.agent_id)
    return {"counts": counts, "warnings": mem.warnings}
