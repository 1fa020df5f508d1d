"""`memoryd tree restructure [--dry-run] [--undo]` and the monthly phase: propose a restructure (rules, names from
the LLM when one is configured), then apply it — snapshot first (restructure.json: the tree before and after and
every moved memory), cold rows re-put, warm and the tree written, each change in the knowledge log. A kill
resumes the same plan; `--undo` puts the last snapshot's tree and categories back."""
from __future__ import annotations

import secrets
from typing import TYPE_CHECKING, Any, Callable

from memoryd.tiers.base.atomic import atomic_write_json, read_json
from memoryd.tiers.base.errors import UsageError
from memoryd.tiers.knowledge.log import row as knowledge_row
from memoryd.tiers.base.halt import halt
from memoryd.tiers.knowledge.phase_journal import OnceLog
from memoryd.tiers.knowledge.restructure_rules import Memory, Plan, Rules, propose
from memoryd.tiers.memory.tree import ancestors, day_of

if TYPE_CHECKING:
    from memoryd.tiers.base.ports import LLM
    from memoryd.tiers.memory.agent import AgentMemory
    from memoryd.tiers.memory.types import AgentState

FILE = "restructure.json"
DESCRIBE_SAMPLE = 100  # memories read per category to name a node
PUT_BATCH = 500


def rules_of(mem: AgentMemory) -> Rules:
    k = mem.config.knowledge
    return Rules(split_over=k.split_over, sparse_under=k.sparse_under, budget=k.restructure_budget,
                 move_budget=k.move_budget)


def gather(mem: AgentMemory, state: AgentState, rules: Rules) -> tuple[list[Memory], dict[str, int]]:
    """Every warm memory, the cold texts a plan may need (all of a leaf it may split; a sample of a node
    it may name), and the memories per category."""
    warm = [Memory(e["id"], e["category"], e["text"]) for e in state["warm"]["entries"]]
    counts: dict[str, int] = {}
    for m in warm:
        counts[m.category] = counts.get(m.category, 0) + 1
    archive = mem.archive
    if archive is None:
        return warm, counts
    for cat, n in archive.category_counts(mem.agent_id).items():
        counts[cat] = counts.get(cat, 0) + n
    nodes = state["tree"]["nodes"]
    split = {c for c, n in counts.items() if c in nodes and rules.split_over < n <= rules.move_budget}
    named = {c for c in counts if any(a in nodes and not nodes[a][0] for a in ancestors(c))}
    cold: list[Memory] = []
    seen: dict[str, int] = {}
    if split or named:
        in_warm = {m.id for m in warm}
        for e in archive.iter_entries(mem.agent_id):
            cat = e["category"]
            if e["id"] in in_warm or not (cat in split or (cat in named and seen.get(cat, 0) < DESCRIBE_SAMPLE)):
                continue
            seen[cat] = seen.get(cat, 0) + 1
            cold.append(Memory(e["id"], cat, e["text"]))
    return warm + cold, counts


def _llm_names(plan: Plan, llm: LLM, memories: list[Memory], warn: Callable[[str], None]) -> None:
    """Descriptions the rules gave, asked of the LLM instead (each < 30 bytes); rules' on any failure."""
    from memoryd.tiers.distillation.llm_prompts import parse_json_answer
    from memoryd.tiers.knowledge.restructure_rules import CORE_BYTES, within_limits

    named = [a["node"] for a in plan.actions if a["op"] == "describe"] + \
        [c for a in plan.actions if a["op"] == "split" for c in a["into"]]
    if not named:
        return
    lines = []
    for node in named:
        sample = [m.text for m in memories if m.category == node or plan.moves.get(m.id, ("", ""))[1] == node][:5]
        lines.append(f"{node}: " + " | ".join(" ".join(t.split())[:120] for t in sample))
    prompt = ("Name each category of a memory tree from its memories: a description under 30 bytes each. "
              'Answer JSON {"path": "description"} only.\n' + "\n".join(lines))
    try:
        answer = parse_json_answer(llm.complete(prompt, timeout=30.0), dict)
    except Exception as exc:  # any failure: the rules' names stay
        warn(f"node names from rules, not the LLM ({getattr(exc, 'message', None) or exc})")
        return
    for node in named:
        desc = answer.get(node) if isinstance(answer, dict) else None
        if isinstance(desc, str) and 0 < len(" ".join(desc.split()).encode("utf-8")) <= CORE_BYTES \
                and desc.isprintable():
            trial = {"nodes": dict(plan.tree["nodes"], **{node: [" ".join(desc.split()), plan.tree["nodes"][node][1]]})}
            if within_limits(trial):
                plan.tree["nodes"][node][0] = " ".join(desc.split())
                for a in plan.actions:  # the report says what the tree holds
                    if a["op"] == "describe" and a["node"] == node:
                        a.update(desc=plan.tree["nodes"][node][0], why="named by the LLM")


def _load(mem: AgentMemory) -> dict[str, Any] | None:
    snap = read_json(mem.dir / FILE, lambda: None)
    return snap if isinstance(snap, dict) and "tree_before" in snap else None


