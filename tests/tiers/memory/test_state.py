"""Per-agent state files: init, permissions, quarantine + .bak fallback, limits on write, determinism."""
from __future__ import annotations

import copy
import json
import logging
import os
import stat
from pathlib import Path
from typing import Any, Callable

import pytest

from memoryd.tiers.memory import hot as H
from memoryd.tiers.memory import tree as T
from memoryd.tiers.memory import warm as W
from memhelp import AgentMemory
from memoryd.tiers.base.atomic import dumps
from memoryd.tiers.base.errors import MemorydError, StoreError, UsageError
from memoryd.tiers.memory.limits import enforce_all
from memoryd.tiers.memory.model import HOT_MAX_BYTES, WARM_MAX_BYTES
from memoryd.tiers.memory.state import FILES
from clock import T0, Clock

pytestmark = pytest.mark.usefixtures("keyword_mode")  # the subject is tier files and limits, not ranking

STATE_NAMES = ("hot-memory-state.json", "warm-memory.json", "memory-tree.json")


def _mode(p: Path) -> int:
    return stat.S_IMODE(p.stat().st_mode)


def test_init_creates_empty_state_private(config) -> None:
    mem = AgentMemory(config, "fresh", clock=Clock())
    mem.init()
    assert mem.dir == config.home / "agents" / "fresh"
    state = mem.read_state()
    assert state == {"hot": H.empty_hot(), "warm": W.empty_warm(), "tree": T.empty_tree()}
    assert _mode(mem.dir) == 0o700
    for name in STATE_NAMES + ("MEMORY.md",):
        assert _mode(mem.dir / name) == 0o600, name
    mem.init()  # idempotent
    assert mem.read_state() == state


def test_state_dirs_not_readable_by_others(config) -> None:
    AgentMemory(config, "perm", clock=Clock()).store("secret-ish fact", "c", importance=0.5)
    for d in (config.home, config.home / "agents", config.home / "agents" / "perm"):
        assert _mode(d) & 0o077 == 0, f"{d} is {oct(_mode(d))}"
    for f in (config.home / "agents" / "perm").iterdir():
        assert _mode(f) & 0o077 == 0, f"{f} is {oct(_mode(f))}"


@pytest.mark.parametrize("bad", ["../x", "", "a b", "x" * 65, "-x"])
def test_agent_memory_refuses_bad_agent_id(config, bad: str) -> None:
    with pytest.raises(UsageError):
        AgentMemory(config, bad)
    assert not config.home.exists()


def test_corrupt_file_quarantined_and_restored_from_bak(config, caplog) -> None:
    mem = AgentMemory(config, "corrupt", clock=Clock())
    first = mem.store("First fact", "c", importance=0.5)
    mem.store("Second fact", "c", importance=0.5)
    warm_path = mem.dir / "warm-memory.json"
    warm_path.write_bytes(b'{"entries": [tor')
    with caplog.at_level(logging.WARNING, logger="memoryd.tiers"):
        state = mem.read_state()
    assert [e["id"] for e in state["warm"]["entries"]] == [first["id"]]  # the last good copy
    quarantined = [p for p in mem.dir.iterdir() if p.name.startswith("warm-memory.json.corrupt-")]
    assert len(quarantined) == 1 and quarantined[0].read_bytes() == b'{"entries": [tor'
    text = caplog.text
    assert "corrupt" in text and "last good copy" in text


def test_corrupt_without_bak_rebuilds_empty(config) -> None:
    mem = AgentMemory(config, "nobak", clock=Clock())
    mem.init()
    (mem.dir / "memory-tree.json").write_text('{"nodes": {"a": "not a pair"}}')
    (mem.dir / "memory-tree.json.bak").unlink(missing_ok=True)
    assert mem.read_state()["tree"] == T.empty_tree()
    assert any(p.name.startswith("memory-tree.json.corrupt-") for p in mem.dir.iterdir())


def test_corrupt_file_and_corrupt_bak(config) -> None:
    mem = AgentMemory(config, "bothbad", clock=Clock())
    mem.store("one", "c", importance=0.5)
    mem.store("two", "c", importance=0.5)
    (mem.dir / "warm-memory.json").write_text("garbage")
    (mem.dir / "warm-memory.json.bak").write_text("more garbage")
    assert mem.read_state()["warm"] == W.empty_warm()
    names = [p.name for p in mem.dir.iterdir()]
    assert sum(n.startswith("warm-memory.json.corrupt-") for n in names) == 1
    assert sum(n.startswith("warm-memory.json.bak.corrupt-") for n in names) == 1


