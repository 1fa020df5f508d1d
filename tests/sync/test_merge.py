"""Merge of critical state: lattice laws (hypothesis), per-field wins, tombstones, limits, determinism."""
from __future__ import annotations

import copy
import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from memoryd.sync.merge.hlc import HLC, make_stamp, parse_stamp
from memoryd.sync.merge.replica import (
    compact, empty_replica, join, materialize, max_stamp, merge, replica_hash, restamp,
)

EMPTY_STATE = materialize(empty_replica())


class Device:
    """One simulated device: a state edited locally and a replica stamped by its own HLC."""

    def __init__(self, name: str, tick: list[int]) -> None:
        self.hlc = HLC(name, clock=lambda: tick[0] / 1000.0)
        self.rep = empty_replica()
        self.state = copy.deepcopy(EMPTY_STATE)

    def commit(self) -> None:
        self.rep = restamp(self.rep, self.state, self.hlc.now())

    def pull(self, other: "Device") -> None:
        self.commit()
        self.hlc.observe(max_stamp(other.rep))
        self.rep = join(self.rep, other.rep)
        self.state = materialize(self.rep)


def _find(items: list, ident: str) -> dict | None:
    return next((x for x in items if x["id"] == ident), None)


def apply_op(state: dict, op: str, item: int, value: int) -> None:
    hot, warm, nodes = state["hot"], state["warm"]["entries"], state["tree"]["nodes"]
    lessons, tasks = hot["critical_lessons"], hot["active_context"]["tasks"]
    if op == "identity":
        hot["identity"][f"k{item}"] = f"v{value}"
    elif op == "unidentity":
        hot["identity"].pop(f"k{item}", None)
    elif op == "lesson" and not _find(lessons, f"L{item}"):
        lessons.append({"id": f"L{item}", "text": f"lesson {item}", "category": "c",
                        "importance": value / 10, "timestamp": value})
    elif op == "lesson_edit" and _find(lessons, f"L{item}"):
        _find(lessons, f"L{item}")["importance"] = value / 10
    elif op == "unlesson":
        lessons[:] = [x for x in lessons if x["id"] != f"L{item}"]
    elif op == "task" and not _find(tasks, f"T{item}"):
        tasks.append({"id": f"T{item}", "text": f"task {item}", "status": "pending", "timestamp": item})
    elif op == "task_status" and _find(tasks, f"T{item}"):
        _find(tasks, f"T{item}")["status"] = f"s{value}"
    elif op == "warm" and not _find(warm, f"W{item}"):
        warm.append({"id": f"W{item}", "text": f"fact {item}", "category": "a/b", "importance": 0.5,
                     "created_at": 100 + item, "access_count": 0, "last_access": 100 + item,
                     "score": 0.5, "tier": "warm", "metadata": {"n": value}})
    elif op == "access" and _find(warm, f"W{item}"):
        entry = _find(warm, f"W{item}")
        entry["access_count"] += 1
        entry["last_access"] += value
    elif op == "unwarm":
        warm[:] = [x for x in warm if x["id"] != f"W{item}"]
    elif op == "node":
        nodes[f"p{item}"] = [f"desc {value}", value]
    elif op == "unnode":
        nodes.pop(f"p{item}", None)


OPS = ["identity", "unidentity", "lesson", "lesson_edit", "unlesson", "task", "task_status",
       "warm", "access", "unwarm", "node", "unnode", "sync"]
steps = st.lists(st.tuples(st.integers(0, 2), st.sampled_from(OPS), st.integers(0, 3), st.integers(0, 9)),
                 max_size=40)


def simulate(history: list[tuple[int, str, int, int]]) -> list[Device]:
    tick = [1_000_000]
    devices = [Device(f"d{i}", tick) for i in range(3)]
    for dev, op, item, value in history:
        tick[0] += value % 3  # clocks sometimes stand still: the HLC counter must carry order
        if op == "sync":
            devices[dev].pull(devices[item % 3])
        else:
            apply_op(devices[dev].state, op, item, value)
            devices[dev].commit()
    for d in devices:
        d.commit()
    return devices


