"""Restore on a new device: MEMORYD_KEY/--key-file, refuse to overwrite, wrong key/tampering, --at, kill -9."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from datetime import datetime, timezone

import pytest
from click.testing import CliRunner

from memoryd.sync.critical import pull_now, push_now
from memoryd.sync.crypto.keys import export_recovery, fingerprint
from memoryd.sync.restore import parse_at, restore
from memoryd.sync.device_files import SyncFiles
from memhelp import AgentMemory
from memoryd.tiers.base.errors import UsageError

from synchelp import AGENT, device, env_for, first_device, sample, state_of, texts


def _cli():
    from memoryd.cli.main import cli

    return cli


@pytest.fixture
def cloud(tmp_path, sqld):
    sqld.wipe()
    a, key = first_device(tmp_path, sqld.http_url)
    sample(AgentMemory(a, AGENT))
    from memoryd.tiers.cold.source import open_index

    with open_index(a) as archive:  # device a's local index; the push seals these into the cloud log
        archive.put(AGENT, [{"id": f"c{i:015d}", "text": f"cold fact {i}", "category": "old", "importance": 0.2,
                             "created_at": 1_700_000_000 + i, "access_count": 0, "metadata": {}} for i in range(7)])
    assert push_now(a, AGENT)["cold"]["uploaded"] == 7
    return a, key


def test_restore_on_an_empty_home_with_memoryd_key(tmp_path, sqld, cloud):
    a, key = cloud
    b = device(tmp_path, "b", sqld.http_url)
    env = env_for(b, MEMORYD_KEY=export_recovery(key))
    result = CliRunner().invoke(_cli(), ["restore", "--agent-id", AGENT, "--json"], env=env)
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["cold_count"] == 7 and report["cold_reachable"] and report["version"] == 1
    assert report["key_fingerprint"] == fingerprint(key)
    assert state_of(b) == state_of(a)
    from memoryd.tiers.memory.status import agent_status

    assert agent_status(AgentMemory(b, AGENT))["cold"]["count"] == 7  # status shows it without a round trip
    md = (b.agent_dir(AGENT) / "MEMORY.md").read_text()
    assert "Claw" in md and "back up" in md
    assert b.key_path(AGENT).read_bytes() == key  # installed for later pushes
    # The restored device syncs on as a peer.
    AgentMemory(b, AGENT).store("after restore", "misc")
    assert push_now(b, AGENT)["status"] == "pushed"
    pull_now(a, AGENT)
    assert "after restore" in texts(a)


def test_refuses_to_overwrite_without_force(tmp_path, sqld, cloud):
    _, key = cloud
    b = device(tmp_path, "b", sqld.http_url, key)
    AgentMemory(b, AGENT).store("precious local fact", "misc")
    key_file = tmp_path / "key.txt"
    key_file.write_text(export_recovery(key) + "\n")
    args = ["restore", "--agent-id", AGENT, "--key-file", str(key_file)]
    result = CliRunner().invoke(_cli(), args, env=env_for(b))
    assert result.exit_code == 2 and "--force" in result.stderr
    assert "precious local fact" in texts(b)
    assert not (b.agent_dir(AGENT) / "sync").exists()  # a refused restore leaves nothing behind
    result = CliRunner().invoke(_cli(), [*args, "--force"], env=env_for(b))
    assert result.exit_code == 0, result.output
    assert "precious local fact" not in texts(b) and "Ada prefers green tea in the morning" in texts(b)


@pytest.mark.parametrize("damage", ["wrong-key", "tampered"])
def test_wrong_key_or_changed_byte_writes_nothing(tmp_path, sqld, cloud, damage):
    a, key = cloud
    if damage == "tampered":
        from memoryd.sync.remote.db import connect

        with connect(a) as db:
            data = db.execute("SELECT data FROM critical_state").scalar()
            db.execute("UPDATE critical_state SET data = ?, log = log + 1", [data[:-6] + ("AAAA" if data[-6:-2] != "AAAA" else "BBBB")
                                                              + data[-2:]])
        use = key
    else:
        use = os.urandom(32)
    b = device(tmp_path, "b", sqld.http_url)
    result = CliRunner().invoke(_cli(), ["restore", "--agent-id", AGENT],
                                env=env_for(b, MEMORYD_KEY=export_recovery(use)))
    assert result.exit_code == 1 and "wrong key or tampered" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert not b.agent_dir(AGENT).exists() and not b.key_path(AGENT).exists()  # not even a phantom agent


def test_bad_recovery_string_is_a_usage_error(tmp_path, sqld, cloud):
    b = device(tmp_path, "b", sqld.http_url)
    result = CliRunner().invoke(_cli(), ["restore", "--agent-id", AGENT], env=env_for(b, MEMORYD_KEY="mdk1-abcd-efgh"))
    assert result.exit_code == 2 and "recovery key" in result.stderr


def test_restore_an_older_version_and_it_sticks(tmp_path, sqld, cloud):
    a, key = cloud
    AgentMemory(a, AGENT).store("added in version two", "misc")
    push_now(a, AGENT, force=True)  # a forced push stores a snapshot (its version: the change's log seq)
    AgentMemory(a, AGENT).store("added in version three", "misc")
    push_now(a, AGENT, force=True)  # a moment later: versions carry milliseconds
    # An ISO time picks the newest version at or before it.
    from memoryd.sync.restore import list_versions

    at = {v["version"]: v["updated_at"] for v in list_versions(a, AGENT)}
    assert at[1] < at[2] < at[3]
    iso = datetime.fromtimestamp((at[2] + at[3]) / 2, timezone.utc).isoformat()  # between v2 and v3
    c = device(tmp_path, "c", sqld.http_url)
    assert restore(c, AGENT, key=key, at=iso)["restored_version"] == 2
    second = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(at[3]))  # as `versions` prints it: covers the second
    assert restore(device(tmp_path, "c2", sqld.http_url), AGENT, key=key, at=second)["restored_version"] == 3
    assert "added in version two" in texts(c) and "added in version three" not in texts(c)
    b = device(tmp_path, "b", sqld.http_url)
    old = restore(b, AGENT, key=key, at="1")
    assert old["restored_version"] == 1 and old["version"] == 3
    assert "added in version two" not in texts(b)
    # The rollback is a new change: pushing it makes every device agree on the old content.
    assert push_now(b, AGENT)["status"] == "pushed"
    pull_now(a, AGENT)
    assert "added in version two" not in texts(a) and state_of(a) == state_of(b)
    with pytest.raises(UsageError, match="no stored version 99"):
        restore(device(tmp_path, "d", sqld.http_url), AGENT, key=key, at="99")


def test_parse_at():
    assert parse_at("12") == ("version", 12)
    assert parse_at("2026-01-31T00:00:00Z") == ("time", 1769817600.0)
    assert parse_at("2026-01-31T00:00:00") == ("time", 1769817600.0)
    assert parse_at(None) is None
    for bad in ("yesterday", "0", "99999999999999999999", "9999-12-31T23:59:59-23:00"):
        with pytest.raises(UsageError):
            parse_at(bad)


_RESTORE_LOOP = """
import sys
from memoryd.tiers.base.config import load_config
from memoryd.sync.restore import restore
config = load_config()
print("ready", flush=True)
while True:
    restore(config, "ag", force=True)
