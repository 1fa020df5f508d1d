"""kill -9 during `memoryd key rotate --reseal`, then the same command again: it resumes where it stopped and
every live memory ends up sealed under the new epoch, readable by the other device, the old keys gone."""
from __future__ import annotations

import json
import signal
import subprocess
import time

from memoryd.sync.critical import pull_now, push_now
from memoryd.sync.crypto.device_keys import load_ring
from memoryd.sync.remote.db import connect
from memoryd.tiers.cold.source import open_index

from clihelp import MEMORYD
from synchelp import AGENT, device, env_for, first_device

ROWS = 3000


def _fill(config) -> None:
    index = open_index(config)
    try:
        index.put(AGENT, [{"id": f"m{i:06d}", "text": f"archived fact {i} about the harbour crane {i % 97}",
                           "category": "misc", "importance": 0.5, "created_at": 1_700_000_000 + i, "metadata": {}}
                          for i in range(ROWS)])
    finally:
        index.close()


def _epochs(config) -> dict[int, int]:
    with connect(config) as db:
        rows = db.execute("SELECT epoch, COUNT(*) FROM memory_log WHERE agent_id = ? GROUP BY epoch", [AGENT]).rows
    return {int(e): int(n) for e, n in rows}


def test_kill_during_reseal_then_resume(tmp_path, sqld):
    sqld.wipe()
    a, key = first_device(tmp_path, sqld.http_url)
    b = device(tmp_path, "b", sqld.http_url, key)
    _fill(a)
    push_now(a, AGENT)
    pull_now(b, AGENT)
    assert _epochs(a) == {0: ROWS}
    env = env_for(a)
    proc = subprocess.Popen([MEMORYD, "key", "rotate", "--reseal", "--agent-id", AGENT, "--json"], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:  # wait until part, not all, of the log is under the new epoch
        moved = _epochs(a).get(1, 0)
        if 0 < moved < ROWS or proc.poll() is not None:
            break
        time.sleep(0.01)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    marker = a.agent_dir(AGENT) / "sync" / "reseal.json"
    assert marker.exists(), "killed before or after the reseal: the test did not interrupt it"
    halfway = _epochs(a)
    assert halfway.get(1, 0) < ROWS and sum(halfway.values()) >= ROWS  # nothing lost while interrupted
    done = subprocess.run([MEMORYD, "key", "rotate", "--reseal", "--agent-id", AGENT, "--json"], env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["resumed"] and report["epoch"] == 1 and report["dropped_epochs"] == [0]
    assert _epochs(a) == {1: ROWS} and not marker.exists()
    assert pull_now(b, AGENT)["status"] in ("current", "pulled")
    assert set(load_ring(b, AGENT).epochs) == {1} and not b.key_path(AGENT).exists()
    index = open_index(b)
    try:
        assert index.count(AGENT) == ROWS
    finally:
        index.close()