def test_unreadable_state_file_is_a_store_error(config) -> None:
    mem = AgentMemory(config, "unread", clock=Clock())
    mem.init()
    hot = mem.dir / "hot-memory-state.json"
    hot.unlink()
    hot.mkdir()  # reading it fails with EISDIR: not the caller's fault → exit 1
    with pytest.raises(StoreError) as err:
        mem.read_state()
    assert err.value.exit_code == 1 and "\n" not in err.value.message


def _ok_or_memoryd_error(fn: Callable[[], Any]) -> None:
    try:
        fn()
    except MemorydError:
        pass  # a clean, one-line error is fine; a KeyError/TypeError traceback is not


def _malformed(mem: AgentMemory, name: str, obj: Any) -> None:
    (mem.dir / name).write_text(json.dumps(obj))
    (mem.dir / (name + ".bak")).unlink(missing_ok=True)


def test_parseable_but_malformed_warm_entry(config) -> None:
    mem = AgentMemory(config, "malwarm", clock=Clock())
    mem.store("hello world fact", "a", importance=0.5)
    warm = mem.read_state()["warm"]
    del warm["entries"][0]["category"]
    _malformed(mem, "warm-memory.json", warm)
    _ok_or_memoryd_error(lambda: mem.retrieve("hello"))
    _ok_or_memoryd_error(lambda: mem.store("another fact", "b", importance=0.5))


def test_parseable_but_malformed_hot_lesson(config) -> None:
    mem = AgentMemory(config, "malhot", clock=Clock())
    mem.init()
    hot = H.empty_hot()
    hot["critical_lessons"] = [{"id": "x"}]
    _malformed(mem, "hot-memory-state.json", hot)
    _ok_or_memoryd_error(lambda: mem.store("a fact", "b", importance=0.5))
    _ok_or_memoryd_error(lambda: mem.retrieve("fact"))


@pytest.mark.parametrize("name", ["access.jsonl", "metrics.json"])
def test_parseable_but_malformed_side_files(config, name: str) -> None:
    from memoryd.tiers.memory.status import agent_status

    mem = AgentMemory(config, "malside", clock=Clock())
    mem.store("hello world fact", "a", importance=0.5)
    _malformed(mem, name, [])
    _ok_or_memoryd_error(lambda: agent_status(mem))
    _ok_or_memoryd_error(lambda: mem.retrieve("hello"))
    _ok_or_memoryd_error(lambda: mem.store("more facts", "a", importance=0.5))


def test_temp_leftovers_are_not_state(config) -> None:
    mem = AgentMemory(config, "leftover", clock=Clock())
    e = mem.store("real fact", "c", importance=0.5)
    for name in STATE_NAMES:  # what a process killed mid-write leaves behind
        (mem.dir / f".{name}.tmp-99999").write_bytes(b'{"entries": [], "nodes": {}, "partial')
    assert [x["id"] for x in mem.read_state()["warm"]["entries"]] == [e["id"]]
    mem.store("second", "c", importance=0.5)
    assert len(mem.read_state()["warm"]["entries"]) == 2


def _big_state() -> dict:
    hot = H.empty_hot()
    for i in range(30):
        H.add_lesson(hot, f"lesson {i} " + "l" * 150, "lessons", (i % 10) / 10, T0 + i)
        H.add_event(hot, f"event {i}", T0 + i)
    warm = W.empty_warm()
    for i in range(150):
        warm["entries"].append(W.new_entry(f"fact {i} " + "w" * 300, "c", (i % 9 + 1) / 10, T0 - i * 3600))
    tree = {"nodes": {f"n{i:02d}": ["", i] for i in range(55)}}
    return {"hot": hot, "warm": warm, "tree": tree}


def test_enforce_all_is_pure_and_deterministic() -> None:
    state = _big_state()
    before = copy.deepcopy(state)
    a, ev_a = enforce_all(state, T0)
    b, ev_b = enforce_all(copy.deepcopy(before), T0)
    assert state == before  # input untouched
    assert dumps(a) == dumps(b) and dumps(ev_a) == dumps(ev_b)
    assert len(dumps(a["hot"])) <= HOT_MAX_BYTES and len(dumps(a["warm"])) <= WARM_MAX_BYTES
    assert len(a["tree"]["nodes"]) <= 50
    warm_rows = [e for e in ev_a if e["tier"] == "warm"]
    assert warm_rows and all("entry" in e for e in warm_rows)
    again, ev_again = enforce_all(a, T0)
    assert ev_again == [] and dumps(again) == dumps(a)  # idempotent


