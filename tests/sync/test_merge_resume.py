"""A sync killed between writing a merge to the tier files and base.json is finished by the next sync
(resume_merge). What the device did in between is its own edit and must survive that finish — including
the removal of an item the merge had written from an edit its stamp never saw (found by the fault suite:
a tree node removed by an acknowledged `tree remove` came back on every device)."""
from __future__ import annotations

import subprocess
from pathlib import Path

from clihelp import MEMORYD
from memhelp import AgentMemory
from memoryd.sync.critical import pull_now, push_now
from memoryd.sync.device_files import SyncFiles

from synchelp import AGENT, device, env_for, first_device, run_py, state_of

# One sync's merge, in a process of its own: an edit lands after the sync stamped the device's files
# (the daemon's sync runs beside the CLI) and before it merges what the other device pushed; the merge
# writes the tier files and the process is killed before base.json (MEMORYD_TEST_HALT=sync:merged).
MERGE_KILLED = """
from memoryd.sync.critical import absorb, stamp_local
from memoryd.sync.device_files import SyncFiles
from memoryd.sync.session import Session
from memoryd.tiers.base.config import load_config
from memoryd.tiers.memory.agent import AgentMemory
from memoryd.tiers.memory.tree import add_node

config, other = load_config(), load_config({"MEMORYD_HOME": OTHER})
s = Session(config, "ag")
stamp_local(s)
AgentMemory(config, "ag").change(lambda st, now: add_node(st["tree"], "work/late", "added mid-sync", now), "test")
remote = SyncFiles(other, "ag").base()["replica"]
absorb(s, remote, s.files.base()["version"])
"""


def _merge_killed(other) -> str:
    return MERGE_KILLED.replace("OTHER", repr(str(other.home)))


def _tree(config) -> dict:
    return state_of(config)["tree"]["nodes"]


def _killed_mid_merge(tmp_path: Path, sqld):
    """Device a synced, device b pushed a change; a's sync of it killed between the tier files and base.json,
    after an edit of a's landed between its stamp and its merge. Returns (a, b)."""
    sqld.wipe()
    a, key = first_device(tmp_path, sqld.http_url)
    AgentMemory(a, AGENT).store("The staging database runs on port 5433", "infra/db")
    push_now(a, AGENT)
    b = device(tmp_path, "b", sqld.http_url, key)
    pull_now(b, AGENT)
    AgentMemory(b, AGENT).store("The release train leaves every second Tuesday", "projects/train")
    push_now(b, AGENT)
    run = run_py(_merge_killed(b), env_for(a, MEMORYD_TEST_HALT="sync:merged"), timeout=120)
    assert run.returncode == -9, run.stderr
    assert SyncFiles(a, AGENT).merging() is not None  # the merge is half done
    assert _tree(a)["work/late"][0] == "added mid-sync"  # its tier files are written
    return a, b


def _cli(config, *args: str) -> None:
    done = subprocess.run([MEMORYD, *args, "--agent-id", AGENT], env=env_for(config), capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr


def test_an_edit_after_a_killed_merge_survives_its_finish(tmp_path: Path, sqld) -> None:
    a, b = _killed_mid_merge(tmp_path, sqld)
    _cli(a, "tree", "remove", "work/late")
    push_now(a, AGENT)  # finishes the merge first, then pushes
    assert SyncFiles(a, AGENT).merging() is None
    assert "work/late" not in _tree(a)
    pull_now(b, AGENT)
    assert "work/late" not in _tree(b)
    assert _tree(a) == _tree(b)
    texts = {e["text"] for e in state_of(a)["warm"]["entries"]}
    assert "The release train leaves every second Tuesday" in texts  # the merge itself was finished


def test_an_edit_of_a_merged_item_after_the_kill_wins(tmp_path: Path, sqld) -> None:
    """The other side: an item the killed merge wrote and the device then changed keeps the change."""
    a, b = _killed_mid_merge(tmp_path, sqld)
    _cli(a, "tree", "add", "work/late", "changed after the crash")
    push_now(a, AGENT)
    pull_now(b, AGENT)
    assert _tree(a)["work/late"][0] == _tree(b)["work/late"][0] == "changed after the crash"
