"""The helper process (tiers/ingest/helper.py) and `ingest-daily --all` with it (tiers/ingest/notes_ahead.py): real
processes; a helper that fails, hangs, dies or is killed mid-run only means the work is done here."""
from __future__ import annotations

import datetime as dt
import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

import pytest

from memoryd.tiers.ingest.dailynotes import BATCH_NOTES, FIRST_BATCH_NOTES
from memoryd.tiers.ingest.helper import Helper

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))  # bench/ is not installed: run from the checkout
from bench.bench_ingest import synth_note  # noqa: E402


def _gone(pid: int, within: float = 5.0) -> bool:
    """The process has exited (a zombie counts: it runs nothing)."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            if Path(f"/proc/{pid}/stat").read_text().split(") ")[-1].startswith("Z"):
                return True
        except FileNotFoundError:
            return True
        time.sleep(0.05)
    return False


def test_jobs_run_in_another_process_in_order() -> None:
    h = Helper("os:getpid")
    try:
        assert h.submit() and h.take() not in (None, os.getpid())
    finally:
        h.close()
    h = Helper("operator:add")
    try:
        for a in range(5):
            assert h.submit(a, 10) and h.take() == a + 10
        assert h.take() is None  # nothing pending
    finally:
        h.close()
    assert h.proc is None and not h.submit(1, 2)


@pytest.mark.parametrize("target, args", [("operator:truediv", (1, 0)),  # raises
                                          ("os:_exit", (3,)),              # dies
                                          ("no_such_module_here:f", (1,))])  # cannot start its job
def test_a_failing_helper_gives_none_and_stops(target: str, args: tuple) -> None:
    h = Helper(target, timeout=20)
    proc = h.proc
    assert proc is not None
    h.submit(*args)  # may already fail: a helper that cannot import its target is gone at once
    assert h.take() is None and h.proc is None and not h.submit(*args)
    assert _gone(proc.pid)


def test_a_stuck_helper_is_killed_after_its_timeout() -> None:
    h = Helper("time:sleep", timeout=0.3)
    proc = h.proc
    assert proc is not None and h.submit(30)
    t0 = time.monotonic()
    assert h.take() is None and time.monotonic() - t0 < 5
    assert _gone(proc.pid)


def test_the_helper_exits_when_its_parent_dies(tmp_path: Path) -> None:
    code = ("import os, sys; from memoryd.tiers.ingest.helper import Helper; h = Helper('operator:add'); "
            "h.submit(1, 2); assert h.take() == 3; print(h.proc.pid, flush=True); os._exit(0)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=30, check=True)
    assert _gone(int(out.stdout))


# --- ingest --all with a helper -------------------------------------------------------------------
def _year(workspace: Path, days: int) -> None:
    rng = random.Random(5)
    for i in range(days):
        day = dt.date(2025, 3, 1) + dt.timedelta(days=i)
        text = synth_note(day, rng, 30)
        if i % 9 == 4:  # secrets (the helper redacts, as store would), a dated task, a lesson
            text += (f"\n## 9:00 PM - ops\n- server password=hunter{i}xyz\n- Remind me to renew the cert by "
                     f"{day + dt.timedelta(days=20)}.\n- Lesson: never deploy on a Friday.\n")
        (workspace / "memory" / f"{day}.md").write_text(text, encoding="utf-8")


def _run(config, agent: str, ahead: bool, progress=None) -> tuple:
    from memoryd.tiers.cold.source import LazyIndex
    from memoryd.tiers.memory.agent import AgentMemory
    from memoryd.tiers.ingest.dailynotes import ingest

    archive = LazyIndex(config)
    mem = AgentMemory(config, agent, archive=archive, clock=lambda: 1771416000.0)
    report = ingest(mem, config.workspace, all_=True, ahead=ahead, progress=progress)
    state = mem.read_state()
    cold = sorted((e["id"], e["text"], e["category"], e["importance"], json.dumps(e["metadata"], sort_keys=True))
                  for e in archive.iter_entries(agent))
    ledgers = {p.name: p.read_text() for p in sorted((mem.dir / "ingested").glob("*.json"))}
    rows = [{k: v for k, v in r.items() if k != "ts"} for r in mem.eviction_rows()]
    return report, state, cold, ledgers, rows, mem.metrics()["counters"]


FIVE_BATCHES = FIRST_BATCH_NOTES + 4 * BATCH_NOTES - 10  # notes: a first batch and four more (the last short)


@pytest.fixture
def keyword_config(home: Path):
    from memoryd.tiers.base.config import load_config

    return load_config(dict(os.environ, MEMORYD_RETRIEVAL_MODE="keyword"))  # no embedding of cold rows


@pytest.fixture(scope="module")
def alone(tmp_path_factory: pytest.TempPathFactory) -> tuple:
    """The year of notes ingested without a helper, once for the module (the tests compare a helped run
    with it, each in a home of its own: nothing of it depends on where the home is)."""
    from memoryd.tiers.base.config import load_config

    root = tmp_path_factory.mktemp("alone")
    (root / "workspace" / "memory").mkdir(parents=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MEMORYD_", "OPENCLAW_"))}
    config = load_config(dict(env, MEMORYD_HOME=str(root / "home"), MEMORYD_WORKSPACE=str(root / "workspace"),
                              OPENCLAW_STATE_DIR=str(root / "openclaw"), MEMORYD_RETRIEVAL_MODE="keyword"))
    _year(config.workspace, FIVE_BATCHES)
    return _run(config, "alone", ahead=False)


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="finds the helper through /proc")
@pytest.mark.xdist_group("helper-year")  # one worker computes `alone` for both
def test_ingest_all_with_a_helper_stores_what_it_stores_alone(keyword_config, alone: tuple) -> None:
    _year(keyword_config.workspace, FIVE_BATCHES)  # the helper reads batches 2..5
    watch = _Watch()
    helped = _run(keyword_config, "helped", ahead=True, progress=watch)
    assert [bool(pids) for pids in watch.seen] == [True] * 5  # started with the first batch
    assert helped == alone and not _helpers()
    report, state, cold, *_ = helped
    assert report["stored"] == report["facts"] > 1500 and len(cold) > 500
    assert "hunter" not in json.dumps([state, cold]) and report.get("hot")


def _helpers() -> list[int]:
    """This process's helper processes (found through /proc)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().split(") ")[-1].split()
            cmd = (stat.parent / "cmdline").read_bytes()
        except OSError:
            continue
        if int(fields[1]) == os.getpid() and b"memoryd.tiers.ingest.helper" in cmd and fields[0] != "Z":
            found.append(int(stat.parent.name))
    return found


