"""Push/pull of the encrypted critical state against a real sqld (and file:): CAS, merge, crypto failures."""
from __future__ import annotations

import base64

import pytest

from memoryd.sync.critical import pull_now, push_now
from memoryd.sync.crypto.keys import ensure_key, import_key
from memoryd.sync.device_files import SyncFiles
from memhelp import AgentMemory
from memoryd.tiers.base.config import load_config
from memoryd.tiers.base.errors import CryptoError, UsageError

from synchelp import AGENT, device, first_device, sample, state_of, texts


def _db(config):
    from memoryd.sync.remote.db import connect

    return connect(config)


def test_round_trip_across_two_homes(tmp_path, db_url):
    a, key = first_device(tmp_path, db_url)
    sample(AgentMemory(a, AGENT))
    first = push_now(a, AGENT)
    assert first["status"] == "pushed" and first["version"] == 1
    b = device(tmp_path, "b", db_url, key)
    assert pull_now(b, AGENT)["status"] == "pulled"
    assert state_of(b) == state_of(a)
    assert (b.agent_dir(AGENT) / "MEMORY.md").read_text().count("Claw") == 1
    AgentMemory(b, AGENT).store("Bob owns the billing service", "people/bob")
    assert push_now(b, AGENT)["version"] == 2
    assert pull_now(a, AGENT)["status"] == "pulled"
    assert state_of(a) == state_of(b) and "Bob owns the billing service" in texts(a)


def test_unchanged_state_costs_no_round_trip(tmp_path, sqld):
    sqld.wipe()
    a, _ = first_device(tmp_path, sqld.http_url)
    sample(AgentMemory(a, AGENT))
    pushed = push_now(a, AGENT)
    assert pushed["status"] == "pushed"  # first use of the database also created the schema
    # With the server down, an unchanged state must not even try to connect.
    sqld.stop()
    try:
        again = push_now(a, AGENT)
    finally:
        sqld.start()
    assert again["status"] == "unchanged" and again["round_trips"] == 0 and again["bytes_sent"] == 0
    AgentMemory(a, AGENT).store("one more fact for the push", "misc")
    one = push_now(a, AGENT)
    assert one["status"] == "pushed" and one["round_trips"] == 1 and one["version"] == 2


def test_cloud_holds_only_ciphertext(tmp_path, sqld):
    sqld.wipe()
    a, _ = first_device(tmp_path, sqld.http_url)
    sample(AgentMemory(a, AGENT))
    push_now(a, AGENT)
    with _db(a) as db:
        data = db.execute("SELECT data FROM critical_state WHERE agent_id = ?", [AGENT]).scalar()
        history = db.execute("SELECT group_concat(data) FROM critical_versions").scalar()
    raw = base64.b64decode(data)
    assert raw[:4] == b"MDS1"
    for secret in (b"nginx", b"green tea", b"Claw", "nginx", "Claw"):
        assert secret not in (raw if isinstance(secret, bytes) else data)
        assert (secret if isinstance(secret, str) else secret.decode()) not in history


def _shared(tmp_path, sqld):
    sqld.wipe()
    a, key = first_device(tmp_path, sqld.http_url)
    sample(AgentMemory(a, AGENT))
    push_now(a, AGENT)
    return a, key


def test_wrong_key_fails_and_leaves_local_state_alone(tmp_path, sqld):
    a, _ = _shared(tmp_path, sqld)
    b = device(tmp_path, "b", sqld.http_url, bytes(32))
    AgentMemory(b, AGENT).store("local only fact", "misc")
    before = state_of(b)
    with pytest.raises(CryptoError, match="wrong key or tampered"):
        pull_now(b, AGENT)
    assert state_of(b) == before
    assert "wrong key" in SyncFiles(b, AGENT).state()["last_error"]


def test_tampered_row_is_refused(tmp_path, sqld):
    a, key = _shared(tmp_path, sqld)
    with _db(a) as db:
        data = db.execute("SELECT data FROM critical_state WHERE agent_id = ?", [AGENT]).scalar()
        i = len(data) // 2
        flipped = data[:i] + ("A" if data[i] != "A" else "B") + data[i + 1:]
        db.execute("UPDATE critical_state SET data = ?, log = log + 1 WHERE agent_id = ?", [flipped, AGENT])
    b = device(tmp_path, "b", sqld.http_url, key)
    with pytest.raises(CryptoError):
        pull_now(b, AGENT)
    assert state_of(b)["warm"]["entries"] == []


def test_row_moved_to_another_agent_or_version_is_refused(tmp_path, sqld):
    a, key = _shared(tmp_path, sqld)
    import_key(a, "other", key)
    AgentMemory(a, "other").init()
    AgentMemory(a, "other").store("other agent fact", "misc")
    push_now(a, "other")
    with _db(a) as db:  # copy agent ag's ciphertext over agent other's row (same key, same version)
        db.execute("UPDATE critical_state SET data = (SELECT data FROM critical_state WHERE agent_id = ?), "
                   "log = log + 1 WHERE agent_id = ?", [AGENT, "other"])
    b = device(tmp_path, "b", sqld.http_url, key, agent="other")
    with pytest.raises(CryptoError, match=r"agent other v\d"):
        pull_now(b, "other")
    with _db(a) as db:  # replay agent ag's v1 as v2
        db.execute("UPDATE critical_state SET version = 2, log = log + 1 WHERE agent_id = ?", [AGENT])
    c = device(tmp_path, "c", sqld.http_url, key)
    with pytest.raises(CryptoError, match="v2"):
        pull_now(c, AGENT)