"""


def test_kill_9_during_restore_leaves_no_torn_file_and_next_restore_completes(tmp_path, sqld, cloud):
    a, key = cloud
    mem = AgentMemory(a, AGENT)
    for i in range(60):
        mem.store(f"bulk fact number {i} about subsystem {i * 7} and its owner", f"bulk/b{i % 5}")
    push_now(a, AGENT)
    b = device(tmp_path, "b", sqld.http_url)
    env = env_for(b, MEMORYD_KEY=export_recovery(key))
    for delay in (0.05, 0.15, 0.3, 0.45):
        proc = subprocess.Popen([sys.executable, "-c", _RESTORE_LOOP], env=env, stdout=subprocess.PIPE, text=True)
        assert proc.stdout.readline().strip() == "ready"
        time.sleep(delay)
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
        for path in b.agent_dir(AGENT).glob("*.json"):
            json.loads(path.read_bytes())  # never torn
    # Whatever instant it died at, a plain restore (no --force) finishes the job.
    result = CliRunner().invoke(_cli(), ["restore", "--agent-id", AGENT], env=env)
    if result.exit_code == 2:  # the kill landed after a completed restore: the agent is whole already
        assert SyncFiles(b, AGENT).restoring() is None
    else:
        assert result.exit_code == 0, result.output
    assert state_of(b) == state_of(a)
    assert SyncFiles(b, AGENT).restoring() is None


def test_restore_after_init_replaces_the_unused_new_key(tmp_path, sqld, cloud):
    a, key = cloud
    b = device(tmp_path, "b", sqld.http_url)
    from memoryd.sync.crypto.keys import ensure_key

    ensure_key(b, AGENT)  # `memoryd init` on the new device made a key that never encrypted anything
    AgentMemory(b, AGENT).init()
    report = restore(b, AGENT, key=key)
    assert report["key_fingerprint"] == fingerprint(key) and b.key_path(AGENT).read_bytes() == key
    assert state_of(b) == state_of(a)


def test_cli_sync_json_and_human(tmp_path, sqld, cloud):
    a, _ = cloud
    AgentMemory(a, AGENT).store("one more thing", "misc")
    out = CliRunner().invoke(_cli(), ["sync", "--agent-id", AGENT, "--json"], env=env_for(a))
    assert out.exit_code == 0, out.output
    assert json.loads(out.stdout)["status"] == "pushed"
    out = CliRunner().invoke(_cli(), ["sync", "--agent-id", AGENT], env=env_for(a))
    assert out.exit_code == 0 and "in sync: v2 is current" in out.stdout
    out = CliRunner().invoke(_cli(), ["sync", "--force", "--agent-id", AGENT], env=env_for(a))
    assert out.exit_code == 0 and "pushed critical state v2" in out.stdout  # the snapshot of v2 written again


def test_cli_restore_list_shows_versions_without_restoring(tmp_path, sqld, cloud):
    a, _ = cloud
    AgentMemory(a, AGENT).store("one more fact", "misc")
    push_now(a, AGENT, force=True)
    b = device(tmp_path, "b", sqld.http_url)
    out = CliRunner().invoke(_cli(), ["restore", "--list", "--agent-id", AGENT, "--json"], env=env_for(b))
    assert out.exit_code == 0, out.output
    assert [v["version"] for v in json.loads(out.stdout)["versions"]] == [2, 1]
    human = CliRunner().invoke(_cli(), ["restore", "--list", "--agent-id", AGENT], env=env_for(b))
    assert human.stdout.startswith("v2") and "device" in human.stdout
    assert not (b.agent_dir(AGENT) / "hot-memory-state.json").exists()
