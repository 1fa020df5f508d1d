"""The tree's restructure: rules (split, merge, names < 30 bytes), every limit on random trees (hypothesis), and
applying it to warm and the local index — snapshot, knowledge log, undo, and a half-applied plan finished."""
from __future__ import annotations

import json
import random

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from clock import Clock
from memhelp import AgentMemory
from memoryd.tiers.base.atomic import atomic_write_json
from memoryd.tiers.base.errors import UsageError
from memoryd.tiers.knowledge.restructure import FILE, restructure, undo
from memoryd.tiers.knowledge.restructure_rules import Memory, Rules, propose, within_limits
from memoryd.tiers.memory.model import DAY
from memoryd.tiers.memory.tree import day_of

AGENT = "shaper"
TOPICS = {"deploy": "deploy the server to prod with ansible",
          "invoice": "invoice sent to the customer for the quarter",
          "kettle": "kettle boiled water for oolong tea"}


def _memories(node: str, per_topic: int, prefix: str = "m") -> list[Memory]:
    out = []
    for t, (word, text) in enumerate(sorted(TOPICS.items())):
        for i in range(per_topic):
            out.append(Memory(f"{prefix}{t}{i:03d}", node, f"{text} number {i}"))
    return out


def test_an_over_full_leaf_is_split_by_its_sub_topics():
    tree = {"nodes": {"work": ["", 19000], "work/misc": ["", 19000]}}
    plan = propose(tree, _memories("work/misc", 20), 19000, Rules(split_over=40))
    split = [a for a in plan.actions if a["op"] == "split"]
    assert len(split) == 1 and len(split[0]["into"]) == 3 and split[0]["moved"] == 60
    by_child: dict[str, set[str]] = {}
    for m in _memories("work/misc", 20):
        by_child.setdefault(plan.moves[m.id][1], set()).add(m.id[1])  # the topic's digit
    assert sorted(by_child) == split[0]["into"] and all(len(t) == 1 for t in by_child.values())  # one topic each
    assert {w for c in by_child for w in TOPICS[sorted(TOPICS)[int(next(iter(by_child[c])))]].split()} >= {
        c.rsplit("/", 1)[1] for c in by_child}  # named by a word of its topic
    for child in split[0]["into"]:
        desc = plan.tree["nodes"][child][0]
        assert 0 < len(desc.encode()) < 30
    assert within_limits(plan.tree)
    again = propose(tree, list(reversed(_memories("work/misc", 20))), 19000, Rules(split_over=40))
    assert again.tree == plan.tree and again.moves == plan.moves  # deterministic


def test_idle_sparse_siblings_merge_into_their_parent_and_active_ones_stay():
    tree = {"nodes": {"food": ["Food", 100], "food/tea": ["", 100], "food/cake": ["", 100],
                      "food/soup": ["", 200], "food/big": ["", 100]}}
    mems = [Memory("a", "food/tea", "green tea"), Memory("b", "food/cake", "lemon cake"),
            Memory("c", "food/soup", "miso soup")] + [Memory(f"x{i}", "food/big", "rice") for i in range(5)]
    plan = propose(tree, mems, 200, Rules(sparse_under=3))
    merge = [a for a in plan.actions if a["op"] == "merge"]
    assert merge == [{"op": "merge", "node": "food", "from": ["food/cake", "food/tea"], "moved": 2,
                      "why": "2 idle leaves with fewer than 3 memories each"}]
    assert plan.moves == {"a": ("food/tea", "food"), "b": ("food/cake", "food")}
    assert "food/soup" in plan.tree["nodes"] and "food/tea" not in plan.tree["nodes"]
    assert plan.tree["nodes"]["food"][0] == "Food"  # a description a person wrote is kept


def test_the_budget_bounds_the_changes():
    tree = {"nodes": {f"n{i}": ["", 19000] for i in range(3)}}
    mems = [m for i in range(3) for m in _memories(f"n{i}", 20, prefix=f"p{i}")]
    plan = propose(tree, mems, 19000, Rules(split_over=40, budget=2))
    assert len([a for a in plan.actions if a["op"] == "split"]) == 2


