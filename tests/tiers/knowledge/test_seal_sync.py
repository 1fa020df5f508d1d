"""Sealing across two devices on a real sqld: the summary and its sealed members travel through the encrypted
cloud log; a forget of the summary on one device gives the members back on the other at its next seal."""
from __future__ import annotations

import time
from pathlib import Path

import pytest

from memoryd.daemon.engine import Engine
from memoryd.sync.critical import pull_now
from memoryd.tiers.cold.source import open_index
from memoryd.tiers.knowledge.kinds import SEALED_IN_KEY, SUMMARISES_KEY
from memoryd.tiers.knowledge.seal import UNSEALED_KEY, seal
from memoryd.tiers.memory.forget import forget_id
from memoryd.tiers.memory.model import DAY
from sqld_server import SqldServer
from synchelp import AGENT, device, first_device


@pytest.fixture
def server(private_sqld: SqldServer) -> SqldServer:
    return private_sqld


def _meta(config, ids: list[str]) -> dict[str, dict]:
    with open_index(config) as ix:
        return {e["id"]: e["metadata"] for e in ix.get(AGENT, ids)}


def test_a_seal_and_its_undoing_reach_the_other_device(tmp_path: Path, server: SqldServer) -> None:
    a, key = first_device(tmp_path, server.http_url)
    b = device(tmp_path, "b", server.http_url, key)
    ids = [f"turn{i:02d}" for i in range(10)]
    with open_index(a) as ix:
        ix.put(AGENT, [{"id": mid, "category": "chats", "created_at": time.time() - 40 * DAY, "importance": 0.3,
                        "metadata": {"session_id": "trip"}, "text": f"Trip day {i}: the train to Kyoto left at 9:{i}0."}
                       for i, mid in enumerate(ids)])
    with Engine(a).memory(AGENT) as mem:
        assert seal(mem, time.time())["summaries"] == 1
    pull_now(a, AGENT)
    pull_now(b, AGENT)
    sid = _meta(b, ids[:1])[ids[0]][SEALED_IN_KEY]
    summary = _meta(b, [sid])[sid]
    assert summary[SUMMARISES_KEY] == ids and all(m[SEALED_IN_KEY] == sid for m in _meta(b, ids).values())
    with Engine(b).memory(AGENT) as mem:
        results = mem.retrieve("train to Kyoto day 3", limit=3)
        found = [r["id"] for r in results]
        member = results[found.index("turn03")]  # the member the words found tells its summary
        assert sid in found or member["summary"]["id"] == sid
    with Engine(a).memory(AGENT) as mem:
        forget_id(mem, sid)  # without the op's release: as an older device would forget it
    pull_now(a, AGENT)
    pull_now(b, AGENT)
    with Engine(b).memory(AGENT) as mem:
        assert seal(mem, time.time())["released"] == 10
    assert all(m.get(UNSEALED_KEY) == sid and SEALED_IN_KEY not in m for m in _meta(b, ids).values())
    pull_now(b, AGENT)
    pull_now(a, AGENT)
    assert all(m.get(UNSEALED_KEY) == sid for m in _meta(a, ids).values())