class _Watch:
    """A progress reporter that notes the helpers alive after each batch (and kills them after the
    second one, with `kill`)."""

    def __init__(self, kill: bool = False) -> None:
        self.kill, self.seen, self.killed = kill, [], []

    def start(self, label: str, total: int | None):
        def advance(n: int = 1) -> None:
            pids = _helpers()
            self.seen.append(pids)
            if self.kill and len(self.seen) == 2:
                for pid in pids:
                    os.kill(pid, 9)
                    assert _gone(pid)
                    self.killed.append(pid)
        return advance


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="finds the helper through /proc")
@pytest.mark.xdist_group("helper-year")  # one worker computes `alone` for both
def test_a_helper_killed_mid_run_changes_nothing(keyword_config, alone: tuple) -> None:
    _year(keyword_config.workspace, FIVE_BATCHES)
    watch = _Watch(kill=True)
    helped = _run(keyword_config, "helped", ahead=True, progress=watch)
    assert watch.killed and helped == alone
    assert [bool(pids) for pids in watch.seen[2:]] == [False, False, False]  # not started again


def test_read_ahead_rates_its_share_of_the_facts_not_in_the_ledgers(keyword_config, tmp_path: Path) -> None:
    from memoryd.tiers.ingest.dailynotes import note_files
    from memoryd.tiers.ingest.ledgers import ledger_path
    from memoryd.tiers.ingest.notes_ahead import has_new, read_ahead

    _year(keyword_config.workspace, 3)
    files = note_files(keyword_config.workspace, all_=True)
    days, facts, _, ready = read_ahead(files, tmp_path, 0.5)
    half = round(len(facts) / 2)
    assert [r is not None for r in ready] == [True] * half + [False] * (len(facts) - half)
    assert all(f.classified for f in facts[:half]) and not any(f.classified for f in facts[half:])
    first = [f for f in facts if f.date == days[0]]
    ledger_path(tmp_path, days[0]).parent.mkdir(parents=True)
    ledger_path(tmp_path, days[0]).write_text(json.dumps({"keys": {f.key: f.date for f in first}}))
    _, facts, _, ready = read_ahead(files, tmp_path, 1.0)
    assert [r is None for r in ready] == [f.date == days[0] for f in facts]  # known facts are not rated
    assert has_new(tmp_path, facts) and not has_new(tmp_path, first)


def test_what_the_helper_sends_unpacks_to_what_read_ahead_gives(keyword_config, tmp_path: Path) -> None:
    import pickle

    from memoryd.tiers.ingest.dailynotes import note_files
    from memoryd.tiers.ingest.notes_ahead import read_ahead, read_ahead_packed, unpack

    _year(keyword_config.workspace, 3)
    files = note_files(keyword_config.workspace, all_=True)
    want = read_ahead(files, tmp_path, 0.6)
    packed = read_ahead_packed(files, tmp_path, 0.6)
    days, facts, warnings, ready = unpack(pickle.loads(pickle.dumps(packed)))
    assert (days, facts, warnings) == want[:3] and len(facts) > 20
    assert [r is None for r in ready] == [r is None for r in want[3]]
    assert [r[1] for r in ready if r] == [r[1] for r in want[3] if r]  # the prepared stores, as they were made
    assert len(pickle.dumps(packed)) < len(pickle.dumps(want))


