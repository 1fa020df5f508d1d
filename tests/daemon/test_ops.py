"""The operations layer wires tiers to sync: forget reaches the cloud, the periodic sync job pulls."""
from __future__ import annotations

from memoryd.daemon.api import in_process
from memoryd.sync.critical import push_now
from memoryd.sync.remote.db import connect

from synchelp import AGENT, device, first_device, texts
from waiting import eventually


def test_forget_by_id_purges_the_cloud_copy(tmp_path, sqld) -> None:
    sqld.wipe()
    a, key = first_device(tmp_path, sqld.http_url)
    keep = in_process(a).call("store", {"agent_id": AGENT, "text": "the boiler code is 4711", "category": "home"})
    gone = in_process(a).call("store", {"agent_id": AGENT, "text": "the old safe combination is 1234", "category": "home"})
    assert in_process(a).call("sync", {"agent_id": AGENT})["status"] == "pushed"
    in_process(a).call("store", {"agent_id": AGENT, "text": "another version in history", "category": "home"})
    push_now(a, AGENT)

    result = in_process(a).call("forget", {"agent_id": AGENT, "id": gone["id"]})
    assert result["removed"]["warm"] == 1 and result["sync"]["status"] == "pushed"
    with connect(a) as db:
        versions = db.execute("SELECT version FROM critical_versions WHERE agent_id = ?", [AGENT]).rows
    assert len(versions) == 1  # older ciphertexts that still held the fact are gone

    b = device(tmp_path, "b", sqld.http_url, key)
    in_process(b).call("sync", {"agent_id": AGENT, "drain": True})  # the daemon's periodic job pulls
    assert keep["text"] in texts(b) and gone["text"] not in texts(b)


def test_periodic_sync_job_brings_other_devices_changes(tmp_path, sqld) -> None:
    sqld.wipe()
    a, key = first_device(tmp_path, sqld.ws_url)
    b = device(tmp_path, "b", sqld.ws_url, key)
    in_process(a).call("store", {"agent_id": AGENT, "text": "device A learned that the VPN moved to port 51820",
                          "category": "infra"})
    in_process(a).call("sync", {"agent_id": AGENT})
    assert not any("51820" in t for t in texts(b))
    in_process(b).call("sync", {"agent_id": AGENT, "drain": True})
    assert any("51820" in t for t in texts(b))


def test_newest_edit_wins_even_when_it_is_pushed_first(tmp_path, sqld) -> None:
    """A edits, B edits the same field later and syncs first; A syncs after: B's newer value stays."""
    import time

    from memoryd.tiers.memory import hot as H
    from memhelp import AgentMemory

    from synchelp import state_of

    sqld.wipe()
    a, key = first_device(tmp_path, sqld.http_url)
    in_process(a).call("sync", {"agent_id": AGENT})
    b = device(tmp_path, "b", sqld.http_url, key)
    in_process(b).call("sync", {"agent_id": AGENT, "drain": True})

    def edit(config, value):  # what `memoryd hot identity name VALUE` does
        from memoryd.daemon.ops_sync import stamp_edits

        AgentMemory(config, AGENT).change(lambda s, now: H.set_identity(s["hot"], "name", value), "hot identity")
        stamp_edits(config, AGENT)

    edit(a, "older-from-A")
    stamped = time.time_ns() // 1_000_000  # edits carry milliseconds: B's edit must come in a later one
    eventually(lambda: time.time_ns() // 1_000_000 > stamped, step=0.0005)
    edit(b, "newer-from-B")
    in_process(b).call("sync", {"agent_id": AGENT})
    in_process(a).call("sync", {"agent_id": AGENT})
    in_process(b).call("sync", {"agent_id": AGENT, "drain": True})
    assert state_of(a)["hot"]["identity"]["name"] == "newer-from-B"
    assert state_of(b)["hot"]["identity"]["name"] == "newer-from-B"


def test_purge_after_forget_survives_a_failed_push(tmp_path, sqld) -> None:
    from memoryd.sync.outbox import pending
    from memhelp import AgentMemory

    sqld.wipe()
    a, _ = first_device(tmp_path, sqld.http_url)
    for i in range(3):
        AgentMemory(a, AGENT).store(f"a secret numbered {i} that will be forgotten", "misc")
        push_now(a, AGENT)
    AgentMemory(a, AGENT).change(lambda s, now: s["warm"]["entries"].clear(), "forget")
    sqld.stop()
    try:
        assert push_now(a, AGENT, purge_history=True)["status"] == "queued"
    finally:
        sqld.start()
    assert pending(a, AGENT)["purge_history"] is True
    result = in_process(a).call("sync", {"agent_id": AGENT})  # the daemon's retry, whatever the backoff said
    assert result["status"] == "pushed" and pending(a, AGENT) is None
    with connect(a) as db:
        versions = [r[0] for r in db.execute("SELECT version FROM critical_versions WHERE agent_id = ?", [AGENT]).rows]
    assert versions == [result["version"]]