SEGMENTS = st.sampled_from(["a", "b", "c", "ops", "tea", "work", "x1"])


@st.composite
def trees_and_memories(draw):
    rng = random.Random(draw(st.integers(0, 10_000)))
    nodes: dict[str, list] = {}
    for _ in range(draw(st.integers(1, 40))):
        parent = rng.choice([""] + sorted(nodes)) if nodes else ""
        if parent.count("/") >= 3:
            continue
        path = f"{parent}/{draw(SEGMENTS)}" if parent else draw(SEGMENTS)
        kids = [p for p in nodes if p.rsplit("/", 1)[0] == parent or ("/" not in p and not parent)]
        if path in nodes or len(nodes) >= 50 or len(kids) >= 10:
            continue
        nodes[path] = [rng.choice(["", "", "desc"]), rng.randint(19000, 19100)]
    words = ["deploy", "server", "invoice", "kettle", "tea", "garden", "python", "alice", "budget", "rust"]
    mems = []
    cats = sorted(nodes) + ["not/in/tree"]
    for i in range(draw(st.integers(0, 300))):
        cat = rng.choice(cats[:3]) if rng.random() < 0.5 else rng.choice(cats)
        mems.append(Memory(f"m{i}", cat, " ".join(rng.choices(words, k=rng.randint(1, 6)))))
    return {"nodes": nodes}, mems


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(trees_and_memories(), st.integers(4, 60), st.integers(1, 5), st.integers(0, 6))
def test_any_tree_stays_within_every_limit_and_loses_no_memory(case, split_over, sparse_under, budget):
    tree, mems = case
    assert within_limits(tree)
    plan = propose(tree, mems, 19100, Rules(split_over=split_over, sparse_under=sparse_under, budget=budget))
    assert within_limits(plan.tree)
    assert len([a for a in plan.actions if a["op"] != "describe"]) <= budget
    after = {m.id: plan.moves.get(m.id, (m.category, m.category))[1] for m in mems}
    assert set(after) == {m.id for m in mems}  # none lost
    for m in mems:
        if m.category in tree["nodes"]:
            assert after[m.id] in plan.tree["nodes"], (m, after[m.id])  # none left in a missing category
        else:
            assert after[m.id] == m.category  # filed without a node before: left alone
    for node, (desc, _) in plan.tree["nodes"].items():
        if not tree["nodes"].get(node, ["", 0])[0]:
            assert len(desc.encode()) < 30


def _setup(config, archive, clock):
    mem = AgentMemory(config, AGENT, archive=archive, clock=clock)
    mem.change(lambda state, now: state["tree"]["nodes"].update(
        {"work": ["Work", day_of(now)], "work/misc": ["", day_of(now)]}), "test")
    cold = [{"id": m.id, "text": m.text, "category": m.category, "created_at": clock() - 50 * DAY,
             "importance": 0.3} for m in _memories("work/misc", 15)]
    archive.put(AGENT, cold)
    for i, (word, text) in enumerate(sorted(TOPICS.items())):  # a few in warm too
        mem.store(f"{text} again {i}", "work/misc", 0.6)
    return mem


def _categories(mem, archive) -> dict[str, str]:
    out = {e["id"]: e["category"] for e in archive.iter_entries(AGENT)}
    out.update({e["id"]: e["category"] for e in mem.read_state()["warm"]["entries"]})
    return out


