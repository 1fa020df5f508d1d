"""Devices converge through `memoryd sync` alone (the real console script against a real sqld): two
devices storing and syncing at once end identical; a forget reaches every device, every local index
and every older cloud version; `status` says how far behind/ahead a device was when it last looked."""
from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from memoryd.sync.crypto.seal import open_text
from memoryd.sync.remote.db import connect
from memoryd.tiers.cold.source import open_index
from memoryd.sync.device_files import KIND
from memoryd.tiers.base.config import Config

from sqld_server import SqldServer
from synchelp import AGENT, device, env_for, first_device, state_of

CLI = str(Path(sys.executable).with_name("memoryd"))
DAY = 86400.0

# One device's session: store a fact, then sync, 15 times (what a user with two devices does).
SESSION = """
import json, subprocess, sys
cli, name = sys.argv[1], sys.argv[2]
codes = []
for i in range(15):
    for args in (["store", f"device {name} fact {i}: the {name}{i} service listens on port {7000 + i}",
                  "--category", f"devices/{name}"], ["sync"]):
        run = subprocess.run([cli, *args, "--agent-id", "ag"], capture_output=True, text=True)
        codes.append([args[0], run.returncode, run.stderr.strip()[-300:]])
print(json.dumps(codes))
"""


@pytest.fixture
def server(private_sqld: SqldServer) -> SqldServer:
    return private_sqld


def memoryd(config: Config, *args: str, ok: bool = True) -> dict[str, Any]:
    """Run the console script on a device with --json; the parsed object (exit 0 required when `ok`)."""
    run = subprocess.run([CLI, *args, "--agent-id", AGENT, "--json"], env=env_for(config), capture_output=True,
                         text=True, timeout=120)
    assert not ok or run.returncode == 0, (args, run.returncode, run.stdout, run.stderr)
    assert "Traceback" not in run.stderr, run.stderr
    return json.loads(run.stdout)


def index_rows(config: Config) -> dict[str, tuple]:
    with open_index(config) as ix:
        return {e["id"]: (e["text"], e["category"], e["created_at"]) for e in ix.iter_entries(AGENT)}


def warm_texts(config: Config) -> set[str]:
    return {e["text"] for e in state_of(config)["warm"]["entries"]}


def cloud_plaintexts(server: SqldServer, key: bytes) -> list[str]:
    """Every stored critical-state version (current and history), decrypted."""
    db = connect(Config(home=Path("/nonexistent"), db_url=server.http_url))
    try:
        rows = [tuple(r) for r in db.execute("SELECT version, data FROM critical_versions WHERE agent_id = ? UNION "
                                             "SELECT version, data FROM critical_state WHERE agent_id = ?",
                                             [AGENT, AGENT]).rows]
    finally:
        db.close()
    return [open_text(key, data, agent_id=AGENT, kind=KIND, version=int(v)).decode("utf-8") for v, data in rows]