def test_the_helpers_share_moves_towards_equal_cpu_time_on_both_sides() -> None:
    from memoryd.tiers.ingest.notes_ahead import Ahead

    h = Helper("operator:add")
    try:
        ahead = Ahead(h)
        ahead.share, ahead.cost = 0.5, (0.003, 0.030, 300)  # the helper: 33 ms, 0.1 ms a fact rated
        ahead.done(0.063, 600)  # this process: 63 ms for the other 300: 150 facts' worth to move over
        assert ahead.share == 0.625  # half way to (300 + 150) / 600
        for _ in range(12):
            ahead.cost = (0.003, 0.030, 300)
            ahead.done(0.063, 600)
        assert ahead.share == 0.75
        ahead.cost = (0.003, 0.060, 600)  # everything rated there, and this process idle: back here
        ahead.done(0.010, 600)
        assert ahead.share < 0.75
        ahead.share, ahead.cost = 0.0, (0.003, 0.0, 0)  # nothing rated there: some is tried
        ahead.done(0.050, 600)
        assert ahead.share == 0.1
        before = ahead.share
        ahead.cost = None  # the first answer (the helper's start) is no measure
        ahead.done(0.5, 600)
        assert ahead.share == before
    finally:
        h.close()


def test_a_fact_the_helper_cannot_prepare_is_left_to_the_store_path(keyword_config, tmp_path: Path) -> None:
    from memoryd.tiers.ingest.dailynotes import note_files
    from memoryd.tiers.ingest.note_parse import read_notes
    from memoryd.tiers.ingest.notes_ahead import _rate
    from memoryd.tiers.distillation.prepare import prepare_many

    _year(keyword_config.workspace, 2)
    days, facts, _ = read_notes(note_files(keyword_config.workspace, all_=True), False)
    facts[3].text = "   "  # refused by prepare_many (empty text): the whole batch call fails
    ready = _rate(facts, days, tmp_path, 1.0)
    assert ready[3] is None and not facts[3].classified
    others = [r for i, r in enumerate(ready) if i != 3]
    assert all(r is not None for r in others) and len(others) > 20
    assert [r[1] for r in others[:5]] == prepare_many([r[0] for r in others[:5]])  # as made one by one


def test_idle_cores_count_this_process_as_busy_and_the_span_since_the_last_look() -> None:
    """IdleCores measures what sat idle since it last looked, not the 1-minute load average (which also
    counts this command's own work just before): while this process burns a core, at most the others are free."""
    from memoryd.tiers.ingest.helper import IdleCores

    idle = IdleCores()
    first = idle.last
    deadline = time.process_time() + 0.3  # ≥ 30 ticks of this process: long enough to say something
    while time.process_time() < deadline:
        pass
    free = idle.free()
    assert free is not None and idle.last != first  # a span long enough moves the mark
    assert 0.0 <= free <= (os.cpu_count() or 1) - 0.6  # this process's busy core is never counted free


def test_a_bulk_ingest_arrives_in_the_index_as_one_import(keyword_config) -> None:
    """The arrival hook (hybrid mode: embed inline when a put is small) hears of the batches' rows once, at the end:
    per batch, the year's last short batch was embedded inline and the rest left to the back-fill."""
    from memoryd.tiers.cold.source import open_index
    from memoryd.tiers.ingest.dailynotes import ingest
    from memoryd.tiers.memory.agent import AgentMemory

    _year(keyword_config.workspace, FIVE_BATCHES)
    archive = open_index(keyword_config)
    heard: list[tuple[str, frozenset[str]]] = []
    archive.after_put = lambda agent_id, ids, pulled=False: heard.append((agent_id, frozenset(ids)))  # the hook
    mem = AgentMemory(keyword_config, "bulk", archive=archive, clock=lambda: 1771416000.0)
    ingest(mem, keyword_config.workspace, all_=True, ahead=False)
    assert heard == [("bulk", frozenset(e["id"] for e in archive.iter_entries("bulk")))] and len(heard[0][1]) > 500
    ingest(mem, keyword_config.workspace, all_=True, ahead=False)  # nothing new: nothing arrives
    assert len(heard) == 1


def test_overlapping_holds_tell_the_hook_once_when_the_last_ends(keyword_config) -> None:
    """Holds may overlap (a daemon's threads): nothing is told until the last ends, nothing is lost, and puts
    after it are told at once again."""
    from contextlib import ExitStack

    from memoryd.tiers.cold.source import open_index

    index = open_index(keyword_config)
    heard: list[tuple[str, list[str]]] = []
    index.after_put = lambda agent_id, ids, pulled=False: heard.append((agent_id, sorted(ids)))  # the hook

    def put(i: int) -> None:
        index.put("held", [{"id": f"m{i}", "text": f"fact {i} of the held agent", "category": "notes",
                            "created_at": 1771416000}])

    first, second = ExitStack(), ExitStack()
    first.enter_context(index.arrivals_together())
    second.enter_context(index.arrivals_together())
    put(1)
    first.close()  # the first hold ends while the second is open: the second still holds
    put(2)
    assert heard == []
    second.close()
    assert heard == [("held", ["m1", "m2"])]
    put(3)
    assert heard[-1] == ("held", ["m3"])
