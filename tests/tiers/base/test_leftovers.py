"""Temp files of writers killed mid-write are removed from every folder memoryd writes, and only those."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from memoryd.tiers.base.atomic import FileLock, leftover_pid, remove_leftovers
from memhelp import AgentMemory


def dead_pid() -> int:
    """The pid of a process that has exited and been reaped."""
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def plant(folder: Path, name: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_bytes(b'{"partial')
    return path


def test_only_our_temp_names_count() -> None:
    assert leftover_pid(".state.json.tmp-123") == 123
    assert leftover_pid("..default.key.new-5.tmp-5") == 5
    assert leftover_pid(".hot.json.bak-9") == 9
    for name in ("state.json.tmp-1", ".lock", ".x.tmp-", ".x.tmp-12a", "notes.tmp-3", ".x.corrupt-20260101-4"):
        assert leftover_pid(name) is None, name


def test_a_live_writers_temp_file_stays(tmp_path: Path) -> None:
    gone = plant(tmp_path, f".state.json.tmp-{dead_pid()}")
    mine = plant(tmp_path, f".state.json.tmp-{os.getpid()}")  # another thread of ours may be writing it
    live = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        theirs = plant(tmp_path, f".base.json.tmp-{live.pid}")
        user = plant(tmp_path, "notes.tmp-1")
        assert remove_leftovers(tmp_path) == 1
        assert not gone.exists() and mine.exists() and theirs.exists() and user.exists()
    finally:
        live.kill()
        live.wait()


def test_a_lock_sweeps_its_folder_and_unlocked_subfolders_once(tmp_path: Path) -> None:
    pid = dead_pid()
    sync = tmp_path / "agents" / "a" / "sync"
    files = [plant(sync, f".state.json.tmp-{pid}"), plant(sync, f".base.json.tmp-{pid}"),
             plant(sync / "outbox", f".pending.json.tmp-{pid}")]
    other = plant(tmp_path / "agents" / "a" / "sync" / "locked", f".x.json.tmp-{pid}")
    (other.parent / ".lock").touch()  # a folder with its own lock is swept by that lock's holder
    lock = FileLock(sync / ".lock")
    with lock.held():
        assert not any(f.exists() for f in files)
        assert other.exists()
        late = plant(sync, f".state.json.tmp-{pid}")
    with lock.held():
        assert late.exists()  # once per lock object: a long-lived daemon does not rescan on every hold
    assert FileLock(sync / ".lock", sweep=False).acquire() and late.exists()


def test_agent_memory_sweeps_the_agent_its_sync_folder_and_its_key_files(config) -> None:
    pid = dead_pid()
    agent_dir = config.agent_dir("default")
    keys = config.key_path("default").parent
    files = [plant(agent_dir, f".hot-memory-state.json.tmp-{pid}"), plant(agent_dir / "sync" / "outbox",
                                                                        f".pending.json.tmp-{pid}"),
             plant(keys, f".default.key.new-{pid}"), plant(keys, f"..default.key.new-{pid}.tmp-{pid}")]
    other_agent = plant(keys, f".other.key.new-{pid}")
    AgentMemory(config, "default").init()
    assert not any(f.exists() for f in files)
    assert other_agent.exists()  # another agent's key: swept by that agent, under its lock
    (agent_dir / "sync" / ".lock").touch()
    sync_left = plant(agent_dir / "sync", f".state.json.tmp-{pid}")
    AgentMemory(config, "default").init()
    assert sync_left.exists()  # sync/ has its own lock now: the agent's lock leaves it to that
    with FileLock(agent_dir / "sync" / ".lock").held():
        assert not sync_left.exists()