@settings(max_examples=150, deadline=None)
@given(steps)
def test_join_is_commutative_associative_idempotent(history):
    a, b, c = (d.rep for d in simulate(history))
    assert join(a, b) == join(b, a)
    assert join(join(a, b), c) == join(a, join(b, c))
    norm = join(a, empty_replica())
    assert join(a, a) == norm
    assert join(norm, norm) == norm
    assert materialize(norm) == materialize(a)


@settings(max_examples=100, deadline=None)
@given(steps)
def test_gossip_converges_to_identical_state(history):
    devices = simulate(history)
    for x, y in itertools.permutations(devices, 2):
        x.pull(y)
    for x, y in itertools.permutations(devices, 2):
        x.pull(y)
    states = [d.state for d in devices]
    assert states[0] == states[1] == states[2]
    assert len({replica_hash(d.rep) for d in devices}) == 1


@settings(max_examples=60, deadline=None)
@given(steps)
def test_merge_with_limits_is_deterministic(history):
    from memoryd.tiers.memory.limits import enforce_all

    a, b, _ = (d.rep for d in simulate(history))
    ra, va, ea = merge(a, b, enforce_all)
    rb, vb, eb = merge(b, a, enforce_all)
    assert ra == rb and va == vb and ea == eb


def test_round_trip_keeps_state():
    tick = [5000]
    d = Device("d0", tick)
    for i, op in enumerate(["identity", "lesson", "task", "warm", "node", "access"]):
        apply_op(d.state, op, i % 2, 3)
    d.commit()
    assert materialize(d.rep) == materialize(join(d.rep, empty_replica()))
    got = materialize(d.rep)
    assert got["hot"]["identity"] == d.state["hot"]["identity"]
    assert got["warm"]["entries"] == d.state["warm"]["entries"]
    assert got["tree"] == d.state["tree"]


def test_unchanged_state_keeps_the_same_replica_object():
    d = Device("d0", [1000])
    apply_op(d.state, "warm", 1, 1)
    d.commit()
    before = d.rep
    assert restamp(before, copy.deepcopy(d.state), d.hlc.now()) is before


def _pair() -> tuple[Device, Device, list[int]]:
    tick = [10_000]
    a, b = Device("a", tick), Device("b", tick)
    return a, b, tick


def test_concurrent_edits_of_different_fields_both_survive():
    a, b, tick = _pair()
    a.state["hot"]["active_context"]["projects"].append(
        {"id": "P1", "name": "evo", "description": "old", "status": "active", "updated_at": 1})
    a.commit()
    b.pull(a)
    tick[0] += 5
    _find(a.state["hot"]["active_context"]["projects"], "P1")["status"] = "done"
    a.commit()
    tick[0] += 5
    _find(b.state["hot"]["active_context"]["projects"], "P1")["description"] = "new"
    b.commit()
    a.pull(b)
    b.pull(a)
    project = _find(a.state["hot"]["active_context"]["projects"], "P1")
    assert project["status"] == "done" and project["description"] == "new"
    assert a.state == b.state


def test_newest_write_wins_and_device_breaks_ties():
    a, b, tick = _pair()
    a.state["hot"]["identity"]["name"] = "A"
    b.state["hot"]["identity"]["name"] = "B"
    a.commit()
    b.commit()  # same wall clock: the device id decides, the same way everywhere
    assert parse_stamp(max_stamp(a.rep))[0] == parse_stamp(max_stamp(b.rep))[0]
    assert materialize(join(a.rep, b.rep))["hot"]["identity"]["name"] == "B"
    tick[0] += 1
    a.state["hot"]["identity"]["name"] = "A2"
    a.commit()
    assert materialize(join(a.rep, b.rep))["hot"]["identity"]["name"] == "A2"


def test_forget_is_not_resurrected_by_an_older_or_concurrent_edit():
    a, b, tick = _pair()
    apply_op(a.state, "warm", 1, 0)
    a.commit()
    b.pull(a)
    tick[0] += 10
    apply_op(b.state, "access", 1, 5)      # b keeps using it, unaware of the forget
    b.state["warm"]["entries"][0]["importance"] = 0.9
    b.commit()
    tick[0] += 10
    apply_op(a.state, "unwarm", 1, 0)      # a forgets it after b's edit
    a.commit()
    for x, y in ((a, b), (b, a), (a, b)):
        x.pull(y)
    assert a.state["warm"]["entries"] == [] and b.state["warm"]["entries"] == []