def test_two_devices_storing_and_syncing_at_once_end_identical(tmp_path: Path, server: SqldServer) -> None:
    a, key = first_device(tmp_path, server.http_url)
    b = device(tmp_path, "b", server.ws_url, key)  # the other device talks WebSocket
    procs = {name: subprocess.Popen([sys.executable, "-c", SESSION, CLI, name], env=env_for(cfg),
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for name, cfg in (("a", a), ("b", b))}
    for name, proc in procs.items():
        out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err
        codes = json.loads(out)
        assert [c for c in codes if c[0] == "store" and c[1] != 0] == [], codes  # every store acknowledged
        assert not [c for c in codes if "Traceback" in c[2]], codes
    final = [memoryd(cfg, "sync") for cfg in (a, b, a, b)]  # each device syncs twice more
    facts = {f"device {n} fact {i}: the {n}{i} service listens on port {7000 + i}" for n in "ab" for i in range(15)}
    assert warm_texts(a) == warm_texts(b) == facts
    assert state_of(a) == state_of(b)
    assert final[2]["version"] == final[3]["version"], final
    assert final[3]["status"] == "current" and final[2]["status"] == "current", final
    assert index_rows(a) == index_rows(b)
    for cfg in (a, b):  # both looked at the server last and found nothing to exchange
        check = memoryd(cfg, "status")["agents"][0]["sync"]
        assert check["check"]["behind"] == 0 and not check["check"]["ahead"], check
        assert check["check"]["remote_version"] == final[3]["version"] and time.time() - check["last_check"] < 60


def archive_old_fact(config: Config, text: str) -> str:
    """A fact stored 40 days ago and consolidated: it lives in the device's local index."""
    from memoryd.daemon.engine import Engine
    from memoryd.tiers.memory.consolidate import consolidate

    past = time.time() - 40 * DAY
    with Engine(config).memory(AGENT, clock=lambda: past) as mem:
        mid = mem.store(text, "locker", 0.3)["id"]
    with Engine(config).memory(AGENT) as mem:
        consolidate(mem, "quick")
    return mid


def test_a_forget_reaches_every_device_index_and_older_version(tmp_path: Path, server: SqldServer) -> None:
    a, key = first_device(tmp_path, server.http_url)
    b, c = (device(tmp_path, n, server.http_url, key) for n in "bc")
    cold_id = archive_old_fact(a, "the old locker code is 4711")
    warm_id = memoryd(a, "store", "the wifi password hint is the cat's name", "--category", "home")["id"]
    memoryd(a, "hot", "identity", "name", "Claw")
    for cfg in (a, b, c, a):
        memoryd(cfg, "sync")
    for cfg in (b, c):  # every device holds both: one in warm, one in its local index
        assert "the wifi password hint is the cat's name" in warm_texts(cfg)
        assert cold_id in index_rows(cfg)
    assert any("wifi password hint" in p for p in cloud_plaintexts(server, key))  # held by older versions

    memoryd(b, "forget", cold_id)
    memoryd(b, "forget", warm_id)
    for cfg in (b, a, c):
        memoryd(cfg, "sync")
    for cfg in (a, b, c):
        assert "the wifi password hint is the cat's name" not in warm_texts(cfg)
        assert cold_id not in index_rows(cfg) and warm_id not in index_rows(cfg)
        assert state_of(cfg)["hot"]["identity"] == {"name": "Claw"}  # the rest is untouched
    plain = cloud_plaintexts(server, key)
    assert plain and not any("wifi password hint" in p or "locker code" in p for p in plain)
    assert state_of(a) == state_of(b) == state_of(c)


def test_an_offline_edit_does_not_bring_a_forgotten_memory_back(tmp_path: Path, server: SqldServer) -> None:
    a, key = first_device(tmp_path, server.http_url)
    b = device(tmp_path, "b", server.http_url, key)
    text = "the staging database lives on host db7"
    mid = memoryd(a, "store", text, "--category", "infra")["id"]
    task = "rotate the staging credentials"
    memoryd(a, "hot", "task", task)
    memoryd(a, "sync")
    memoryd(b, "sync")
    task_id = state_of(b)["hot"]["active_context"]["tasks"][0]["id"]

    memoryd(a, "forget", mid)  # b is offline meanwhile, and edits both items
    memoryd(a, "forget", task_id)
    memoryd(b, "store", text, "--category", "infra", "--importance", "0.9")  # reinforces its existing copy
    memoryd(b, "hot", "task", task, "--status", "done")
    memoryd(b, "retrieve", "staging database")
    memoryd(b, "consolidate", "--mode", "full")
    for cfg in (b, a, b):
        memoryd(cfg, "sync")
    for cfg in (a, b):
        assert text not in warm_texts(cfg) and mid not in index_rows(cfg)
        assert state_of(cfg)["hot"]["active_context"]["tasks"] == []
    assert memoryd(b, "retrieve", "staging database")["results"] == []

    memoryd(b, "store", text, "--category", "infra")  # stored again, after it saw the forget: it stays
    for cfg in (b, a):
        memoryd(cfg, "sync")
    assert text in warm_texts(a) and text in warm_texts(b)


def test_an_offline_device_that_archived_the_item_drops_its_copy(tmp_path: Path, server: SqldServer) -> None:
    """b, offline, moves the item to its local index (queued for upload) while a forgets it."""
    a, key = first_device(tmp_path, server.http_url)
    b = device(tmp_path, "b", server.http_url, key)
    from memoryd.daemon.engine import Engine

    past = time.time() - 40 * DAY
    with Engine(a).memory(AGENT, clock=lambda: past) as mem:
        mid = mem.store("the printer on floor 3 needs toner X42", "office", 0.3)["id"]
    memoryd(a, "sync")
    memoryd(b, "sync")
    memoryd(a, "forget", mid)
    memoryd(b, "consolidate")  # b archives its (old, low-scored) copy and owes it to the cloud log
    assert mid in index_rows(b)
    for cfg in (b, a, b):
        memoryd(cfg, "sync")
    for cfg in (a, b):
        assert mid not in index_rows(cfg) and "toner" not in " ".join(warm_texts(cfg))


def test_status_says_how_far_behind_and_ahead_the_device_was(tmp_path: Path, server: SqldServer) -> None:
    a, key = first_device(tmp_path, server.http_url)
    b = device(tmp_path, "b", server.http_url, key)
    memoryd(a, "sync")
    start = memoryd(b, "sync")["version"]
    for i in range(3):  # a pushes three versions while b is away
        memoryd(a, "store", f"a fact number {i} while b was away", "--category", "notes")
        memoryd(a, "sync")
    archive_old_fact(b, "b archived this while offline")
    memoryd(b, "hot", "profile", "timezone", "UTC+8")
    before = time.time()
    memoryd(b, "sync")
    s = memoryd(b, "status")["agents"][0]["sync"]
    assert s["check"] == {"local_version": start, "remote_version": start + 3, "behind": 3, "pulled_rows": 0,
                          "uploaded": 1, "ahead": True}
    assert before <= s["last_check"] <= time.time()
    human = subprocess.run([CLI, "status", "--agent-id", AGENT], env=env_for(b), capture_output=True, text=True)
    assert "last check" in human.stdout and "behind by 3 version(s)" in human.stdout, human.stdout
    assert "ahead by unpushed edits and 1 archived change(s)" in human.stdout, human.stdout
    assert f"now in step at v{start + 4}" in human.stdout, human.stdout  # it pushed right after that look
    memoryd(a, "sync")  # a pulls b's archived memory: it was one log row behind
    assert memoryd(a, "status")["agents"][0]["sync"]["check"]["pulled_rows"] == 1
    server.stop()
    assert memoryd(b, "sync", ok=False)["error"]["code"] == "queued"
    after = memoryd(b, "status")["agents"][0]["sync"]
    assert after["last_check"] == s["last_check"]  # the server was not reached: no new look to report
    assert after["pending"] == 1
    server.start()


def test_a_copy_uploaded_after_the_forget_is_dropped_from_the_cloud(tmp_path: Path, server: SqldServer) -> None:
    """b archives its copy and uploads it (a forget's push, which does not pull) after a's forget reached
    the server: the server must not keep that ciphertext once b syncs."""
    from memoryd.daemon.engine import Engine
    from memoryd.sync.cloudlog import ref_of

    a, key = first_device(tmp_path, server.http_url)
    b = device(tmp_path, "b", server.http_url, key)
    past = time.time() - 40 * DAY
    with Engine(a).memory(AGENT, clock=lambda: past) as mem:
        mid = mem.store("the gate code of the old office is 1234", "office", 0.3)["id"]
    other = memoryd(a, "store", "an unrelated fact about lunch", "--category", "notes")["id"]
    for cfg in (a, b):
        memoryd(cfg, "sync")
    memoryd(a, "forget", mid)  # the forget row is on the server now
    memoryd(b, "consolidate")  # b, which has not pulled it, archives its old copy (queued for upload)
    memoryd(b, "forget", other)  # whose push uploads that copy, after the forget row
    db = connect(Config(home=Path("/nonexistent"), db_url=server.http_url))
    try:
        puts = lambda: db.execute("SELECT COUNT(*) FROM memory_log WHERE ref = ? AND kind = 'put'",  # noqa: E731
                                  [ref_of(key, AGENT, mid)]).rows[0][0]
        assert puts() == 1  # the race really happened
        for cfg in (b, a):
            memoryd(cfg, "sync")
        assert puts() == 0
    finally:
        db.close()
    for cfg in (a, b):
        assert mid not in index_rows(cfg) and "gate code" not in " ".join(warm_texts(cfg))


def test_a_fresh_fact_at_the_warm_cap_reaches_the_other_device(tmp_path: Path, server: SqldServer) -> None:
    """Warm is full of older, more important facts: a fact just stored stays in warm (its grace period)
    and syncs; with no grace (config.toml) it goes straight to the local index and still reaches b."""
    from memoryd.daemon.engine import Engine

    a, key = first_device(tmp_path, server.http_url)
    b = device(tmp_path, "b", server.http_url, key)
    two_days_ago = time.time() - 2 * DAY
    with Engine(a).memory(AGENT, clock=lambda: two_days_ago) as mem:
        mem.store_many([(f"older important fact {i:03d} " + "k" * 380, "notes", 0.9, None) for i in range(140)])
    assert index_rows(a), "warm must be at its cap"
    fresh = memoryd(a, "store", "a minor but fresh note about the printer", "--category", "office")
    assert "note" not in fresh  # it stayed in warm; an older fact made room
    for cfg in (a, b):
        memoryd(cfg, "sync")
    assert "a minor but fresh note about the printer" in warm_texts(b)

    a.home.joinpath("config.toml").write_text("[warm]\ngrace_hours = 0\n")
    gone = memoryd(a, "store", "another minor note, stored without a grace period" + " detail" * 80,
                   "--category", "office", "--importance", "0.05")  # too big for what is left of the cap
    assert gone["tier"] == "cold" and gone.get("note"), gone  # the store says where the fact went
    rows = [json.loads(line) for line in (a.agent_dir(AGENT) / "evictions.jsonl").read_text().splitlines()]
    assert any(r["id"] == gone["id"] and r.get("to") == "cold" for r in rows)  # and so does the eviction log
    assert gone["id"] in index_rows(a)  # durable in the local index before the command returned
    for cfg in (a, b):
        memoryd(cfg, "sync")
    assert gone["id"] in index_rows(b) and index_rows(a) == index_rows(b)
    sa, sb = state_of(a), state_of(b)  # (warm's order on disk follows each device's own grace setting)
    key = lambda e: e["id"]  # noqa: E731
    assert sorted(sa["warm"]["entries"], key=key) == sorted(sb["warm"]["entries"], key=key)
    assert (sa["hot"], sa["tree"]) == (sb["hot"], sb["tree"])


# A sync killed (SIGKILL, from inside: a fixed point) after the merge reached the tier files but before
# base.json recorded it (save_replica: base.json, alone or as save_base's first half).
KILLED_MERGE = """
import os, signal
from memoryd.sync import critical, device_files as syncstate
from memoryd.tiers.base.config import load_config
written = []
real_write, real_save = critical.write_local, syncstate.SyncFiles.save_replica
def write_local(*args, **kw):
    written.append(1)
    return real_write(*args, **kw)
def save_replica(self, *args, **kw):
    if written:
        os.kill(os.getpid(), signal.SIGKILL)
    return real_save(self, *args, **kw)
critical.write_local, syncstate.SyncFiles.save_replica = write_local, save_replica
critical.pull_now(load_config(), "ag")
"""


def test_a_merge_killed_half_way_does_not_pass_other_devices_values_off_as_newer(tmp_path: Path,
                                                                              server: SqldServer) -> None:
    from memoryd.daemon.engine import Engine
    from memoryd.daemon.ops_sync import stamp_edits
    from memoryd.tiers.memory import hot

    a, key = first_device(tmp_path, server.http_url)
    b = device(tmp_path, "b", server.http_url, key)

    def profile(cfg: Config, value: str) -> None:
        with Engine(cfg).memory(AGENT) as mem:
            mem.change(lambda s, now: hot.set_profile(s["hot"], "editor", value), "test")
        stamp_edits(cfg, AGENT)

    for cfg in (a, b):
        memoryd(cfg, "sync")
    profile(b, "vim")
    memoryd(b, "sync")
    killed = subprocess.run([sys.executable, "-c", KILLED_MERGE], env=env_for(a), capture_output=True, text=True)
    assert killed.returncode == -9, killed.stderr
    assert state_of(a)["hot"]["owner_profile"] == {"editor": "vim"}  # the files got the merge, base.json did not
    profile(b, "emacs")  # b's later edit
    for cfg in (b, a, b, a):
        memoryd(cfg, "sync")
    assert state_of(a)["hot"]["owner_profile"] == state_of(b)["hot"]["owner_profile"] == {"editor": "emacs"}
