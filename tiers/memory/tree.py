"""Tree index: a small category map (≤ 50 nodes, depth ≤ 4, ≤ 10 children, ≤ 2 KB) used for retrieval."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterable

from memoryd.tiers.base.atomic import dumps
from memoryd.tiers.base.errors import LimitError, UsageError
from memoryd.tiers.memory.model import (DAY, TREE_DEAD_DAYS, TREE_MAX_BYTES, TREE_MAX_CHILDREN, TREE_MAX_NODES, check_category, check_no_controls, preview)

if TYPE_CHECKING:
    from memoryd.tiers.memory.types import Eviction, TreeNode, TreeState, WarmEntry
    Tree = TreeState  # the name this module's signatures use

MAX_DESC_CHARS = 60


def new_node(desc: str, day: int) -> TreeNode:
    return [desc, day]


def desc_of(node: TreeNode) -> str:
    desc: str = node[0]
    return desc


def day_of_node(node: TreeNode) -> int:
    """The last day (unix day number) something under this node was stored or read."""
    day: int = node[1]
    return day


def empty_tree() -> Tree:
    return {"nodes": {}}


def validate_tree(obj: Any) -> None:
    if not isinstance(obj, dict) or not isinstance(obj["nodes"], dict):
        raise TypeError("tree is not {nodes: {...}}")
    for path, node in obj["nodes"].items():
        if not isinstance(node, list) or len(node) != 2 or not isinstance(node[0], str):
            raise TypeError(f"tree node {path!r}")
        int(node[1])


def tree_size(tree: Tree) -> int:
    return len(dumps(tree))


def day_of(now: float) -> int:
    return int(now // DAY)


def parent_of(path: str) -> str:
    return path.rsplit("/", 1)[0] if "/" in path else ""


def children(tree: Tree, path: str) -> list[str]:
    return sorted(p for p in tree["nodes"] if parent_of(p) == path)


def ancestors(path: str) -> list[str]:
    """'a/b/c' → ['a', 'a/b', 'a/b/c']."""
    parts = path.split("/")
    return ["/".join(parts[: i + 1]) for i in range(len(parts))]


def _limit_problem(tree: Tree, new_paths: list[str], desc: str, day: int) -> str | None:
    nodes = tree["nodes"]
    if len(nodes) + len(new_paths) > TREE_MAX_NODES:
        return f"the tree would have {len(nodes) + len(new_paths)} nodes (max {TREE_MAX_NODES})"
    for path in new_paths:
        siblings = [p for p in nodes if parent_of(p) == parent_of(path)] + [
            p for p in new_paths if p != path and parent_of(p) == parent_of(path)]
        if len(siblings) + 1 > TREE_MAX_CHILDREN:
            where = parent_of(path) or "the root"
            return f"{where} would have {len(siblings) + 1} children (max {TREE_MAX_CHILDREN})"
    trial: Tree = {"nodes": dict(nodes, **{p: new_node(desc if p == new_paths[-1] else "", day) for p in new_paths})}
    if tree_size(trial) > TREE_MAX_BYTES:
        return f"the tree would be {tree_size(trial)} bytes (max {TREE_MAX_BYTES})"
    return None


def add_node(tree: Tree, path: str, desc: str, now: float) -> list[str]:
    """Add `path` (and missing ancestors) or update its description; LimitError if a limit refuses."""
    path = check_category(path)
    from memoryd.tiers.distillation.redact import redact

    desc = redact(" ".join(check_no_controls(desc or "", "description").split()))[0]
    if len(desc) > MAX_DESC_CHARS:
        raise UsageError(f"description is {len(desc)} characters; the maximum is {MAX_DESC_CHARS}")
    new = [p for p in ancestors(path) if p not in tree["nodes"]]
    if not new:
        node = tree["nodes"][path]
        trial: Tree = {"nodes": dict(tree["nodes"], **{path: new_node(desc or desc_of(node), day_of(now))})}
        if tree_size(trial) > TREE_MAX_BYTES:
            raise LimitError(f"cannot update {path!r}: the tree would be {tree_size(trial)} bytes (max {TREE_MAX_BYTES})")
        node[0], node[1] = desc or desc_of(node), day_of(now)
        return []
    problem = _limit_problem(tree, new, desc, day_of(now))
    if problem:
        raise LimitError(f"cannot add {path!r}: {problem}")
    for p in new:
        tree["nodes"][p] = new_node(desc if p == path else "", day_of(now))
    return new


def file_category(tree: Tree, path: str, now: float) -> tuple[str, str | None]:
    """Where a store under `path` goes: create the node if the limits allow, else the nearest ancestor.

    Returns (category, note) where note explains a fallback.
    """
    try:
        add_node(tree, path, "", now) if path not in tree["nodes"] else touch(tree, [path], now)
        return path, None
    except LimitError as exc:
        for anc in reversed(ancestors(path)[:-1]):
            if anc in tree["nodes"]:
                touch(tree, [anc], now)
                return anc, f"filed under {anc!r}: {exc.message}"
        return path, f"stored without a tree node: {exc.message}"


def touch(tree: Tree, paths: Iterable[str], now: float) -> None:
    day = day_of(now)
    for path in paths:
        for anc in ancestors(path):
            node = tree["nodes"].get(anc)
            if node is not None and day_of_node(node) < day:
                node[1] = day


def remove_node(tree: Tree, path: str, used_categories: set[str]) -> None:
    path = check_category(path)
    if path not in tree["nodes"]:
        raise UsageError(f"no tree node {path!r}")
    if children(tree, path):
        raise UsageError(f"{path!r} has child nodes; remove them first")
    if any(c == path or c.startswith(path + "/") for c in used_categories):
        raise UsageError(f"{path!r} still holds memories; forget them first")
    del tree["nodes"][path]


def prune(tree: Tree, used_categories: set[str], now: float) -> list[Eviction]:
    """Remove leaf nodes without memories and no activity for 60+ days (repeatedly, bottom-up)."""
    out: list[Eviction] = []
    cutoff = day_of(now) - TREE_DEAD_DAYS
    changed = True
    while changed:
        changed = False
        for path in sorted(tree["nodes"], key=lambda p: (-p.count("/"), p)):
            node = tree["nodes"][path]
            desc, last = desc_of(node), day_of_node(node)
            if last <= cutoff and not children(tree, path) and not any(
                    c == path or c.startswith(path + "/") for c in used_categories):
                del tree["nodes"][path]
                out.append({"tier": "tree", "kind": "node", "id": path, "what": preview(desc or path),
                            "why": f"no activity for {TREE_DEAD_DAYS}+ days"})
                changed = True
    return out


def enforce_limits(tree: Tree) -> list[Eviction]:
    """Deterministically drop the stalest leaves until every limit holds (used after a merge)."""
    out: list[Eviction] = []
    nodes = tree["nodes"]
    for path in list(nodes):  # orphans and too-deep paths cannot stay
        if path.count("/") >= 4 or any(a not in nodes for a in ancestors(path)[:-1]):
            out.append({"tier": "tree", "kind": "node", "id": path, "what": path, "why": "invalid position"})
            del nodes[path]

    def over() -> bool:
        kids: dict[str, int] = {}
        for p in nodes:
            kids[parent_of(p)] = kids.get(parent_of(p), 0) + 1
        return len(nodes) > TREE_MAX_NODES or tree_size(tree) > TREE_MAX_BYTES or any(
            v > TREE_MAX_CHILDREN for v in kids.values())

    while nodes and over():
        leaves = [p for p in nodes if not children(tree, p)]
        victim = min(leaves, key=lambda p: (day_of_node(nodes[p]), -p.count("/"), p))
        out.append({"tier": "tree", "kind": "node", "id": victim, "what": victim, "why": "tree over its limits"})
        del nodes[victim]
    return out


def counts_by_path(warm_entries: list[WarmEntry], cold: dict[str, int]) -> dict[str, tuple[int, int]]:
    """(warm, cold) memories per path including descendants; '' is the root."""
    out: dict[str, list[int]] = {}
    warm: dict[str, int] = {}
    for e in warm_entries:
        warm[e["category"]] = warm.get(e["category"], 0) + 1
    for slot, counts in ((0, warm), (1, cold)):
        for cat, n in counts.items():
            parts = cat.split("/")
            for i in range(len(parts) + 1):
                out.setdefault("/".join(parts[:i]), [0, 0])[slot] += n
    return {k: (v[0], v[1]) for k, v in out.items()}


def render(tree: Tree, counts: dict[str, tuple[int, int]] | None = None) -> str:
    """The human tree view; counts maps path → (warm, cold) including descendants."""
    counts = counts or {}
    lines = ["Memory Tree Index", "=" * 50]
    total = counts.get("", (0, 0))
    lines.append(f"📂 Root (warm:{total[0]}, cold:{total[1]})")

    def walk(parent: str, depth: int) -> None:
        for path in children(tree, parent):
            desc = desc_of(tree["nodes"][path])
            w, c = counts.get(path, (0, 0))
            lines.append(f"{'  ' * depth}📁 {path}" + (f" — {desc}" if desc else "") + f"  (warm={w}, cold={c})")
            walk(path, depth + 1)

    walk("", 1)
    lines.append(f"Nodes: {len(tree['nodes'])}/{TREE_MAX_NODES}")
    lines.append(f"Size: {tree_size(tree)} / {TREE_MAX_BYTES} bytes")
    return "\n".join(lines)