def test_concurrent_pushes_merge_without_lost_update(tmp_path, sqld):
    a, key = _shared(tmp_path, sqld)
    b = device(tmp_path, "b", sqld.http_url, key)
    pull_now(b, AGENT)
    AgentMemory(a, AGENT).store("fact from device a", "misc")
    AgentMemory(b, AGENT).store("fact from device b", "misc")
    AgentMemory(b, AGENT).change(lambda s, now: s["hot"]["identity"].update(mood="calm"), "test")
    assert push_now(a, AGENT)["version"] == 2
    rb = push_now(b, AGENT)
    assert rb["status"] == "pushed" and rb["conflicts"] == 1 and rb["version"] == 3
    assert pull_now(a, AGENT)["status"] == "pulled"
    assert state_of(a) == state_of(b)
    assert {"fact from device a", "fact from device b"} <= texts(a)
    assert state_of(a)["hot"]["identity"]["mood"] == "calm"


def test_forget_on_one_device_is_not_resurrected(tmp_path, sqld):
    a, key = _shared(tmp_path, sqld)
    b = device(tmp_path, "b", sqld.http_url, key)
    pull_now(b, AGENT)
    victim = next(e for e in state_of(a)["warm"]["entries"] if "green tea" in e["text"])
    AgentMemory(a, AGENT).change(lambda s, now: s["warm"]["entries"].remove(
        next(e for e in s["warm"]["entries"] if e["id"] == victim["id"])), "forget")
    push_now(a, AGENT)
    AgentMemory(b, AGENT).store("unrelated new fact on b", "misc")  # b still holds the victim
    push_now(b, AGENT)
    pull_now(a, AGENT)
    for config in (a, b):
        assert all("green tea" not in t for t in texts(config))
    assert state_of(a) == state_of(b)


def test_history_keeps_last_30_versions(tmp_path, sqld):
    a, _ = _shared(tmp_path, sqld)
    for i in range(33):  # a forced push writes a snapshot, whose version is the last change it covers
        AgentMemory(a, AGENT).change(lambda s, now, i=i: s["hot"]["identity"].update(round=str(i)), "test")
        push_now(a, AGENT, force=True)
    with _db(a) as db:
        rows = db.execute("SELECT version FROM critical_versions WHERE agent_id = ? ORDER BY version",
                          [AGENT]).rows
    assert [r[0] for r in rows] == list(range(5, 35))


def test_lost_state_file_is_rebuilt_not_forgotten(tmp_path, sqld):
    a, _ = _shared(tmp_path, sqld)
    before = texts(a)
    mem = AgentMemory(a, AGENT)
    for p in (mem.files.path("warm"), mem.files.path("warm").with_name(mem.files.path("warm").name + ".bak")):
        p.unlink(missing_ok=True)
    assert push_now(a, AGENT)["status"] == "unchanged"
    assert texts(a) == before


def test_push_needs_an_initialised_agent(tmp_path, sqld):
    sqld.wipe()
    c = device(tmp_path, "c", sqld.http_url)
    with pytest.raises(UsageError, match="init"):
        push_now(c, AGENT)


def test_purge_history_after_forget_drops_older_versions(tmp_path, sqld):
    a, _ = _shared(tmp_path, sqld)
    for i in range(3):
        AgentMemory(a, AGENT).store(f"secret number {i}", "misc")
        push_now(a, AGENT)
    AgentMemory(a, AGENT).change(lambda s, now: s["warm"]["entries"].clear(), "forget")
    result = push_now(a, AGENT, purge_history=True)
    assert result["status"] == "pushed" and result["version"] == 5
    with _db(a) as db:
        rows = db.execute("SELECT version FROM critical_versions WHERE agent_id = ?", [AGENT]).rows
    assert [r[0] for r in rows] == [5]


def test_a_new_database_gets_the_whole_state(tmp_path, sqld):
    """Moving MEMORYD_DB_URL (e.g. from the embedded file to a server) is not 'nothing to push'."""
    sqld.wipe()
    local = load_config({"MEMORYD_HOME": str(tmp_path / "a"), "MEMORYD_DB_URL": f"file:{tmp_path / 'a.db'}"})
    key = ensure_key(local, AGENT)
    sample(AgentMemory(local, AGENT))
    assert push_now(local, AGENT)["status"] == "pushed"
    server = local.with_(db_url=sqld.http_url)
    moved = push_now(server, AGENT)
    assert moved["status"] == "pushed" and moved["version"] == 1
    b = device(tmp_path, "b", sqld.http_url, key)
    pull_now(b, AGENT)
    assert texts(b) == texts(local)
    back = push_now(local, AGENT)  # going back: the old database is met again and merged, nothing lost
    assert back["status"] in ("merged", "pushed") and texts(local) == texts(b)
