"""Tree index: limits refused with LimitError, filing under the nearest ancestor, remove, prune."""
from __future__ import annotations

import pytest

from memoryd.tiers.memory import tree as T
from memhelp import AgentMemory
from memoryd.tiers.base.atomic import dumps
from memoryd.tiers.memory.consolidate import consolidate
from memoryd.tiers.base.errors import LimitError, UsageError
from memoryd.tiers.memory.model import DAY, TREE_MAX_BYTES
from clock import T0, Clock


def test_add_creates_ancestors() -> None:
    tree = T.empty_tree()
    assert T.add_node(tree, "projects/evoclaw/docs", "Docs", T0) == ["projects", "projects/evoclaw",
                                                                      "projects/evoclaw/docs"]
    assert tree["nodes"]["projects/evoclaw/docs"] == ["Docs", T.day_of(T0)]
    assert T.add_node(tree, "projects/evoclaw/docs", "Better docs", T0 + DAY) == []
    assert tree["nodes"]["projects/evoclaw/docs"] == ["Better docs", T.day_of(T0) + 1]


def test_depth_limit() -> None:
    tree = T.empty_tree()
    T.add_node(tree, "a/b/c/d", "", T0)
    with pytest.raises(UsageError, match="depth"):
        T.add_node(tree, "a/b/c/d/e", "", T0)


def test_children_limit_refused_with_limit_error() -> None:
    tree = T.empty_tree()
    for i in range(10):
        T.add_node(tree, f"p/c{i}", "", T0)
    before = dumps(tree)
    with pytest.raises(LimitError, match="children"):
        T.add_node(tree, "p/c10", "", T0)
    with pytest.raises(LimitError):
        T.add_node(tree, "p/c10/deeper", "", T0)
    assert dumps(tree) == before


def test_node_count_limit() -> None:
    tree = T.empty_tree()
    for i in range(5):
        for j in range(9):
            T.add_node(tree, f"r{i}/n{j}", "", T0)
    assert len(tree["nodes"]) == 50
    with pytest.raises(LimitError, match="50"):
        T.add_node(tree, "r9", "", T0)
    assert len(tree["nodes"]) == 50


def test_byte_limit() -> None:
    tree = T.empty_tree()
    with pytest.raises(LimitError, match="bytes"):
        for i in range(10):
            for j in range(4):
                T.add_node(tree, f"segment_number_{i:02d}/child_{j}", "a description of sixty characters....", T0)
    assert T.tree_size(tree) <= TREE_MAX_BYTES


def test_description_too_long() -> None:
    with pytest.raises(UsageError):
        T.add_node(T.empty_tree(), "a", "d" * 61, T0)


def test_file_category_falls_back_to_nearest_ancestor() -> None:
    tree = T.empty_tree()
    for i in range(10):
        T.add_node(tree, f"p/c{i}", "", T0)
    assert T.file_category(tree, "p/c3/sub", T0) == ("p/c3/sub", None)
    filed, note = T.file_category(tree, "p/new/deep", T0)
    assert filed == "p" and "filed under 'p'" in note and "children" in note
    assert "p/new" not in tree["nodes"]


def test_remove_only_when_empty() -> None:
    tree = T.empty_tree()
    T.add_node(tree, "a/b", "", T0)
    with pytest.raises(UsageError, match="child"):
        T.remove_node(tree, "a", set())
    with pytest.raises(UsageError, match="memories"):
        T.remove_node(tree, "a/b", {"a/b"})
    with pytest.raises(UsageError, match="no tree node"):
        T.remove_node(tree, "zz", set())
    T.remove_node(tree, "a/b", {"other"})
    assert list(tree["nodes"]) == ["a"]


def test_prune_after_60_days_bottom_up() -> None:
    tree = T.empty_tree()
    T.add_node(tree, "old/leaf", "", T0)
    T.add_node(tree, "used/leaf", "", T0)
    T.add_node(tree, "fresh", "", T0 + 59 * DAY)
    assert T.prune(tree, {"used/leaf"}, T0 + 59 * DAY) == []
    rows = T.prune(tree, {"used/leaf"}, T0 + 60 * DAY)
    assert [r["id"] for r in rows] == ["old/leaf", "old"]
    assert sorted(tree["nodes"]) == ["fresh", "used", "used/leaf"]
    assert all(r["tier"] == "tree" and "60" in r["why"] for r in rows)


