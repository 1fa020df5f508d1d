"""The tree's restructure by rules, pure and deterministic: split an over-full leaf by its memories' sub-topics
(greedy term clustering), merge idle sparse leaf siblings into their parent, describe unnamed nodes from their
contents (< 30 bytes, seed 002's core summary) — every result within the tree's limits, no memory lost."""
from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Iterable, NamedTuple

from memoryd.tiers.memory.model import (MAX_SEGMENT_CHARS, TREE_MAX_BYTES, TREE_MAX_CHILDREN, TREE_MAX_DEPTH,
                                        TREE_MAX_NODES)
from memoryd.tiers.memory.tree import children, parent_of, tree_size

CORE_BYTES = 29          # a description is a core summary: < 30 bytes
IDLE_DAYS = 30           # a sparse leaf is merged only when nothing under it was stored or read for this long
MAX_CLUSTERS = 4         # children one split makes at most
_WORD = re.compile(r"[^\W\d_][\w-]{2,31}", re.UNICODE)
_NOISE = frozenset("the and for with that this from have has was were are you your our not but all any can "
                   "will would should could just also into about then than them they their there what when "
                   "which who how why its it's been being over under more most some such only very".split())


class Memory(NamedTuple):
    id: str
    category: str
    text: str


@dataclass
class Rules:
    split_over: int = 40
    sparse_under: int = 3
    budget: int = 5          # splits and merges per restructure
    move_budget: int = 5000  # memories moved per restructure


@dataclass
class Plan:
    """What a restructure does: actions (for the log and the CLI), the new tree, and each moved memory."""

    actions: list[dict[str, Any]] = field(default_factory=list)
    tree: dict[str, Any] = field(default_factory=lambda: {"nodes": {}})
    moves: dict[str, tuple[str, str]] = field(default_factory=dict)  # id → (from, to)

    @property
    def changes(self) -> int:
        return len(self.actions)


def words(text: str) -> list[str]:
    """Lower-case words of 3+ letters, noise words left out (the split's and the names' vocabulary)."""
    return [w for w in (m.group(0).lower().strip("-_") for m in _WORD.finditer(text))
            if len(w) >= 3 and w not in _NOISE and len(w) <= MAX_SEGMENT_CHARS]


def core_summary(texts: Iterable[str], avoid: Iterable[str] = ()) -> str:
    """A node's description from its memories: its most shared words, < 30 bytes."""
    df: Counter[str] = Counter()
    for text in texts:
        df.update(set(words(text)))
    skip = {a.lower() for a in avoid}
    out = ""
    for word, _ in sorted(df.items(), key=lambda kv: (-kv[1], kv[0])):
        if word in skip:
            continue
        trial = f"{out}, {word}" if out else word
        if len(trial.encode("utf-8")) > CORE_BYTES:
            break
        out = trial
    return out


def within_limits(tree: dict[str, Any]) -> bool:
    nodes = tree["nodes"]
    kids = Counter(parent_of(p) for p in nodes)
    return (len(nodes) <= TREE_MAX_NODES and tree_size(tree) <= TREE_MAX_BYTES
            and all(p.count("/") < TREE_MAX_DEPTH for p in nodes) and all(v <= TREE_MAX_CHILDREN for v in kids.values()))


