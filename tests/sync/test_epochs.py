"""Key epochs on the real sqld: an old agent upgrades itself, a rotation seals new rows under a new key, a
reseal moves every live row to it and drops the old keys everywhere."""
from __future__ import annotations

import pytest

from memoryd.sync import epochs
from memoryd.sync.critical import pull_now, push_now
from memoryd.sync.crypto.device_keys import load_ring, store_path
from memoryd.sync.remote.db import connect
from memoryd.sync.reseal import reseal
from memoryd.sync.session import Session
from memhelp import AgentMemory

from synchelp import AGENT, device, first_device, sample, texts

from memoryd.tiers.cold.source import open_index


def _archive(config, n: int, tag: str) -> None:
    """n memories straight into the local index (as consolidation would leave them), queued for upload."""
    index = open_index(config)
    try:
        index.put(AGENT, [{"id": f"{tag}{i:05d}", "text": f"{tag} archived fact number {i}", "category": "misc",
                           "importance": 0.5, "created_at": 1_700_000_000 + i, "metadata": {}} for i in range(n)])
    finally:
        index.close()


def _log_epochs(config) -> dict[int, int]:
    with connect(config) as db:
        rows = db.execute("SELECT epoch, COUNT(*) FROM memory_log WHERE agent_id = ? GROUP BY epoch", [AGENT]).rows
    return {int(e): int(n) for e, n in rows}


def _cold_count(config) -> int:
    index = open_index(config)
    try:
        return index.count(AGENT)
    finally:
        index.close()


def test_old_agent_upgrades_itself_at_its_first_sync(tmp_path, sqld):
    sqld.wipe()
    a, key = first_device(tmp_path, sqld.http_url)
    b = device(tmp_path, "b", sqld.ws_url, key)
    assert not store_path(a, AGENT).exists()
    sample(AgentMemory(a, AGENT))
    assert push_now(a, AGENT)["status"] == "pushed"
    assert pull_now(b, AGENT)["status"] == "pulled"
    ring_a, ring_b = load_ring(a, AGENT), load_ring(b, AGENT)
    assert ring_a.registered and ring_b.registered and ring_a.device_id != ring_b.device_id
    assert ring_a.epochs == {0: key} == ring_b.epochs and ring_a.current == 0
    with connect(a) as db:
        wraps = db.execute("SELECT epoch, recipient FROM key_wraps WHERE agent_id = ? ORDER BY recipient",
                           [AGENT]).rows
    assert sorted(wraps) == sorted([(0, ring_a.device_id), (0, ring_b.device_id)])
    assert (store_path(a, AGENT).stat().st_mode & 0o777) == 0o600


def test_rotation_new_rows_under_new_epoch_old_rows_still_read(tmp_path, sqld):
    sqld.wipe()
    a, key = first_device(tmp_path, sqld.http_url)
    b = device(tmp_path, "b", sqld.http_url, key)
    _archive(a, 5, "old")
    sample(AgentMemory(a, AGENT))
    push_now(a, AGENT)
    pull_now(b, AGENT)
    s = Session(a, AGENT)
    try:
        assert epochs.start_epoch(s, "rotate") == 1
    finally:
        s.close()
    _archive(a, 3, "new")
    AgentMemory(a, AGENT).store("written after the rotation", "misc")
    assert push_now(a, AGENT)["status"] == "pushed"
    assert _log_epochs(a) == {0: 5, 1: 3}
    c = device(tmp_path, "c", sqld.http_url)  # no key at all: nothing to read with
    assert pull_now(b, AGENT)["status"] == "pulled"
    assert load_ring(b, AGENT).current == 1 and set(load_ring(b, AGENT).epochs) == {0, 1}
    assert "written after the rotation" in texts(b) and _cold_count(b) == 8
    del c


def test_reseal_moves_every_row_and_drops_old_keys(tmp_path, sqld):
    sqld.wipe()
    a, key = first_device(tmp_path, sqld.http_url)
    b = device(tmp_path, "b", sqld.http_url, key)
    _archive(a, 40, "m")
    sample(AgentMemory(a, AGENT))
    push_now(a, AGENT)
    pull_now(b, AGENT)
    report = reseal(a, AGENT)
    assert report["epoch"] == 1 and report["dropped_epochs"] == [0] and report["uploaded"] >= 40
    assert _log_epochs(a) == {1: 40}
    assert not a.key_path(AGENT).exists() and set(load_ring(a, AGENT).epochs) == {1}
    with connect(a) as db:
        assert db.execute("SELECT DISTINCT epoch FROM critical_versions WHERE agent_id = ?", [AGENT]).rows == [(1,)]
        assert db.execute("SELECT COUNT(*) FROM key_wraps WHERE agent_id = ? AND epoch = 0", [AGENT]).scalar() == 0
    assert pull_now(b, AGENT)["status"] in ("current", "pulled")
    assert set(load_ring(b, AGENT).epochs) == {1} and not b.key_path(AGENT).exists()
    AgentMemory(b, AGENT).store("b writes under epoch one", "misc")
    push_now(b, AGENT)
    pull_now(a, AGENT)
    assert "b writes under epoch one" in texts(a) and _cold_count(a) == 40


def test_reseal_with_nothing_interrupted_refuses_to_resume(tmp_path, sqld):
    sqld.wipe()
    a, _ = first_device(tmp_path, sqld.http_url)
    from memoryd.tiers.base.errors import UsageError

    with pytest.raises(UsageError, match="no interrupted reseal"):
        reseal(a, AGENT, start=False)


def test_a_device_that_missed_a_rotation_never_writes_under_the_old_epoch(tmp_path, sqld):
    sqld.wipe()
    a, key = first_device(tmp_path, sqld.http_url)
    b = device(tmp_path, "b", sqld.http_url, key)
    push_now(a, AGENT)
    pull_now(b, AGENT)
    s = Session(b, AGENT)
    try:
        epochs.start_epoch(s, "rotate")  # a's key store still says epoch 0
    finally:
        s.close()
    assert load_ring(a, AGENT).current == 0
    _archive(a, 7, "late")
    AgentMemory(a, AGENT).store("stored on a before it saw the rotation", "misc")
    assert push_now(a, AGENT)["status"] == "pushed"  # refused under epoch 0, then sealed again under 1
    assert _log_epochs(a) == {1: 7} and load_ring(a, AGENT).current == 1
    with connect(a) as db:
        assert db.execute("SELECT epoch FROM critical_log WHERE agent_id = ? ORDER BY seq DESC LIMIT 1",
                          [AGENT]).scalar() == 1  # the change went up under the new epoch


def test_an_old_single_key_cannot_restore_after_a_rotation(tmp_path, sqld):
    sqld.wipe()
    a, key = first_device(tmp_path, sqld.http_url)
    sample(AgentMemory(a, AGENT))
    push_now(a, AGENT)
    s = Session(a, AGENT)
    try:
        epochs.start_epoch(s, "rotate")
    finally:
        s.close()
    push_now(a, AGENT, force=True)
    from memoryd.sync.restore import restore
    from memoryd.tiers.base.errors import UsageError

    fresh = device(tmp_path, "n", sqld.http_url)
    with pytest.raises(UsageError, match="not enrolled"):
        restore(fresh, AGENT, key=key)
    assert not fresh.agent_dir(AGENT).exists()
