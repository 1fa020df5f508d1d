"""Two devices on the real sqld: kinds and confidence travel with warm and cold memories, and an old and a new value
stored on different devices end as one current truth on both, whatever the order they synced in."""
from __future__ import annotations

import time
from pathlib import Path

import pytest

from memoryd.daemon.engine import Engine
from memoryd.sync.critical import pull_now
from memoryd.tiers.cold.source import open_index
from memoryd.tiers.knowledge.maintain import maintain
from memoryd.tiers.memory.consolidate import consolidate
from memoryd.tiers.retrieval.filters import Filters

from sqld_server import SqldServer
from synchelp import AGENT, device, first_device

DAY = 86400.0


@pytest.fixture
def server(private_sqld: SqldServer) -> SqldServer:
    return private_sqld


def store(config, text: str, at: float, **meta) -> str:
    with Engine(config).memory(AGENT, clock=lambda: at) as mem:
        return mem.store(text, "notes", 0.5, meta or None)["id"]


def sync(*configs) -> None:
    for config in configs:
        assert pull_now(config, AGENT)["status"] != "queued"


def retrieve(config, query: str, **filters) -> list[dict]:
    with Engine(config).memory(AGENT) as mem:
        return mem.retrieve(query, filters=Filters(**filters))


def test_kind_and_confidence_travel_in_warm_and_in_the_cloud_log(tmp_path: Path, server: SqldServer) -> None:
    a, key = first_device(tmp_path, server.http_url)
    b = device(tmp_path, "b", server.http_url, key)
    now = time.time()
    op = store(a, "Ferries beat buses on the coast road", now, memory_kind="opinion", confidence=0.8)
    old = store(a, "I think the harbour market opens at dawn", now - 40 * DAY)  # a belief, archived to cold
    with Engine(a).memory(AGENT) as mem:
        consolidate(mem, "quick")
    with open_index(a) as ix:
        assert ix.get(AGENT, [old])[0]["metadata"]["memory_kind"] == "belief"
    sync(a, b)
    found = {r["id"]: r for r in retrieve(b, "ferries buses harbour market")}
    assert (found[op]["tier"], found[op]["kind"], found[op]["confidence"]) == ("warm", "opinion", 0.8)
    assert (found[old]["tier"], found[old]["kind"], found[old]["confidence"]) == ("cold", "belief", 0.6)
    assert [r["id"] for r in retrieve(b, "", kind="belief")] == [old]


@pytest.mark.parametrize("order", ["old first", "new first"])
def test_an_old_and_a_new_value_from_two_devices_converge(tmp_path: Path, server: SqldServer, order: str) -> None:
    a, key = first_device(tmp_path, server.http_url)
    b = device(tmp_path, "b", server.http_url, key)
    now = time.time()
    old_at, new_at = now - 50 * DAY, now - 45 * DAY  # both old enough to be archived: the cloud log carries them
    if order == "old first":
        old = store(a, "The garage code is 4417", old_at)
        new = store(b, "We changed the garage code from 4417 to 9931", new_at)
    else:
        new = store(b, "We changed the garage code from 4417 to 9931", new_at)
        old = store(a, "The garage code is 4417", old_at)
    for config in (a, b):
        with Engine(config).memory(AGENT) as mem:
            consolidate(mem, "quick")
    sync(b, a, b) if order == "new first" else sync(a, b, a)
    for config in (a, b):  # both found: no supersession is guessed at retrieve before a rule wrote it
        assert {r["id"] for r in retrieve(config, "garage code")} == {new, old}
    for config in (a, b):
        with Engine(config).memory(AGENT) as mem:
            assert maintain(mem)["superseded"] == 1
    sync(a, b, a, b)
    for config in (a, b):
        with Engine(config).memory(AGENT) as mem:
            assert maintain(mem)["written"] == 0  # the other device's rows already say the same
        with open_index(config) as ix:
            rows = {e["id"]: e["metadata"] for e in ix.iter_entries(AGENT)}
        assert rows[old]["superseded_by"] == new and rows[new]["supersedes"] == [old]
        found = retrieve(config, "garage code")
        assert [r["id"] for r in found][:2] == [new, old] and found[1]["superseded_by"] == new
