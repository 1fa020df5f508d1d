"""Devices on a real sqld primary + replica (tests/sqld_cluster.py): a device writes through the node it is
given (the replica forwards writes to the primary) and reads from it; a write shows on the replica once
replicated; a replica killed mid-sync, stopped or behind costs time only, nothing is lost; restore from it."""
from __future__ import annotations

import threading
from pathlib import Path

import pytest

from memoryd.sync.critical import pull_now, push_now
from memoryd.sync.restore import restore
from memoryd.tiers.base.config import Config
from memoryd.tiers.cold.source import open_index

from memhelp import AgentMemory
from sqld_cluster import SqldCluster
from synchelp import AGENT, device, first_device, sample, state_of
from waiting import eventually

pytestmark = pytest.mark.usefixtures("keyword_mode")


def memories(config: Config) -> set[str]:
    """Every memory text a device holds: warm and its local index (cold)."""
    with open_index(config) as ix:
        cold = {e["text"] for e in ix.iter_entries(AGENT)}
    return {e["text"] for e in state_of(config)["warm"]["entries"]} | cold


def cold_ids(config: Config) -> set[str]:
    with open_index(config) as ix:
        return {e["id"] for e in ix.iter_entries(AGENT)}


def on_replica(tmp_path: Path, cluster: SqldCluster, key: bytes, name: str = "b") -> Config:
    """A device reading from the replica, restored from it once the replica holds the first push."""
    cluster.wait_caught_up()
    config = device(tmp_path, name, cluster.replica.http_url)
    restore(config, AGENT, key=key)
    return config


def test_devices_write_through_either_node_and_read_from_their_own(tmp_path: Path, sqld_cluster: SqldCluster) -> None:
    a, key = first_device(tmp_path, sqld_cluster.primary.http_url)
    sample(AgentMemory(a, AGENT), " a")
    assert push_now(a, AGENT)["status"] == "pushed"
    b = on_replica(tmp_path, sqld_cluster, key)
    assert state_of(b) == state_of(a)

    AgentMemory(b, AGENT).store("Written through the replica: the backup runs at 02:00", "ops/backup")
    pushed = push_now(b, AGENT)
    assert pushed["status"] == "pushed" and pushed["round_trips"] <= 3
    assert pull_now(a, AGENT)["status"] == "pulled"  # a reads the primary: the replica forwarded b's write
    assert "Written through the replica: the backup runs at 02:00" in memories(a)

    AgentMemory(a, AGENT).store("Written through the primary: the VPN moved to port 1194", "ops/vpn")
    assert push_now(a, AGENT)["status"] == "pushed"
    sqld_cluster.wait_caught_up()  # the event: the replica has applied every frame the primary holds
    assert pull_now(b, AGENT)["status"] == "pulled"
    assert state_of(b) == state_of(a) and memories(b) == memories(a)


def test_a_device_on_the_replica_reads_its_write_once_replicated(tmp_path: Path, sqld_cluster: SqldCluster) -> None:
    a, key = first_device(tmp_path, sqld_cluster.primary.http_url)
    assert push_now(a, AGENT, force=True)["status"] == "pushed"
    b = on_replica(tmp_path, sqld_cluster, key)
    AgentMemory(b, AGENT).store("Ada's laptop is the grey ThinkPad", "people/ada")
    assert push_now(b, AGENT)["status"] == "pushed"
    sqld_cluster.wait_caught_up()
    assert pull_now(b, AGENT)["status"] == "current"  # nothing newer, nothing of its own to send again
    c = on_replica(tmp_path, sqld_cluster, key, "c")
    assert "Ada's laptop is the grey ThinkPad" in memories(c) and state_of(c) == state_of(b)


