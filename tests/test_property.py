"""Property test: after any sequence of store / hot / tree / consolidate steps every limit holds and
every acknowledged store is findable (warm, cold queue, cold archive) or recorded in the eviction log."""
from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, event, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from memoryd.tiers import hot as H
from memoryd.tiers import tree as T
from memoryd.tiers.agent import AgentMemory
from memoryd.tiers.atomic import dumps
from memoryd.tiers.config import load_config
from memoryd.tiers.consolidate import consolidate
from memoryd.tiers.errors import UsageError
from memoryd.tiers.model import DAY

AGENT = "prop"
WORDS = ["duck", "北京", "烤鸭", "server", "deploy", "tea", "alice", "会议", "docs", "bug", "python", "rust"]
SEGMENTS = ["a", "b", "c", "projects", "people", "食物", "x1", "y2", "z3", "w4", "v5", "u6", "t7", "s8"]

texts = st.builds(lambda ws, n, pad: " ".join(ws) + f" #{n} " + "p" * pad,
                  st.lists(st.sampled_from(WORDS), min_size=1, max_size=5), st.integers(0, 40),
                  st.sampled_from([0, 0, 50, 400, 1500]))
categories = st.lists(st.sampled_from(SEGMENTS), min_size=1, max_size=4).map("/".join)
importances = st.one_of(st.none(), st.floats(0.0, 1.0, allow_nan=False))


class Clock:
    def __init__(self) -> None:
        self.t = 1_700_000_000.0

    def __call__(self) -> float:
        return self.t