def test_apply_moves_warm_and_cold_with_their_nodes_and_undo_puts_them_back(config, archive):
    clock = Clock()
    mem = _setup(config, archive, clock)
    mem.config = config.with_(sections={"knowledge": dict(vars(config.knowledge), split_over=20)})
    before, tree_before = _categories(mem, archive), mem.read_state()["tree"]
    dry = restructure(mem, dry_run=True)
    assert dry["dry_run"] and dry["changes"] >= 1 and _categories(mem, archive) == before
    assert not (mem.dir / FILE).exists()
    done = restructure(mem)
    after = _categories(mem, archive)
    assert done["tree"] == dry["tree"] and mem.read_state()["tree"] == done["tree"]
    assert set(after) == set(before) and all(c in done["tree"]["nodes"] for c in after.values())
    assert len({c for c in after.values() if c.startswith("work/misc/")}) == 3
    logged = [r for r in mem.knowledge_rows() if r["kind"] == "restructure"]
    assert [r["action"] for r in logged] == [a["op"] for a in done["actions"]]
    assert json.loads((mem.dir / FILE).read_text())["state"] == "done"
    new_node = sorted(c for c in done["tree"]["nodes"] if c.startswith("work/misc/"))[0]
    mem.store("kettle whistled for the oolong tea", new_node, 0.6)  # filed under a new node since
    mem.store("a fact in a node made after it", new_node + "/later", 0.6)
    out = undo(mem)
    assert mem.read_state()["tree"] == tree_before
    back = _categories(mem, archive)
    assert all(back[i] == c for i, c in before.items()) and set(back.values()) == {"work/misc"}
    assert restructure(mem, dry_run=True)["changes"] >= 1
    with pytest.raises(UsageError):
        undo(mem)


def test_a_half_applied_restructure_is_finished_by_the_next_run(config, archive):
    clock = Clock()
    mem = _setup(config, archive, clock)
    mem.config = config.with_(sections={"knowledge": dict(vars(config.knowledge), split_over=20)})
    plan = restructure(mem, dry_run=True)
    snap = {"run": "r1", "at": int(clock()), "state": "applying", "tree_before": mem.read_state()["tree"],
            "tree_after": plan["tree"], "actions": plan["actions"],
            "moves": {}}
    # what a killed run leaves: the snapshot written, only some cold rows moved
    from memoryd.tiers.knowledge.restructure import gather, rules_of
    from memoryd.tiers.knowledge.restructure_rules import propose as rule_plan
    state = mem.read_state()
    full = rule_plan(state["tree"], *gather(mem, state, rules_of(mem))[:1], day_of(clock()), rules_of(mem),
                     gather(mem, state, rules_of(mem))[1])
    snap["moves"] = {k: list(v) for k, v in full.moves.items()}
    atomic_write_json(mem.dir / FILE, snap)
    first = sorted(snap["moves"])[0]
    row = archive.get(AGENT, [first])
    if row:
        archive.put(AGENT, [dict(row[0], category=snap["moves"][first][1])])
    restructure(mem)
    after = _categories(mem, archive)
    assert all(after[i] == to for i, (_, to) in snap["moves"].items())
    assert len([r for r in mem.knowledge_rows() if r["kind"] == "restructure"]) == len(plan["actions"])


def test_node_names_from_the_llm_and_from_rules_when_it_fails(config, archive):
    from http.server import BaseHTTPRequestHandler

    from llm_server import serving
    from memoryd.sync.llm import HttpLLM

    replies: list[bytes] = []

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_POST(self):
            self.rfile.read(int(self.headers["Content-Length"]))
            body = replies.pop(0)
            self.send_response(200 if body else 500)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    clock = Clock()
    mem = _setup(config, archive, clock)
    mem.config = config.with_(sections={"knowledge": dict(vars(config.knowledge), split_over=20)})
    children = [c for c in restructure(mem, dry_run=True)["tree"]["nodes"] if c.startswith("work/misc/")]
    names = {c: f"Topic {i}" for i, c in enumerate(sorted(children))}
    names[sorted(children)[0]] = "far too long a description for any tree node"  # refused: > 29 bytes
    replies[:] = [json.dumps({"text": json.dumps(names)}).encode(), b""]
    with serving(Handler) as base:
        done = restructure(mem, llm=HttpLLM(base + "/complete"))
    nodes = done["tree"]["nodes"]
    assert [nodes[c][0] for c in sorted(children)[1:]] == [f"Topic {i}" for i in range(1, len(children))]
    assert nodes[sorted(children)[0]][0] and "far too long" not in nodes[sorted(children)[0]][0]
    undo(mem)
    with serving(Handler) as base:
        again = restructure(mem, llm=HttpLLM(base + "/complete"))  # the endpoint fails: rules name them
    assert all(again["tree"]["nodes"][c][0] for c in children)
    assert any("not the LLM" in w for w in mem.warnings)
