"""The critical state as a log of sealed per-item changes (sync/critical_log.py), against a real sqld with
real encryption: concurrent devices append and converge, a push is the size of its change, a new device
restores from the last snapshot plus the changes after it, and a server of the whole-state format is read once."""
from __future__ import annotations

import threading

import pytest

from memoryd.sync import critical_log
from memoryd.sync.critical import pull_now, push_now
from memoryd.sync.crypto.seal import open_text, seal_text
from memoryd.sync.device_files import KIND, SyncFiles
from memoryd.sync.merge.hlc import HLC
from memoryd.sync.merge.replica import empty_replica, materialize, normal, replica_hash, restamp
from memoryd.sync.remote.db import connect
from memoryd.sync.remote.schema import ensure_schema
from memoryd.sync.restore import restore
from memoryd.tiers.base.atomic import dumps
from memoryd.tiers.base.errors import ArchiveError, CryptoError
from memoryd.tiers.memory import hot, tree, warm
from memhelp import AgentMemory

from synchelp import AGENT, device, first_device, sample, state_of, texts


def _full(mem: AgentMemory) -> None:
    """Hot, warm and tree well filled (as bench/bench_sync.py does): a whole-state push would be ~15 KB."""
    def fill(state: dict, now: float) -> None:
        for i in range(8):
            hot.set_identity(state["hot"], f"key{i}", f"identity value number {i}")
            hot.upsert_project(state["hot"], f"project{i}", f"description of project {i}", "active", now)
        for i in range(6):
            for j in range(3):
                tree.add_node(state["tree"], f"area{i}/topic{j}", f"topic {j} of area {i}", now)
        for i in range(150):
            text = f"fact {i}: the service s{i} runs on host h{i % 17} port {9000 + i}, owner team t{i % 7}"
            warm.add_or_reinforce(state["warm"], warm.new_entry(text, f"area{i % 6}/topic{i % 3}", 0.5, now, {}), now)
    mem.change(fill, "test")


def _rows(config, sql: str, args: list) -> list:
    with connect(config) as db:
        return db.execute(sql, args).rows


