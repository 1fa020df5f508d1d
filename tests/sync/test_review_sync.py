"""Two devices on the real sqld agree on a review's answer: one member archived (the cloud log carries it), one in
warm (the critical state carries it); the other device's open question goes away and never comes back, its maintain
pass keeps the answer, and an undo on that device reopens the question on the first."""
from __future__ import annotations

import time
from pathlib import Path

import pytest

from memoryd.daemon.api import in_process
from memoryd.daemon.engine import Engine
from memoryd.sync.critical import pull_now
from memoryd.tiers.cold.source import open_index
from memoryd.tiers.knowledge import review
from memoryd.tiers.knowledge.maintain import maintain
from memoryd.tiers.memory.consolidate import consolidate

from sqld_server import SqldServer
from synchelp import AGENT, device, first_device

DAY = 86400.0


@pytest.fixture
def server(private_sqld: SqldServer) -> SqldServer:
    return private_sqld


def store(config, text: str, at: float) -> str:
    with Engine(config).memory(AGENT, clock=lambda: at) as mem:
        return mem.store(text, "notes", 0.5)["id"]


def sync(*configs) -> None:
    for config in configs:
        assert pull_now(config, AGENT)["status"] != "queued"


def questions(config) -> list[str]:
    with Engine(config).memory(AGENT) as mem:
        maintain(mem)
        return [q["id"] for q in review.open_questions(mem)]


def metadata(config, mid: str) -> dict:
    with Engine(config).memory(AGENT) as mem:
        warm = {e["id"]: e["metadata"] for e in mem.read_state()["warm"]["entries"]}
    if mid in warm:
        return warm[mid]
    with open_index(config) as ix:
        return ix.get(AGENT, [mid])[0]["metadata"]


def test_two_devices_agree_on_an_answer_and_its_undo(tmp_path: Path, server: SqldServer) -> None:
    a, key = first_device(tmp_path, server.http_url)
    b = device(tmp_path, "b", server.http_url, key)
    now = time.time()
    old = store(a, "The reading group meets at the Larch café", now - 50 * DAY)  # archived: the cloud log
    new = store(a, "The reading group now meets at the town library", now - 1 * DAY)  # warm: the critical state
    with Engine(a).memory(AGENT) as mem:
        consolidate(mem, "quick")
    with open_index(a) as ix:
        assert ix.get(AGENT, [old]), "the older member was not archived"
    sync(a, b)
    (qid,) = questions(a)
    assert questions(b) == [qid]  # the same question, the same id, derived on each device

    api = in_process(a)
    try:
        assert api.review_resolve(agent_id=AGENT, question_id=qid, action="current")["changed"] == sorted([old, new])
    finally:
        api.close()
    sync(a, b, a)
    assert questions(b) == [] and questions(a) == []
    for config in (a, b):
        meta = metadata(config, old)
        assert (meta["superseded_by"], meta["superseded_how"]) == (new, "review")
        assert meta[review.REVIEWED_KEY][qid]["action"] == "current"
        assert metadata(config, new)["supersedes"] == [old]

    api = in_process(b)  # the answer was given on a; b takes it back
    try:
        assert api.review_undo(agent_id=AGENT, question_id=qid)["undone"] == "current"
    finally:
        api.close()
    sync(b, a, b)
    for config in (a, b):
        assert "superseded_by" not in metadata(config, old) and review.REVIEWED_KEY not in metadata(config, new)
        assert questions(config) == [qid]
