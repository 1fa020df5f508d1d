"""What one pull costs against a real sqld: one round trip for the cloud log and the critical state together,
the files it replaces (state.json once, no cloud.json; nothing at all but state.json when nothing is new),
and a pull killed after its merge but before its cursor moved reads the same changes again, losing nothing."""
from __future__ import annotations

import os
import signal
import sys
import time
from collections import Counter
from pathlib import Path

from memoryd.daemon.engine import Engine
from memoryd.sync.critical import pull_now, push_now
from memoryd.sync.device_files import SyncFiles
from memoryd.tiers.base.config import Config
from memoryd.tiers.cold.source import open_index
from memoryd.tiers.memory.consolidate import consolidate
from memhelp import AgentMemory

from sqld_server import SqldServer
from synchelp import AGENT, device, env_for, first_device, run_py, sample, state_of

DAY = 86400.0
_renamed: list[str] = []  # names replaced (os.replace, os.rename) while a test listens
_listening = [False]


def _audit(event: str, args: tuple) -> None:
    if _listening[0] and event == "os.rename":
        _renamed.append(os.path.basename(os.fsdecode(args[1])))


sys.addaudithook(_audit)  # for the process's life: it only records while a test listens


def replaced_by(call) -> Counter:
    """How often each file name was atomically replaced while `call()` ran."""
    _renamed.clear()
    _listening[0] = True
    try:
        call()
    finally:
        _listening[0] = False
    return Counter(name for name in _renamed if not name.endswith(".bak"))


def archive(config: Config, text: str) -> None:
    """A fact stored 40 days ago and consolidated: it leaves warm for the local index (and the cloud log)."""
    past = time.time() - 40 * DAY
    with Engine(config).memory(AGENT, clock=lambda: past) as mem:
        mem.store(text, "notes", 0.3)
    with Engine(config).memory(AGENT) as mem:
        consolidate(mem, "quick")


def cold_texts(config: Config) -> set[str]:
    with open_index(config) as ix:
        return {e["text"] for e in ix.iter_entries(AGENT)}


def test_a_pull_is_one_round_trip_and_brings_the_cloud_log_with_it(tmp_path: Path, sqld: SqldServer) -> None:
    sqld.wipe()
    a, key = first_device(tmp_path, sqld.http_url)
    b = device(tmp_path, "b", sqld.http_url, key)
    pull_now(b, AGENT)  # the first look at an empty server creates the schema, enrols the device
    sample(AgentMemory(a, AGENT))
    archive(a, "The old build farm in the basement ran Jenkins 1.6")
    assert push_now(a, AGENT)["status"] == "pushed"
    pulled = pull_now(b, AGENT)
    assert pulled["status"] == "pulled" and pulled["round_trips"] == 1, pulled
    assert pulled["cold"]["pulled"]["rows"] >= 1
    assert "The old build farm in the basement ran Jenkins 1.6" in cold_texts(b)
    assert state_of(b) == state_of(a)
    again = pull_now(b, AGENT)
    assert (again["status"], again["round_trips"], again["cold"]["pulled"]["rows"]) == ("current", 1, 0)


def behind_by_a_conversation(tmp_path: Path, sqld: SqldServer) -> tuple[Config, Config]:
    """Devices a and b of one agent, in step, then a pushes a conversation b has not pulled."""
    sqld.wipe()
    a, key = first_device(tmp_path, sqld.http_url)
    b = device(tmp_path, "b", sqld.http_url, key)
    push_now(a, AGENT)
    pull_now(b, AGENT)
    sample(AgentMemory(a, AGENT))
    push_now(a, AGENT)
    return a, b


def test_a_pull_replaces_state_json_once_and_nothing_else_when_nothing_is_new(tmp_path: Path,
                                                                             sqld: SqldServer) -> None:
    a, b = behind_by_a_conversation(tmp_path, sqld)
    merged = replaced_by(lambda: pull_now(b, AGENT))
    assert merged["state.json"] == 1 and merged["base.json"] == 1 and merged["merging.json"] == 1, merged
    assert "cloud.json" not in merged and not SyncFiles(b, AGENT).path("cloud.json").exists()
    assert {"hot-memory-state.json", "warm-memory.json"} <= set(merged)
    assert replaced_by(lambda: pull_now(b, AGENT)) == Counter({"state.json": 1})
    # a local edit: cloud.json keeps what the log holds until the push that sends the edit ends
    AgentMemory(b, AGENT).store("Bob owns the billing service", "people/bob")
    pushed = replaced_by(lambda: push_now(b, AGENT))
    assert pushed["cloud.json"] == 1 and not SyncFiles(b, AGENT).path("cloud.json").exists()
    pull_now(a, AGENT)
    assert state_of(a) == state_of(b)


# A pull killed (SIGKILL, from inside) once its merge is in the tier files and base.json, as it moves its cursor.
KILLED_AT_CURSOR = """
import os, signal
from memoryd.sync import critical, device_files
from memoryd.tiers.base.config import load_config
merged = []
real_replica, real_state = device_files.SyncFiles.save_replica, device_files.SyncFiles.update_state
def save_replica(self, *args, **kw):
    merged.append(1)
    return real_replica(self, *args, **kw)
def update_state(self, **changes):
    if merged and "version" in changes:
        os.kill(os.getpid(), signal.SIGKILL)
    return real_state(self, **changes)
device_files.SyncFiles.save_replica, device_files.SyncFiles.update_state = save_replica, update_state
critical.pull_now(load_config(), "ag")
"""


def test_a_pull_killed_before_its_cursor_moved_reads_the_same_changes_again(tmp_path: Path,
                                                                           sqld: SqldServer) -> None:
    a, b = behind_by_a_conversation(tmp_path, sqld)
    cursor = SyncFiles(b, AGENT).state()["version"]
    killed = run_py(KILLED_AT_CURSOR, env_for(b))
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    files = SyncFiles(b, AGENT)
    assert files.state()["version"] == cursor and files.merging() is None  # merged; the cursor did not move
    assert state_of(b) == state_of(a)
    again = pull_now(b, AGENT)
    assert again["status"] in ("pulled", "pushed") and again["version"] > cursor
    assert state_of(b) == state_of(a)
    AgentMemory(a, AGENT).store("Ada moved the standup to 9:30", "people/ada")  # both still sync as before
    push_now(a, AGENT)
    pull_now(b, AGENT)
    assert state_of(b) == state_of(a) and pull_now(a, AGENT)["status"] == "current"