def _both_at_once(*calls):
    """Run the calls at the same instant (a barrier), each in its own thread; their results in order."""
    barrier = threading.Barrier(len(calls))
    out: list = [None] * len(calls)

    def run(i, fn):
        barrier.wait(timeout=30)
        try:
            out[i] = fn()
        except BaseException as exc:  # noqa: BLE001 - re-raised below, in the test's thread
            out[i] = exc

    threads = [threading.Thread(target=run, args=(i, fn)) for i, fn in enumerate(calls)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    for r in out:
        if isinstance(r, BaseException):
            raise r
    return out


def test_two_devices_edit_one_hot_item_and_the_tree_at_once_and_converge(tmp_path, sqld):
    sqld.wipe()
    a, key = first_device(tmp_path, sqld.http_url)
    sample(AgentMemory(a, AGENT))
    push_now(a, AGENT)
    b = device(tmp_path, "b", sqld.http_url, key)
    pull_now(b, AGENT)

    def on_a(state, now):
        hot.upsert_project(state["hot"], "evoclaw", "agent framework, rewritten on a", None, now)
        tree.add_node(state["tree"], "infra/servers", "machines we run (a)", now)
        tree.add_node(state["tree"], "garden/roses", "what grows where", now)

    def on_b(state, now):
        hot.upsert_project(state["hot"], "evoclaw", None, "paused", now + 1)  # same item, another field
        tree.add_node(state["tree"], "infra/servers", "machines we run (b)", now + 1)  # same node, later
        tree.add_node(state["tree"], "music/jazz", "records", now)

    AgentMemory(a, AGENT).change(on_a, "test")
    AgentMemory(b, AGENT).change(on_b, "test")
    ra, rb = _both_at_once(lambda: push_now(a, AGENT), lambda: push_now(b, AGENT))
    assert ra["status"] == rb["status"] == "pushed"
    assert ra["round_trips"] <= 2 and rb["round_trips"] <= 2  # nobody retries on a version
    assert ra["conflicts"] + rb["conflicts"] == 1  # the later batch brought the other's change back with it
    for config in (a, b):
        pull_now(config, AGENT)
    assert state_of(a) == state_of(b)
    project = next(p for p in state_of(a)["hot"]["active_context"]["projects"] if p["name"] == "evoclaw")
    assert (project["description"], project["status"]) == ("agent framework, rewritten on a", "paused")
    nodes = state_of(a)["tree"]["nodes"]
    assert {"garden/roses", "music/jazz"} <= set(nodes)
    assert nodes["infra/servers"][0] in ("machines we run (a)", "machines we run (b)")
    # a device never downloads its own rows again: synced, nothing comes back
    for config in (a, b):
        assert pull_now(config, AGENT)["status"] == "current"
        assert SyncFiles(config, AGENT).state()["check"]["behind"] == 0


def test_a_push_after_one_fact_is_the_size_of_the_fact(tmp_path, sqld):
    sqld.wipe()
    a, key = first_device(tmp_path, sqld.http_url)
    mem = AgentMemory(a, AGENT)
    _full(mem)
    first = push_now(a, AGENT)
    whole = first["snapshot"] and _rows(a, "SELECT length(data) FROM critical_state WHERE agent_id = ?", [AGENT])[0][0]
    assert whole > 8000  # the state a whole-state push would send each time
    added = {}

    def one_fact(state, now):
        added["entry"] = warm.new_entry("Ada moved the standup to 9:30 on Tuesdays", "area1/topic1", 0.6, now, {})
        warm.add_or_reinforce(state["warm"], added["entry"], now)

    mem.change(one_fact, "test")
    pushed = push_now(a, AGENT)
    fact = len(seal_text(key, dumps(added["entry"]), agent_id=AGENT, kind="measure", version=0))
    assert pushed["status"] == "pushed" and pushed["round_trips"] == 1
    assert pushed["critical_bytes"] <= 2 * fact + 2048, (pushed, fact)
    print(f"one fact: {pushed['critical_bytes']} bytes sent, the fact sealed {fact}, the whole state sealed {whole}")
    assert pushed["critical_bytes"] * 5 < whole
    b = device(tmp_path, "b", sqld.http_url, key)
    pull_now(b, AGENT)
    assert "Ada moved the standup to 9:30 on Tuesdays" in texts(b) and state_of(b) == state_of(a)


def test_a_new_device_restores_from_the_last_snapshot_and_the_changes_after_it(tmp_path, sqld, monkeypatch):
    sqld.wipe()
    monkeypatch.setattr(critical_log, "SNAPSHOT_ROWS", 3)
    monkeypatch.setattr(critical_log.zlib, "crc32", lambda _data: 0)  # no jitter: the snapshot comes at 3
    a, key = first_device(tmp_path, sqld.http_url)
    sample(AgentMemory(a, AGENT))
    push_now(a, AGENT)
    snapshots = []
    for i in range(7):
        AgentMemory(a, AGENT).change(lambda s, now, i=i: hot.set_identity(s["hot"], f"step{i}", str(i)), "test")
        r = push_now(a, AGENT)
        snapshots.append(r.get("snapshot"))
    assert any(snapshots), snapshots  # written along the way, not only at the first push
    snap = _rows(a, "SELECT version FROM critical_state WHERE agent_id = ?", [AGENT])[0][0]
    seqs = [r[0] for r in _rows(a, "SELECT seq FROM critical_log WHERE agent_id = ? ORDER BY seq", [AGENT])]
    assert seqs and min(seqs) > snap  # the changes a snapshot covers are gone; a tail follows it
    b = device(tmp_path, "b", sqld.http_url)
    report = restore(b, AGENT, key=key)
    assert report["version"] == max(seqs) and state_of(b) == state_of(a)
    assert state_of(b)["hot"]["identity"]["step6"] == "6"
    assert pull_now(b, AGENT)["status"] == "current"


def _old_format_server(tmp_path, url):
    """A server and a device as a memoryd of the whole-state format left them: schema v3, critical_state at
    version 5 (and its history), the device's base at that version, no log."""
    a, key = first_device(tmp_path, url)
    sample(AgentMemory(a, AGENT))
    rep = normal(restamp(empty_replica(), state_of(a), HLC("olddevice").now()))
    with connect(a) as db:
        ensure_schema(db, target=3)
        for version in range(1, 6):
            data = seal_text(key, dumps(rep), agent_id=AGENT, kind=KIND, version=version)
            db.execute("INSERT INTO critical_versions (agent_id, version, data, device_id, updated_at, epoch) "
                       "VALUES (?, ?, ?, 'olddevice', ?, 0)", [AGENT, version, data, version])
        db.execute("INSERT INTO critical_state (agent_id, data, version, device_id, updated_at, epoch) "
                   "VALUES (?, ?, 5, 'olddevice', 5, 0)", [AGENT, data])
    files = SyncFiles(a, AGENT)
    files.save_base(5, rep, replica_hash(rep))
    return a, key


def test_a_server_of_the_whole_state_format_is_read_once_then_the_log(tmp_path, sqld):
    sqld.wipe()
    a, key = _old_format_server(tmp_path, sqld.http_url)
    b = device(tmp_path, "b", sqld.http_url, key)
    first = pull_now(b, AGENT)  # migrates the schema, reads the old critical_state once
    assert first["status"] in ("pulled", "pushed") and state_of(b) == state_of(a)
    assert SyncFiles(b, AGENT).state()["log"] is True
    AgentMemory(a, AGENT).store("a fact after the upgrade", "misc")
    pushed = push_now(a, AGENT)
    assert pushed["status"] == "pushed" and pushed["version"] > 5  # the log's seqs start past the old versions
    second = pull_now(b, AGENT)
    assert second["status"] == "pulled" and SyncFiles(b, AGENT).state()["check"]["behind"] == 1  # the change alone
    assert "a fact after the upgrade" in texts(b) and state_of(b) == state_of(a)
    c = device(tmp_path, "c", sqld.http_url)
    restore(c, AGENT, key=key)  # the old snapshot plus the log after it
    assert state_of(c) == state_of(a)
    older = device(tmp_path, "d", sqld.http_url)
    assert restore(older, AGENT, key=key, at="3")["restored_version"] == 3  # the old history still opens
    # a device still running the whole-state format cannot overwrite the snapshot: its write fails loudly
    old_cas = ("INSERT INTO critical_state (agent_id, data, version, device_id, updated_at, epoch) "
               "SELECT ?, ?, ?, 'old', 0, 0 WHERE 1 ON CONFLICT (agent_id) DO UPDATE SET data = excluded.data, "
               "version = excluded.version WHERE critical_state.version = ?")
    with connect(a) as db:
        top = db.execute("SELECT version FROM critical_state WHERE agent_id = ?", [AGENT]).scalar()
        for agent in (AGENT, "another"):
            with pytest.raises(ArchiveError, match="upgrade memoryd"):
                db.execute(old_cas, [agent, "MDS1", top + 1, top])


def test_a_change_under_another_device_or_agent_name_is_refused(tmp_path, sqld):
    sqld.wipe()
    a, key = first_device(tmp_path, sqld.http_url)
    sample(AgentMemory(a, AGENT))
    push_now(a, AGENT)
    AgentMemory(a, AGENT).store("a change to move", "misc")
    push_now(a, AGENT)
    b = device(tmp_path, "b", sqld.http_url, key)
    with connect(a) as db:
        db.execute("UPDATE critical_log SET device_id = 'someone' WHERE agent_id = ?", [AGENT])
    with pytest.raises(CryptoError):
        pull_now(b, AGENT)
    assert materialize(SyncFiles(b, AGENT).base()["replica"])["warm"]["entries"] == []


def test_after_a_forget_no_change_or_snapshot_on_the_server_holds_it(tmp_path, sqld):
    sqld.wipe()
    a, key = first_device(tmp_path, sqld.http_url)
    sample(AgentMemory(a, AGENT))
    push_now(a, AGENT)
    AgentMemory(a, AGENT).store("the garage door code is 4711", "home")
    push_now(a, AGENT)
    for i in range(3):  # later changes: the one holding the fact is no longer the last
        AgentMemory(a, AGENT).change(lambda s, now, i=i: hot.set_identity(s["hot"], f"later{i}", str(i)), "test")
        push_now(a, AGENT)
    b = device(tmp_path, "b", sqld.http_url, key)
    pull_now(b, AGENT)

    def held() -> list[str]:
        out = []
        with connect(a) as db:
            for device_id, epoch, data in db.execute("SELECT device_id, epoch, data FROM critical_log WHERE agent_id = ?",
                                                     [AGENT]).rows:
                out.append(open_text(key, data, agent_id=AGENT, kind=critical_log.change_kind(device_id, epoch),
                                     version=critical_log.CHANGE_VERSION).decode())
            for version, data in db.execute("SELECT version, data FROM critical_versions WHERE agent_id = ? UNION "
                                            "SELECT version, data FROM critical_state WHERE agent_id = ?",
                                            [AGENT, AGENT]).rows:
                out.append(open_text(key, data, agent_id=AGENT, kind=KIND, version=int(version)).decode())
        # the words, not the number: a snapshot's HLC stamps are millisecond clocks, one may read …104711…
        return [text for text in out if "garage door" in text]

    assert held()  # a change and nothing else holds it so far
    AgentMemory(a, AGENT).change(lambda s, now: s["warm"]["entries"].__setitem__(
        slice(None), [e for e in s["warm"]["entries"] if "garage door" not in e["text"]]), "forget")
    assert push_now(a, AGENT, purge_history=True)["status"] == "pushed"
    assert held() == []
    pull_now(b, AGENT)
    assert "the garage door code is 4711" not in texts(b) and state_of(b) == state_of(a)
