"""Property test: after any sequence of store / hot / tree / consolidate steps every limit holds and
every acknowledged store is findable (warm, cold queue, cold archive) or recorded in the eviction log."""
from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from memoryd.tiers.memory import hot as H
from memoryd.tiers.memory import tree as T
from memhelp import AgentMemory
from memoryd.tiers.base.atomic import dumps
from memoryd.tiers.base.config import load_config
from memoryd.tiers.memory.consolidate import consolidate
from memoryd.tiers.base.errors import UsageError
from memoryd.tiers.memory.model import DAY

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
        from memoryd.tiers.cold.source import open_index as open_archive

        self.root = Path(tempfile.mkdtemp(prefix="memoryd-prop-"))
        # tier invariants, not ranking: keyword mode (hybrid embeds every random text: 14 min instead of seconds)
        self.config = load_config({"MEMORYD_HOME": str(self.root / "home"), "MEMORYD_RETRIEVAL_MODE": "keyword"})
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
        from memoryd.tiers.memory import warm as W

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
        warm_ids = [e["id"] for e in json.loads(warm)["entries"]]
        assert len(warm_ids) == len(set(warm_ids)), "duplicate warm ids"
        hot_obj = json.loads(hot)
        for items in (hot_obj["critical_lessons"], *hot_obj["active_context"].values()):
            ids = [x["id"] for x in items]
            assert len(ids) == len(set(ids)), f"duplicate hot ids {ids}"
        event(f"warm near cap: {len(warm) > 45000}")
        event(f"hot near cap: {len(hot) > 4500}")

    @invariant()
    def nothing_acknowledged_is_lost(self) -> None:
        if not self.acked:
            return
        state = self.mem.read_state()
        found = {e["id"] for e in state["warm"]["entries"]} | {e["id"] for e in self.mem.archive.iter_entries(self.mem.agent_id)}
        missing = self.acked - found
        if missing:
            found |= {e["id"] for e in self.archive.get(AGENT, sorted(missing))}
        missing = self.acked - found
        if missing:
            rows = self.mem.eviction_rows()  # a row of one memory has its id; a batch's row (an import) its ids
            logged = {r["id"] for r in rows if "id" in r} | {i for r in rows for i in r.get("ids") or []}
            assert not (missing - logged), f"lost without a trace: {sorted(missing - logged)}"


TieredMemory.TestCase.settings = settings(max_examples=16, stateful_step_count=15, deadline=None,
                                          suppress_health_check=[HealthCheck.too_slow])
test_tiered_memory = TieredMemory.TestCase


# --- the pure limit step on arbitrary states ----------------------------------------------------

def hid(*parts: object) -> str:
    from memoryd.tiers.memory.model import content_id

    return content_id(*map(str, parts))


lesson = st.builds(lambda t, imp, ts: {"id": hid(t, ts), "text": t, "category": "l",
                                       "importance": imp, "timestamp": ts},
                   st.text(min_size=1, max_size=300), st.floats(0, 1), st.integers(0, 10**6))
event_item = st.builds(lambda t, ts: {"id": hid(t, ts, "e"), "text": t, "timestamp": ts},
                       st.text(min_size=1, max_size=200), st.integers(0, 10**6))
task_item = st.builds(lambda t, s, ts: {"id": hid(t, "t"), "text": t, "status": s,
                                        "timestamp": ts},
                      st.text(min_size=1, max_size=200), st.sampled_from(["pending", "done", "blocked"]),
                      st.integers(0, 10**6))
warm_item = st.builds(lambda t, c, imp, age, acc: W_new(t, c, imp, age, acc), st.text(min_size=1, max_size=900),
                      categories, st.floats(0, 1), st.integers(0, 400), st.integers(0, 50))
states = st.fixed_dictionaries({
    "hot": st.fixed_dictionaries({
        "identity": st.dictionaries(st.sampled_from(["name", "role", "home", "lang"]), st.text(max_size=200)),
        "owner_profile": st.dictionaries(st.sampled_from(["city", "tz", "food"]), st.text(max_size=200)),
        "active_context": st.fixed_dictionaries({"projects": st.just([]),
                                                 "events": st.lists(event_item, max_size=30, unique_by=lambda x: x["id"]),
                                                 "tasks": st.lists(task_item, max_size=30, unique_by=lambda x: x["id"])}),
        "critical_lessons": st.lists(lesson, max_size=40, unique_by=lambda x: x["id"])}),
    "warm": st.builds(lambda es: {"entries": es}, st.lists(warm_item, max_size=150, unique_by=lambda e: e["id"])),
    "tree": st.builds(lambda ps: {"nodes": {p: ["", i] for i, p in enumerate(ps)}},
                      st.lists(categories, max_size=80, unique=True)),
})
NOW = 1_700_000_000.0


def W_new(text: str, category: str, importance: float, age_days: int, access: int) -> dict:
    from memoryd.tiers.memory import warm as W

    e = W.new_entry(text, category, importance, NOW - age_days * DAY)
    e["access_count"] = access
    return e


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(state=states)
def test_enforce_all_limits_determinism_and_accounting(state: dict) -> None:
    import copy

    from memoryd.tiers.memory.limits import enforce_all

    before = copy.deepcopy(state)
    out, evictions = enforce_all(state, NOW)
    assert state == before
    assert len(dumps(out["hot"])) <= 5120 and len(dumps(out["warm"])) <= 51200
    nodes = out["tree"]["nodes"]
    assert len(nodes) <= 50 and len(dumps(out["tree"])) <= 2048
    assert all(p.count("/") < 4 and all(a in nodes for a in T.ancestors(p)[:-1]) for p in nodes)
    again, ev2 = enforce_all(copy.deepcopy(before), NOW)
    assert dumps(again) == dumps(out) and dumps([{k: v for k, v in e.items()} for e in ev2]) == dumps(evictions)
    # nothing vanishes without a row: kept ∪ evicted = input, for warm entries and hot items
    kept = {e["id"] for e in out["warm"]["entries"]}
    gone = {e["id"] for e in evictions if e["tier"] == "warm"}
    assert kept | gone == {e["id"] for e in before["warm"]["entries"]} and not kept & gone
    assert all("entry" in e for e in evictions if e["tier"] == "warm")
    for key in ("events", "tasks"):
        kept_h = {x["id"] for x in out["hot"]["active_context"][key]}
        gone_h = {e["id"] for e in evictions if e["tier"] == "hot" and e["kind"] == key[:-1]}
        assert kept_h | gone_h == {x["id"] for x in before["hot"]["active_context"][key]}
    kept_l = {x["id"] for x in out["hot"]["critical_lessons"]}
    gone_l = {e["id"] for e in evictions if e["tier"] == "hot" and e["kind"] == "lesson"}
    assert kept_l | gone_l == {x["id"] for x in before["hot"]["critical_lessons"]}