def test_replica_killed_mid_sync_costs_time_and_loses_nothing(tmp_path: Path, sqld_cluster: SqldCluster) -> None:
    a, key = first_device(tmp_path, sqld_cluster.primary.http_url)
    assert push_now(a, AGENT, force=True)["status"] == "pushed"
    b = on_replica(tmp_path, sqld_cluster, key)
    statuses: list[str] = []
    stored: list[str] = []
    done, restarted = threading.Event(), threading.Event()

    def conversations() -> None:  # b stores and syncs through the replica until told to stop
        mem = AgentMemory(b, AGENT)
        for i in range(200):
            if done.is_set():
                return
            stored.append(f"replica outage note {i}: host r{i} answers on port {6000 + i}")
            mem.store(stored[-1], "ops/outage")
            statuses.append(push_now(b, AGENT)["status"])
            if statuses[-1] == "queued":
                restarted.wait(60)  # the outbox's retry comes later: here, once the replica is back

    worker = threading.Thread(target=conversations)
    worker.start()
    try:
        eventually(lambda: "pushed" in statuses, what="a first push through the replica")
        sqld_cluster.replica.kill()
        eventually(lambda: "queued" in statuses, timeout=30, what="a push queued while the replica is down")
        sqld_cluster.restart_replica()
        restarted.set()
        queued_at = statuses.index("queued")
        eventually(lambda: "pushed" in statuses[queued_at:], timeout=30, what="a push after the restart")
    finally:
        done.set()
        restarted.set()
        worker.join(60)
    assert not worker.is_alive()
    assert push_now(b, AGENT)["status"] in ("pushed", "merged", "unchanged")  # the outbox drains
    assert pull_now(a, AGENT)["status"] in ("pulled", "current")
    assert set(stored) <= memories(a)
    sqld_cluster.wait_caught_up()
    pull_now(b, AGENT)
    assert state_of(b) == state_of(a) and memories(b) == memories(a)


def test_a_replica_stopped_and_behind_costs_time_only(tmp_path: Path, sqld_cluster: SqldCluster) -> None:
    a, key = first_device(tmp_path, sqld_cluster.primary.http_url)
    sample(AgentMemory(a, AGENT))
    push_now(a, AGENT)
    b = on_replica(tmp_path, sqld_cluster, key)
    sqld_cluster.replica.stop()
    for n in range(3):  # the primary moves on while the replica is away
        AgentMemory(a, AGENT).store(f"while the replica was down {n}: rotate the token of service s{n}", "ops/tokens")
        assert push_now(a, AGENT)["status"] == "pushed"
    AgentMemory(b, AGENT).store("b wrote this offline: the printer is on floor 3", "office")
    assert push_now(b, AGENT)["status"] == "queued"
    sqld_cluster.replica.start()  # serving again, possibly behind the primary for a moment
    assert pull_now(b, AGENT)["status"] in ("pushed", "merged")  # a stale read only costs a conflict
    sqld_cluster.wait_caught_up()
    pull_now(a, AGENT)
    pull_now(b, AGENT)
    assert state_of(b) == state_of(a)
    assert "b wrote this offline: the printer is on floor 3" in memories(a)
    assert {f"while the replica was down {n}: rotate the token of service s{n}" for n in range(3)} <= memories(b)


def test_restore_from_the_replica(tmp_path: Path, sqld_cluster: SqldCluster) -> None:
    a, key = first_device(tmp_path, sqld_cluster.primary.http_url)
    sample(AgentMemory(a, AGENT))
    with open_index(a) as archive:  # archived memories: the push seals them into the cloud log
        archive.put(AGENT, [{"id": f"r{i:015d}", "text": f"archived fact {i}", "category": "old", "importance": 0.2,
                             "created_at": 1_700_000_000 + i, "access_count": 0, "metadata": {}} for i in range(40)])
    assert push_now(a, AGENT)["cold"]["uploaded"] == 40
    c = on_replica(tmp_path, sqld_cluster, key, "c")
    assert state_of(c) == state_of(a)
    assert cold_ids(c) == cold_ids(a) and len(cold_ids(c)) == 40


def test_devices_racing_to_create_the_schema_through_the_replica_all_see_it(tmp_path: Path,
                                                                             sqld_cluster: SqldCluster) -> None:
    """The loser of the race learns of the winner's migration from a read the replica may not have replayed
    yet: it waits for it instead of failing (the fleet's first sync of a new agent did, in CI)."""
    from memoryd.sync.remote.db import connect
    from memoryd.sync.remote.schema import SCHEMA_VERSION, current_version, ensure_schema

    config = device(tmp_path, "racer", sqld_cluster.replica.http_url)
    dbs = [connect(config) for _ in range(12)]
    start = threading.Barrier(len(dbs))
    versions: list[int] = []
    failures: list[BaseException] = []

    def migrate(db) -> None:  # type: ignore[no-untyped-def]
        start.wait()
        try:
            versions.append(ensure_schema(db))
        except BaseException as exc:  # noqa: BLE001 - reported below
            failures.append(exc)

    threads = [threading.Thread(target=migrate, args=(db,)) for db in dbs]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    try:
        assert not failures, failures[0]
        assert versions == [SCHEMA_VERSION] * len(dbs)
        assert current_version(dbs[0]) == SCHEMA_VERSION
    finally:
        for db in dbs:
            db.close()