def _move(mem: AgentMemory, moves: dict[str, list[str]], pairs: int) -> int:
    """Re-put the cold rows of moved memories whose category is still the move's source (`pairs`: 0 applies
    the moves, 1 reverses them); returns how many changed."""
    archive, changed, ids = mem.archive, 0, sorted(moves)
    if archive is None:
        return 0
    for start in range(0, len(ids), PUT_BATCH):
        rows = archive.get(mem.agent_id, ids[start:start + PUT_BATCH])
        src, dst = (0, 1) if pairs == 0 else (1, 0)
        moved = [dict(r, category=moves[r["id"]][dst]) for r in rows if r["category"] == moves[r["id"]][src]]
        changed += archive.put(mem.agent_id, moved) if moved else 0
    return changed


def _apply(mem: AgentMemory, snap: dict[str, Any]) -> dict[str, Any]:
    """Carry out a snapshot's plan (again, after a kill: every step checks before it moves)."""
    once = OnceLog(mem, snap["run"])
    now = mem.clock()
    once.knowledge([knowledge_row("restructure", a["node"], a["why"], action=a["op"],
                                  **{k: v for k, v in a.items() if k not in ("op", "node", "why")})
                    for a in snap["actions"]], now)
    _move(mem, snap["moves"], 0)
    halt("restructure:cold-moved")

    def step(state: AgentState, now: float) -> None:
        for e in state["warm"]["entries"]:
            move = snap["moves"].get(e["id"])
            if move and e["category"] == move[0]:
                e["category"] = move[1]
        state["tree"] = {"nodes": {p: list(n) for p, n in snap["tree_after"]["nodes"].items()}}

    mem.change(step, "restructure")
    snap["state"] = "done"
    atomic_write_json(mem.dir / FILE, snap)
    return _report(snap, dry_run=False)


def _report(snap: dict[str, Any], dry_run: bool) -> dict[str, Any]:
    return {"changes": len(snap["actions"]), "actions": snap["actions"], "moved": len(snap["moves"]),
            "dry_run": dry_run, "tree": snap["tree_after"], "run": snap["run"]}


def restructure(mem: AgentMemory, run: str | None = None, llm: LLM | None = None,
                dry_run: bool = False) -> dict[str, Any]:
    """Propose and (unless `dry_run`) apply a restructure; a snapshot left half-applied by a kill is
    finished first. Returns {"changes", "actions", "moved", "dry_run", "tree", "run"}."""
    with mem.exclusive():
        pending = _load(mem)
        if pending is not None and pending.get("state") == "applying" and not dry_run:
            return _apply(mem, pending)
        if pending is not None and run is not None and pending.get("run") == run:
            return _report(pending, dry_run=False)  # this run's restructure is done: a kill came after it
        state = mem.read_state()
        rules = rules_of(mem)
        memories, counts = gather(mem, state, rules)
        plan = propose(state["tree"], memories, day_of(mem.clock()), rules, counts)
        if llm is not None and plan.actions:
            _llm_names(plan, llm, memories, mem.warnings.append)
        snap = {"run": run or secrets.token_hex(6), "at": int(mem.clock()), "state": "applying",
                "tree_before": state["tree"], "tree_after": plan.tree, "actions": plan.actions,
                "moves": {mid: list(pair) for mid, pair in sorted(plan.moves.items())}}
        if dry_run or not plan.actions:
            return _report(snap, dry_run=dry_run)
        atomic_write_json(mem.dir / FILE, snap)  # before anything moves: a kill resumes this very plan
        return _apply(mem, snap)


def undo(mem: AgentMemory) -> dict[str, Any]:
    """Put back the last restructure's tree and categories. A memory filed since under a node the old tree
    lacks goes to that node's nearest ancestor in the old tree."""
    with mem.exclusive():
        snap = _load(mem)
        if snap is None or snap.get("state") == "undone":
            raise UsageError("no restructure to undo")
        before = snap["tree_before"]["nodes"]
        # nodes the restructure made, and any filed under them since: their memories go to the old tree
        added = (set(snap["tree_after"]["nodes"]) | set(mem.read_state()["tree"]["nodes"])) - set(before)

        def home(cat: str) -> str:
            if cat not in added:
                return cat
            return next((a for a in reversed(ancestors(cat)[:-1]) if a in before), cat)

        moves = {mid: list(pair) for mid, pair in snap["moves"].items()}
        archive = mem.archive
        if archive is not None and added:  # filed under a new node since: to where it would have gone
            strays = {c for c in archive.category_counts(mem.agent_id) if c in added}
            for e in archive.iter_entries(mem.agent_id) if strays else ():
                if e["category"] in strays and e["id"] not in moves:
                    moves[e["id"]] = [home(e["category"]), e["category"]]
        now = mem.clock()
        OnceLog(mem, None).knowledge([knowledge_row("restructure", "", "undo of the last restructure",
                                                    undone=snap["run"], moved=len(moves))], now)
        _move(mem, moves, 1)

        def step(state: AgentState, now: float) -> None:
            for e in state["warm"]["entries"]:
                move = moves.get(e["id"])
                if move and e["category"] == move[1]:
                    e["category"] = move[0]
                else:
                    e["category"] = home(e["category"])
            state["tree"] = {"nodes": {p: list(n) for p, n in before.items()}}

        mem.change(step, "restructure undo")
        snap["state"] = "undone"
        atomic_write_json(mem.dir / FILE, snap)
        return {"undone": snap["run"], "moved": len(moves), "tree": {"nodes": before}}