class TieredMemory(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        from memoryd.sync.cold import open_archive

        self.root = Path(tempfile.mkdtemp(prefix="memoryd-prop-"))
        self.config = load_config({"MEMORYD_HOME": str(self.root / "home")})
        self.archive = open_archive(self.config)
        self.clock = Clock()
        self.mem = AgentMemory(self.config, AGENT, archive=self.archive, clock=self.clock)
        self.acked: set[str] = set()

    def teardown(self) -> None:
        self.archive.close()
        shutil.rmtree(self.root, ignore_errors=True)

    # --- steps ------------------------------------------------------------------------------
    @rule(text=texts, category=categories, importance=importances)
    def store(self, text: str, category: str, importance: float | None) -> None:
        self.clock.t += 60
        self.acked.add(self.mem.store(text, category, importance)["id"])

    @rule(text=texts, category=categories)
    def store_again(self, text: str, category: str) -> None:  # reinforcement path
        self.clock.t += 1
        self.acked.add(self.mem.store(text, category, 0.5)["id"])
        self.acked.add(self.mem.store(text, category, 0.6)["id"])

    @rule(n=st.integers(5, 40), category=categories, importance=st.floats(0.0, 1.0), seed=st.integers(0, 999))
    def bulk_write(self, n: int, category: str, importance: float, seed: int) -> None:
        """Many facts at once through write_state (the merge/restore path): drives warm to its cap."""
        from memoryd.tiers import warm as W

        self.clock.t += 10
        state = self.mem.read_state()
        for i in range(n):
            entry = W.new_entry(f"bulk {seed} {i} " + WORDS[i % len(WORDS)] + " b" * 600, category,
                                round((importance + i / n) % 1.0, 3), self.clock.t - i * DAY)
            W.add_or_reinforce(state["warm"], entry, self.clock.t)
            self.acked.add(entry["id"])
        self.mem.write_state(state, "bulk")

    @rule(kind=st.sampled_from(["event", "lesson", "task", "identity", "profile", "project"]), text=texts,
          importance=st.floats(0.0, 1.0), n=st.integers(1, 8))
    def hot_change(self, kind: str, text: str, importance: float, n: int) -> None:
        value = text[:190]

        def step(state: dict, now: float) -> None:
            for i in range(n):
                v = f"{i} {value}"[:190]
                if kind == "event":
                    H.add_event(state["hot"], v, now + i)
                elif kind == "lesson":
                    H.add_lesson(state["hot"], v, "lessons", importance, now + i)
                elif kind == "task":
                    H.upsert_task(state["hot"], v, None, now + i)
                elif kind == "identity":
                    H.set_identity(state["hot"], f"key{i}", v)
                elif kind == "profile":
                    H.set_profile(state["hot"], f"pref{i}", v)
                else:
                    H.upsert_project(state["hot"], f"proj {i}", v, "active", now)

        self.clock.t += 30
        self.mem.change(step, "hot")

    @rule(path=categories, desc=st.text(max_size=60))
    def tree_add(self, path: str, desc: str) -> None:
        try:
            self.mem.change(lambda s, now: T.add_node(s["tree"], path, desc, now), "tree add")
        except UsageError:
            pass  # LimitError (or a description the index refuses): refused, nothing written

    @rule(pick=st.integers(0, 1000))
    def tree_remove(self, pick: int) -> None:
        nodes = sorted(self.mem.read_state()["tree"]["nodes"])
        if not nodes:
            return
        path = nodes[pick % len(nodes)]
        try:
            self.mem.change(lambda s, now: T.remove_node(s["tree"], path, self.mem.used_categories(s)),
                            "tree remove")
        except UsageError:
            pass  # has children or memories

    @rule(days=st.sampled_from([0, 0.5, 1, 10, 31, 45, 61, 400]),
          mode=st.sampled_from(["quick", "daily", "monthly", "full"]))
    def consolidate(self, days: float, mode: str) -> None:
        self.clock.t += days * DAY
        consolidate(self.mem, mode)

    @precondition(lambda self: bool(self.acked))
    @rule(query=st.sampled_from(WORDS))
    def retrieve(self, query: str) -> None:
        for r in self.mem.retrieve(query, limit=5):
            assert r["tier"] in ("hot", "warm", "cold") and r["reason"]

    # --- what must always hold --------------------------------------------------------------
    @invariant()
    def limits_hold(self) -> None:
        d = self.mem.dir
        if not (d / "hot-memory-state.json").exists():
            return  # nothing written yet
        hot = (d / "hot-memory-state.json").read_bytes()
        warm = (d / "warm-memory.json").read_bytes()
        tree_raw = (d / "memory-tree.json").read_bytes()
        assert len(dumps(json.loads(hot))) <= 5120
        assert len(dumps(json.loads(warm))) <= 51200
        tree = json.loads(tree_raw)
        assert len(dumps(tree)) <= 2048
        nodes = tree["nodes"]
        assert len(nodes) <= 50
        kids: dict[str, int] = {}
        for p in nodes:
            assert p.count("/") < 4
            assert all(a in nodes for a in T.ancestors(p)[:-1]), p
            kids[T.parent_of(p)] = kids.get(T.parent_of(p), 0) + 1
        assert max(kids.values(), default=0) <= 10
        assert not [p.name for p in d.iterdir() if ".tmp-" in p.name]
        event(f"warm near cap: {len(warm) > 45000}")
        event(f"hot near cap: {len(hot) > 4500}")

    @invariant()
    def nothing_acknowledged_is_lost(self) -> None:
        if not self.acked:
            return
        state = self.mem.read_state()
        found = {e["id"] for e in state["warm"]["entries"]} | {e["id"] for e in self.mem.pending_cold()}
        missing = self.acked - found
        if missing:
            found |= {e["id"] for e in self.archive.get(AGENT, sorted(missing))}
        missing = self.acked - found
        if missing:
            logged = {r["id"] for r in self.mem.evictions.rows()}
            assert not (missing - logged), f"lost without a trace: {sorted(missing - logged)}"


TieredMemory.TestCase.settings = settings(max_examples=20, stateful_step_count=15, deadline=None,
                                          suppress_health_check=[HealthCheck.too_slow])
test_tiered_memory = TieredMemory.TestCase