def test_recreating_after_forget_revives_the_whole_item():
    a, b, tick = _pair()
    apply_op(a.state, "lesson", 2, 4)
    a.commit()
    b.pull(a)
    tick[0] += 1
    apply_op(a.state, "unlesson", 2, 0)
    a.commit()
    b.pull(a)
    assert b.state["hot"]["critical_lessons"] == []
    tick[0] += 1
    apply_op(b.state, "lesson", 2, 7)
    b.commit()
    a.pull(b)
    lesson = _find(a.state["hot"]["critical_lessons"], "L2")
    assert lesson == {"id": "L2", "text": "lesson 2", "category": "c", "importance": 0.7, "timestamp": 7}


def test_access_count_merges_by_max_and_is_not_stamped():
    a, b, tick = _pair()
    apply_op(a.state, "warm", 0, 0)
    a.commit()
    b.pull(a)
    for _ in range(3):
        apply_op(a.state, "access", 0, 1)
    a.commit()
    apply_op(b.state, "access", 0, 1)
    b.commit()
    assert all(f not in b.rep["stamps"]["wm:W0"] for f in ("access_count", "score", "tier"))
    a.pull(b)
    assert a.state["warm"]["entries"][0]["access_count"] == 3


def test_compact_drops_oldest_dead_tombstones_only():
    a, _, tick = _pair()
    for i in range(4):
        apply_op(a.state, "node", i, i)
        a.commit()
        tick[0] += 1
    for i in range(3):
        apply_op(a.state, "unnode", i, 0)
        a.commit()
        tick[0] += 1
    small = compact(a.rep, max_tombs=1)
    assert list(small["tombs"]) == ["tr:p2"]
    assert materialize(small) == materialize(a.rep)
    assert compact(a.rep, max_tombs=10) is a.rep


def test_stamps_sort_in_time_order():
    assert make_stamp(999, 0, "z") < make_stamp(1000, 0, "a") < make_stamp(1000, 1, "a") < make_stamp(1000, 1, "b")
    clock = HLC("x", clock=lambda: 1.0)
    s1, s2 = clock.now(), clock.now()
    assert s1 < s2
    clock.observe(make_stamp(5000, 3, "y"))
    assert clock.now() > make_stamp(5000, 3, "y")


_stamps = st.sampled_from([make_stamp(w, c, d) for w in (1, 2, 3) for c in (0, 1) for d in "xy"])
_fields = st.sampled_from(["@", "v", "text", "status"])
_keys = st.sampled_from(["id:a", "id:b", "tk:T1", "wm:W1", "tr:p"])


@st.composite
def raw_replicas(draw):
    """Arbitrary (not history-generated) replicas: the laws must hold for any of them."""
    rep = empty_replica()
    for key in draw(st.sets(_keys, max_size=4)):
        regs = draw(st.dictionaries(_fields, st.tuples(_stamps, st.one_of(st.none(), st.integers(0, 3))), max_size=3))
        if regs:
            rep["stamps"][key] = {f: s for f, (s, _) in regs.items()}
            rep["items"][key] = {f: v for f, (_, v) in regs.items() if v is not None and f != "@"}
        if draw(st.booleans()):
            rep["tombs"][key] = draw(_stamps)
        if draw(st.booleans()):
            rep["maxf"][key] = {"access_count": draw(st.integers(0, 5)), "tier": draw(st.sampled_from(["hot", "warm"]))}
    return join(rep, empty_replica())


@settings(max_examples=120, deadline=None)
@given(raw_replicas(), raw_replicas(), raw_replicas())
def test_lattice_laws_hold_for_arbitrary_replicas(a, b, c):
    assert join(a, b) == join(b, a)
    assert join(join(a, b), c) == join(a, join(b, c))
    assert join(a, a) == a
    ab = join(a, b)
    assert join(ab, a) == ab  # absorbing what one already has changes nothing
    assert materialize(join(a, b)) == materialize(join(b, a))