def clusters(node: str, members: list[Memory], rules: Rules) -> dict[str, list[str]]:
    """Sub-topic → member ids: greedily the word shared by most still-unplaced members (at least a tenth
    of them, and not one nearly all share), at most MAX_CLUSTERS; fewer than two clusters is no split."""
    floor = max(3, len(members) // 10)
    bags = {m.id: set(words(m.text)) for m in members}
    own = set(words(node.replace("/", " ")))
    common = Counter(w for bag in bags.values() for w in bag)
    ceiling = 0.6 * len(members)
    left = sorted(bags)
    out: dict[str, list[str]] = {}
    while len(out) < MAX_CLUSTERS:
        df = Counter(w for mid in left for w in bags[mid] if w not in own and w not in out and common[w] <= ceiling)
        best = min(df.items(), key=lambda kv: (-kv[1], kv[0]), default=None)
        if best is None or best[1] < floor:
            break
        out[best[0]] = [mid for mid in left if best[0] in bags[mid]]
        left = [mid for mid in left if best[0] not in bags[mid]]
    return out if len(out) >= 2 else {}


def _split(tree: dict[str, Any], node: str, members: list[Memory], rules: Rules, day: int,
           plan: Plan) -> bool:
    groups = clusters(node, members, rules)
    if not groups or node.count("/") + 1 >= TREE_MAX_DEPTH:
        return False
    texts = {m.id: m.text for m in members}
    trial = {"nodes": dict(tree["nodes"])}
    for word, ids in sorted(groups.items()):
        trial["nodes"][f"{node}/{word}"] = [core_summary((texts[i] for i in ids), [word]), day]
    if not within_limits(trial):
        for word in groups:  # names cost bytes: try without them
            trial["nodes"][f"{node}/{word}"] = ["", day]
        if not within_limits(trial):
            return False
    moved = sum(len(ids) for ids in groups.values())
    if len(plan.moves) + moved > rules.move_budget:
        return False
    tree["nodes"] = trial["nodes"]
    for word, ids in sorted(groups.items()):
        for mid in ids:
            plan.moves[mid] = (node, f"{node}/{word}")
    plan.actions.append({"op": "split", "node": node, "into": sorted(f"{node}/{w}" for w in groups),
                         "moved": moved, "why": f"{len(members)} memories, more than {rules.split_over}"})
    return True


def _merge(tree: dict[str, Any], parent: str, leaves: list[str], by_cat: dict[str, list[Memory]], plan: Plan,
           rules: Rules) -> bool:
    ids = [m.id for leaf in leaves for m in by_cat.get(leaf, [])]
    if len(plan.moves) + len(ids) > rules.move_budget:
        return False
    for leaf in leaves:
        del tree["nodes"][leaf]
        for m in by_cat.get(leaf, []):
            plan.moves[m.id] = (leaf, parent)
    plan.actions.append({"op": "merge", "node": parent, "from": leaves, "moved": len(ids),
                         "why": f"{len(leaves)} idle leaves with fewer than {rules.sparse_under} memories each"})
    return True


def propose(tree: dict[str, Any], memories: Iterable[Memory], day: int, rules: Rules,
            counts: dict[str, int] | None = None) -> Plan:
    """The restructure of `tree` for these memories (each of them; `counts`: memories per category when
    `memories` holds only some of them — the text of the rest is not needed). Pure: same input, same plan."""
    by_cat: dict[str, list[Memory]] = {}
    for m in memories:
        by_cat.setdefault(m.category, []).append(m)
    count = dict(counts) if counts is not None else {c: len(ms) for c, ms in by_cat.items()}
    plan = Plan(tree={"nodes": {p: list(n) for p, n in tree["nodes"].items()}})
    work = plan.tree
    # 1. merge idle sparse leaf siblings into their parent (frees room first)
    for parent in sorted({parent_of(p) for p in work["nodes"]} - {""}):
        if len(plan.actions) >= rules.budget or parent not in work["nodes"]:
            continue
        sparse = [c for c in children(work, parent) if not children(work, c) and count.get(c, 0) < rules.sparse_under
                  and int(work["nodes"][c][1]) <= day - IDLE_DAYS]
        if len(sparse) >= 2:
            _merge(work, parent, sparse, by_cat, plan, rules)
    # 2. split over-full leaves, the fullest first
    full = sorted((p for p in work["nodes"] if not children(work, p) and count.get(p, 0) > rules.split_over),
                  key=lambda p: (-count.get(p, 0), p))
    for node in full:
        if len(plan.actions) >= rules.budget:
            break
        members = sorted(by_cat.get(node, []))
        if len(members) == count.get(node, 0):  # every member's text at hand
            _split(work, node, members, rules, day, plan)
    # 3. describe unnamed nodes from their contents (never a description a person wrote)
    for node in sorted(work["nodes"]):
        if work["nodes"][node][0]:
            continue
        texts = [m.text for c, ms in by_cat.items() if c == node or c.startswith(node + "/") for m in ms]
        desc = core_summary(texts, node.split("/"))
        if desc:
            trial = {"nodes": dict(work["nodes"], **{node: [desc, work["nodes"][node][1]]})}
            if within_limits(trial):
                work["nodes"][node] = [desc, work["nodes"][node][1]]
                plan.actions.append({"op": "describe", "node": node, "desc": desc, "why": "named from its memories"})
    return plan
