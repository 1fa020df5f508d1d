"""Review operations: a store that names the memories it replaces, and the review queue (list, resolve, undo)
of tiers/knowledge/review.py, each under the agent's lock in the calling process."""
from __future__ import annotations

from typing import Any

from memoryd.tiers.base.errors import UsageError
from memoryd.tiers.knowledge import review
from memoryd.tiers.knowledge.given import given_kind

from memoryd.daemon.engine import Engine, Params, agent_of
from memoryd.daemon.ops_knowledge import clock
from memoryd.daemon.ops_sync import stamp_edits


def _ids(value: Any) -> list[str]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, (list, tuple)) or not all(isinstance(i, str) for i in value):
        raise UsageError("supersedes must be a list of memory ids")
    return list(value)


def store_superseding(engine: Engine, params: Params) -> dict[str, Any]:
    """`store TEXT --supersedes ID…`: every id checked first (an unknown one: UsageError, nothing stored), then
    the store and the supersession in one hold of the agent's lock."""
    ids = _ids(params.get("supersedes"))
    if not engine.config.agent_dir(agent_of(params)).is_dir():  # no memory to replace; and create no agent
        raise UsageError(f"--supersedes: no memory with id {ids[0]!r} (memoryd retrieve --history shows ids)")
    metadata = given_kind(params.get("metadata"), params.get("kind"), params.get("confidence"), params.get("basis"))
    with engine.memory(agent_of(params), clock(engine.config)) as mem, mem.exclusive():
        ids = review.check_held(mem, ids)
        entry = mem.store(params.get("text", ""), params.get("category", ""), params.get("importance"), metadata)
        done = review.supersede_by_agent(mem, entry["id"], ids)
    stamp_edits(engine.config, mem.agent_id)
    meta = dict(entry.get("metadata") or {})
    if done:
        meta["supersedes"] = sorted(set(meta.get("supersedes") or []) | set(done))
    skipped = [i for i in ids if i not in done]
    out = dict(entry, metadata=meta, superseded=done)
    if skipped:
        out["note"] = f"restates {', '.join(skipped)}: merged into it, nothing superseded"
    return out


def _known(engine: Engine, params: Params) -> str:
    agent_id = agent_of(params)
    if not engine.config.agent_dir(agent_id).is_dir():
        raise UsageError(f"agent {agent_id!r} has no memories on this device")
    return agent_id


def review_list(engine: Engine, params: Params) -> dict[str, Any]:
    """The open questions, oldest first, with their members' previews."""
    with engine.memory(_known(engine, params), clock(engine.config)) as mem:
        return {"agent_id": mem.agent_id, "questions": review.open_questions(mem),
                "answered": review.answered_here(mem), "warnings": mem.warnings}


def review_resolve(engine: Engine, params: Params) -> dict[str, Any]:
    """{id, action}: answer one open question (current, both, merge, dismiss)."""
    qid, action = str(params.get("id") or "").strip(), str(params.get("action") or "").strip()
    if not qid:
        raise UsageError("review question id is empty")
    with engine.memory(_known(engine, params), clock(engine.config)) as mem:
        out = review.resolve(mem, qid, action)
    stamp_edits(engine.config, mem.agent_id)
    return out


def review_undo(engine: Engine, params: Params) -> dict[str, Any]:
    """{id}: take an answer back; the question is open again."""
    qid = str(params.get("id") or "").strip()
    if not qid:
        raise UsageError("review question id is empty")
    with engine.memory(_known(engine, params), clock(engine.config)) as mem:
        out = review.undo(mem, qid)
    stamp_edits(engine.config, mem.agent_id)
    return out