def test_write_state_applies_limits_and_queues_warm_evictions(config) -> None:
    mem = AgentMemory(config, "writer", clock=Clock())
    evictions = mem.write_state(_big_state(), "merge")
    state = mem.read_state()
    for key, path in FILES.items():
        raw = (mem.dir / path).read_bytes()
        assert raw == dumps(state[key])
    assert len(dumps(state["hot"])) <= HOT_MAX_BYTES and len(dumps(state["warm"])) <= WARM_MAX_BYTES
    warm_ids = {e["id"] for e in evictions if e["tier"] == "warm"}
    assert warm_ids == {e["id"] for e in mem.archive.iter_entries("writer")}
    logged = mem.eviction_rows()
    assert len(logged) == len(evictions) and all(r["reason"] == "merge" and "entry" not in r for r in logged)


def test_write_state_at_a_given_time_is_as_on_a_clock_at_that_time(config) -> None:
    """A sync merge applies limits at a time taken from the data: write_state(now=...) gives what a memory
    whose clock says that time gives, and the memory's own clock is left as it was."""
    later = T0 + 2 * 86400.0  # past the 24 h grace of every fact of _big_state
    on_clock = AgentMemory(config, "on-clock", clock=Clock(later))
    given = AgentMemory(config, "given", clock=Clock())
    rows = on_clock.write_state(_big_state(), "merge")
    assert given.write_state(_big_state(), "merge", now=later) == rows
    assert given.read_state() == on_clock.read_state() and given.clock() == T0
    assert [r["ts"] for r in given.eviction_rows()] == [int(later)] * len(rows)
    at_t0 = AgentMemory(config, "at-t0", clock=Clock()).write_state(_big_state(), "merge")
    assert [r["id"] for r in at_t0] != [r["id"] for r in rows]  # the time given is the one the limits used


def test_eviction_log_skips_torn_last_line(config) -> None:
    mem = AgentMemory(config, "torn", clock=Clock())
    mem.init()
    mem.evictions.append([{"tier": "warm", "kind": "entry", "id": "a", "what": "", "why": "x"}], T0)
    with open(mem.evictions.path, "ab") as fh:
        fh.write(b'{"tier": "warm", "id": "b"')
    assert [r["id"] for r in mem.evictions.rows()] == ["a"]
    assert mem.evictions.summary()["total"] == 1
    assert _mode(mem.evictions.path) == 0o600


def test_lock_serialises_two_agent_objects(config) -> None:
    a = AgentMemory(config, "locky", clock=Clock())
    b = AgentMemory(config, "locky", clock=Clock())
    a.init()
    with a.exclusive():
        assert b.lock.acquire(blocking=False) is False
    assert b.lock.acquire(blocking=False) is True
    b.lock.release()
    assert os.path.exists(a.dir / ".lock")


def test_every_file_private_after_full_cycle(config) -> None:
    from memoryd.tiers.cold.source import open_index
    from memoryd.tiers.memory.consolidate import consolidate

    clock = Clock()
    archive = open_index(config)
    try:
        mem = AgentMemory(config, "cycle", archive=archive, clock=clock)
        mem.store("fact that will age", "c", importance=0.4)
        mem.retrieve("fact")  # leaves an access log until the next write
        clock.t += 31 * 86400
        consolidate(mem, "daily")
        mem.retrieve("fact")
    finally:
        archive.close()
    names = {p.name for p in mem.dir.iterdir()}
    assert {"metrics.json", "evictions.jsonl", "MEMORY.md"} <= names and (config.home / "cold.db").exists()
    for p in config.home.rglob("*"):
        if p.is_dir():
            assert _mode(p) == 0o700, p
        else:
            assert _mode(p) & 0o077 == 0, f"{p} is {oct(_mode(p))}"


def test_access_log_read_incrementally_stays_exact(tmp_path: Path) -> None:
    """pending() parses only what was appended since it last looked, and notices a new log in the same place."""
    from memoryd.tiers.memory.access import AccessLog

    log = AccessLog(tmp_path / "access.jsonl")
    assert log.pending() == {}
    log.record({"a": (1, 10)})
    assert log.pending() == {"a": (1, 10)}
    log.record({"a": (3, 30), "b": (1, 20)})
    with open(log.path, "ab") as f:
        f.write(b'{"b":[5,')  # a writer in the middle of its line
    assert log.pending() == {"a": (3, 30), "b": (1, 20)}
    with open(log.path, "ab") as f:
        f.write(b'50]}\n')
    assert log.pending() == {"a": (3, 30), "b": (5, 50)}
    seen = log.pending()
    seen["a"] = (99, 99)  # the caller's copy: the next answer is not affected
    assert log.pending()["a"] == (3, 30)
    log.clear()  # folded by a write: a new log, possibly on the same inode, longer than the old one
    log.record({"c": (2, 5), "padding-" + "x" * 200: (1, 1)})
    assert set(log.pending()) == {"c", "padding-" + "x" * 200}
    log.clear()
    assert log.pending() == {}
