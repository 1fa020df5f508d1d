"""Consolidation modes (quick ⊂ daily ⊂ monthly ⊂ full): rescoring, eviction, archiving, pruning."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memoryd.tiers.memory import hot as hot_tier
from memoryd.tiers.memory import tree as tree_index
from memoryd.tiers.memory import warm as warm_tier
from memoryd.tiers.memory.agent import AgentMemory
from memoryd.tiers.base.errors import MemorydError, UsageError
from memoryd.tiers.memory.model import DAY
from memoryd.tiers.memory.said import first_said
from memoryd.tiers.knowledge import kinds
from memoryd.tiers.knowledge import rescheduled
from memoryd.tiers.base.halt import halt

if TYPE_CHECKING:
    from memoryd.tiers.base.ports import LLM
    from memoryd.tiers.knowledge.phases import Phase, PhaseRun
    from memoryd.tiers.memory.types import AgentState, Metrics

MODES = ("quick", "daily", "monthly", "full")
PERIODS = {"quick": 3600.0, "daily": DAY, "monthly": 31 * DAY, "full": None}


def consolidate(mem: AgentMemory, mode: str, llm: LLM | None = None) -> dict[str, Any]:
    """Run one consolidation as phases (tiers/knowledge/phases.py: resumed where a killed run of this mode
    stopped) and record it in metrics.json (start, end, counts, error). `llm`: summaries and node names
    from it (any failure falls back to the rules)."""
    from memoryd.tiers.knowledge.phases import run_phases

    if mode not in MODES:
        raise UsageError(f"unknown mode {mode!r}: use one of {', '.join(MODES)}")
    start = mem.clock()
    counts: dict[str, int] = {}
    about: dict[str, Any] = {}
    error: MemorydError | None = None
    try:
        done, about = run_phases(mem, mode, _phases(mode, llm))
        counts.update(done)
    except MemorydError as exc:
        error = exc
    _record(mem, mode, start, counts, error)
    if error is not None:
        raise error
    return {"mode": mode, "agent_id": mem.agent_id, "start": start, "end": mem.clock(), "counts": counts,
            "warnings": list(mem.warnings), **about}


def _phases(mode: str, llm: LLM | None) -> dict[str, Phase]:
    """Each phase's work; the old counts keep their names (rescored, to_cold, archived, promoted,
    tree_pruned, cold_deleted)."""
    from memoryd.tiers.knowledge import seal, snapshot

    level = MODES.index(mode)

    def index(run: PhaseRun) -> dict[str, int]:
        if level >= 3:
            run.mem.change(lambda state, now: _recount_tree_activity(state, now), "consolidate")
        return {"tree_pruned": _prune_tree(run.mem)}

    def restructure(run: PhaseRun) -> dict[str, int]:
        from memoryd.tiers.knowledge.restructure import restructure as apply

        return {"restructured": apply(run.mem, run=run.run, llm=llm)["changes"]}

    return {
        "collect": lambda run: {"collected": _collect(run.mem)},
        "filter": lambda run: _filter(run.mem),
        "extract": lambda run: {"promoted": _promote(run.mem)},
        "merge": lambda run: _maintain(run.mem, llm),   # one current truth: supersede, clear, confirm
        "verify": lambda run: {},                        # counted by merge: maintain() verifies in the same pass
        "summarise": lambda run: seal.seal(run.mem, run.now, run.run, llm),
        "entities": lambda run: _entities(run.mem, llm),
        "decay": lambda run: {"cold_deleted": _cold_cleanup(run.mem)},
        "restructure": restructure,
        "index": index,
        "snapshot": lambda run: {"snapshot_bytes": snapshot.write_snapshot(run.mem)},
    }


def _maintain(mem: AgentMemory, llm: LLM | None) -> dict[str, int]:
    """The maintain pass of tiers/knowledge/maintain.py, bounded by [knowledge] maintain_budget."""
    from memoryd.tiers.knowledge.maintain import maintain

    if mem.config.knowledge.layer == "off":
        return {"merged": 0, "verified": 0}
    counts = maintain(mem, mem.config.knowledge.maintain_budget, llm)
    return {"merged": counts["superseded"] + counts["cleared"], "verified": counts["confirmed"]}


def _entities(mem: AgentMemory, llm: LLM | None) -> dict[str, int]:
    """Entity upkeep (tiers/knowledge/entities.py): read the memories not read yet, so hotness is current
    before sealing looks for cold entities."""
    from memoryd.tiers.knowledge import entities

    if mem.archive is None:
        return {"entities": 0}
    with mem.exclusive():
        counts = entities.refresh(mem.archive, mem.agent_id, mem.read_state()["warm"]["entries"], llm,
                                  mem.warnings.append)
    return {"entities": counts["read"]}


def _collect(mem: AgentMemory) -> int:
    """What arrived since the last successful run of any mode: warm facts stored after it."""
    runs = mem.metrics().get("runs", {})
    last = max((float(r.get("last_ok_end") or 0) for r in runs.values()), default=0.0)
    return sum(1 for e in mem.read_state()["warm"]["entries"] if e["created_at"] > last)


def _filter(mem: AgentMemory) -> dict[str, int]:
    """Rescore warm and move entries due for cold to the local index."""
    def step(state: AgentState, now: float) -> dict[str, int]:
        due, log = warm_tier.split_due_for_cold(state["warm"], now)
        log += hot_tier.expire_passed(state["hot"], now)  # a past event is no longer active
        log += hot_tier.expire_let_go(state["hot"], warm_tier.ids_answered(state["warm"]))
        if mem.config.knowledge.layer != "off":  # "moved to Dec 12": the Dec 5 item leaves what the agent reads
            held = [*state["warm"]["entries"], *due]  # `due` leaves warm here and reaches the index below
            log += rescheduled.sweep(state["hot"], _first_said(mem, held, rescheduled.sources(state["hot"])))
        mem.archive_entries(due)  # durable before warm forgets them
        halt("filter:archived")
        mem.record_evictions(log, now)
        return {"rescored": len(state["warm"]["entries"]) + len(due), "to_cold": len(due), "archived": len(due)}

    return mem.change(step, "consolidate")


def _first_said(mem: AgentMemory, held: list[dict[str, Any]], ids: list[str]) -> dict[str, float]:
    """When each of these memories was first said, from the entries at hand or the local index."""
    wanted = set(ids)
    said = {e["id"]: first_said(e) for e in held if e["id"] in wanted}
    missing = [i for i in ids if i not in said]
    if missing and mem.archive is not None:
        said |= {m["id"]: first_said(m) for m in mem.archive.get(mem.agent_id, missing)}
    return said


def _lesson(entry: dict[str, Any]) -> bool:
    """A warm entry that is a lesson: filed under lessons (a lesson cue, `hot lesson`, the agent's category) or
    pinned."""
    meta = entry.get("metadata") or {}
    return str(entry.get("category", "")).split("/")[0] == "lessons" or bool(meta.get("pinned"))


def _promote(mem: AgentMemory) -> int:
    """Hot-scored warm facts become hot lessons (once: the entry is marked promoted); no write if none."""
    def step(state: AgentState, now: float) -> int:
        promoted = 0
        for entry in state["warm"]["entries"]:
            warm_tier.rescore(entry, now)
        for entry in warm_tier.due_for_hot(state["warm"]):
            meta = entry.get("metadata", {})
            if meta.get("promoted") or not _lesson(entry) or not kinds.is_current(meta):
                continue  # critical lessons come from lesson cues, pins or the agent, not from any high score
            lesson = hot_tier.add_lesson(state["hot"], entry["text"], entry["category"], entry["importance"], now,
                                          keep_head=True)
            lesson["source_id"] = entry["id"]
            entry.setdefault("metadata", {})["promoted"] = True
            promoted += 1
        if promoted:
            mem.write_state(state, "consolidate")
        return promoted

    return mem.with_state(step)


def _recount_tree_activity(state: AgentState, now: float) -> None:
    """Full mode: a node's activity is at least the newest access of the memories under it."""
    for entry in state["warm"]["entries"]:
        day = tree_index.day_of(max(entry["created_at"], entry.get("last_access", 0)))
        for anc in tree_index.ancestors(entry["category"]):
            node = state["tree"]["nodes"].get(anc)
            if node is not None and tree_index.day_of_node(node) < day:
                node[1] = day


def _prune_tree(mem: AgentMemory) -> int:
    def step(state: AgentState, now: float) -> int:
        rows = tree_index.prune(state["tree"], mem.used_categories(state), now)
        mem.record_evictions(rows, now)
        return len(rows)

    return mem.change(step, "tree prune")


def _cold_cleanup(mem: AgentMemory) -> int:
    archive = mem.archive
    if archive is None:
        return 0
    years = mem.config.retention.cold_years
    cutoff = mem.clock() - years * 365.25 * DAY
    with mem.exclusive():
        ids = archive.delete_created_between(mem.agent_id, 0, cutoff)
        mem.record_evictions([{"tier": "cold", "kind": "entry", "id": i, "what": "",
                               "why": f"frozen past {years:g}-year retention"} for i in ids], mem.clock())
    return len(ids)


def _record(mem: AgentMemory, mode: str, start: float, counts: dict[str, int], error: MemorydError | None) -> None:
    """Record the run; a successful run also counts for the modes it contains (full ⊃ monthly ⊃ …)."""
    def record(metrics: Metrics) -> None:
        end = mem.clock()
        runs = metrics.setdefault("runs", {})
        runs.setdefault(mode, {}).update({"last_start": start, "last_end": end, "ok": error is None,
                                          "counts": counts, "error": error.message if error else None})
        if error is None:
            for included in MODES[: MODES.index(mode) + 1]:
                runs.setdefault(included, {}).update({"last_ok_end": end} if included == mode else
                                                     {"last_ok_end": end, "last_end": end, "ok": True, "via": mode})

    mem.update_metrics(record)


def is_due(metrics: Metrics, mode: str, now: float) -> bool:
    """A scheduled mode is due when its last successful run is older than its period."""
    period = PERIODS[mode]
    if period is None:
        return False
    last = metrics.get("runs", {}).get(mode, {}).get("last_ok_end")
    return last is None or now - float(last) >= period