def test_enforce_limits_repairs_a_merged_tree() -> None:
    nodes = {f"n{i:02d}": ["", i] for i in range(60)}
    nodes["orphan/child"] = ["", 100]
    tree = {"nodes": nodes}
    out = T.enforce_limits(tree)
    assert "orphan/child" not in tree["nodes"]
    kids: dict[str, int] = {}
    for p in tree["nodes"]:
        kids[T.parent_of(p)] = kids.get(T.parent_of(p), 0) + 1
    assert len(tree["nodes"]) <= 50 and max(kids.values()) <= 10 and T.tree_size(tree) <= TREE_MAX_BYTES
    assert sorted(tree["nodes"]) == [f"n{i:02d}" for i in range(50, 60)]  # stalest went first
    assert len(out) == 51


def test_store_files_under_ancestor_with_note(config) -> None:
    mem = AgentMemory(config, "treestore", clock=Clock())
    mem.change(lambda s, now: [T.add_node(s["tree"], f"p/c{i}", "", now) for i in range(10)], "setup")
    res = mem.store("A fact about a brand new topic", "p/brandnew", importance=0.5)
    assert res["category"] == "p" and "filed under 'p'" in res["note"]
    state = mem.read_state()
    assert "p/brandnew" not in state["tree"]["nodes"]
    assert [e["category"] for e in state["warm"]["entries"]] == ["p"]
    ok = mem.store("Another fact", "p/c1/sub", importance=0.5)
    assert ok["category"] == "p/c1/sub" and "note" not in ok
    assert "p/c1/sub" in mem.read_state()["tree"]["nodes"]


def test_daily_consolidation_prunes_dead_nodes_but_not_used_ones(config) -> None:
    clock = Clock()
    mem = AgentMemory(config, "pruner", clock=clock)
    mem.change(lambda s, now: T.add_node(s["tree"], "empty/node", "nothing here", now), "setup")
    mem.store("An important durable fact", "kept/node", importance=1.0)
    clock.t += 61 * DAY
    report = consolidate(mem, "quick")
    assert "tree_pruned" not in report["counts"]
    report = consolidate(mem, "daily")
    assert report["counts"]["tree_pruned"] == 2
    nodes = mem.read_state()["tree"]["nodes"]
    assert "empty" not in nodes and "kept/node" in nodes  # still holds (pending-cold) memories
    assert {r["id"] for r in mem.eviction_rows() if r["tier"] == "tree"} == {"empty", "empty/node"}


def _near_2kb() -> dict:
    tree = T.empty_tree()
    i = 0
    try:
        while True:
            T.add_node(tree, f"segment_number_{i // 9:02d}_long/node_{i % 9}_long_name", "", T0)
            i += 1
    except LimitError:
        pass
    assert T.tree_size(tree) > TREE_MAX_BYTES - 60
    return tree


def test_description_update_respects_byte_limit() -> None:
    tree = _near_2kb()
    before = dumps(tree)
    with pytest.raises(LimitError, match="bytes"):
        T.add_node(tree, "segment_number_00_long", "x" * 60, T0)
    assert dumps(tree) == before


def test_tree_add_never_evicts_other_nodes(config) -> None:
    mem = AgentMemory(config, "treebytes", clock=Clock())
    mem.change(lambda s, now: s["tree"].update(_near_2kb()), "setup")
    nodes_before = set(mem.read_state()["tree"]["nodes"])
    try:
        mem.change(lambda s, now: T.add_node(s["tree"], "segment_number_00_long", "y" * 60, now), "tree add")
    except LimitError:
        pass
    assert set(mem.read_state()["tree"]["nodes"]) == nodes_before
    assert not [r for r in mem.eviction_rows() if r["tier"] == "tree"]


def test_a_batch_of_stores_files_and_touches_as_stores_one_by_one(config) -> None:
    """store_many touches a node once per batch: the tree and categories are those of single stores,
    including a full tree's fallbacks and a new node's stale ancestors (touched by its next store)."""
    cats = ["a/b", "a/b/c", "a/b/c", "x/y", "a/b", "x/y", "p/new", "p/new", "p/c1/sub", "a/b/c/d", "a/b/c"]
    runs = {}
    for name in ("batch", "single"):
        clock = Clock()
        mem = AgentMemory(config, name, clock=clock)
        mem.change(lambda s, now: [T.add_node(s["tree"], p, "", now) for p in ["a/b"] + [f"p/c{i}" for i in range(10)]],
                   "setup")
        clock.days(3)  # every node above is stale
        items = [(f"fact {i} about {c}", c, 0.5, None) for i, c in enumerate(cats)]
        got = mem.store_many(items) if name == "batch" else [mem.store(*item) for item in items]
        runs[name] = (mem.read_state()["tree"], [(r["category"], r.get("note")) for r in got])
    assert runs["batch"] == runs["single"]
    nodes = runs["batch"][0]["nodes"]
    assert nodes["a"][1] == nodes["a/b/c"][1] > T.day_of(T0) and "p/new" not in nodes  # touched; p is full
