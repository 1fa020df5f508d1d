"""Two devices in two processes change the same agent and sync concurrently; they must converge, losing nothing."""
from __future__ import annotations

import json
import signal
import subprocess
import sys
import time

from memoryd.sync.critical import pull_now, push_now
from memhelp import AgentMemory
from memoryd.tiers.base.atomic import dumps

from synchelp import AGENT, device, env_for, first_device, state_of

DEVICE = """
import json, sys
from memoryd.tiers.memory import hot, warm
from memoryd.tiers.memory.agent import AgentMemory
from memoryd.tiers.cold.source import LazyIndex
from memoryd.tiers.base.config import load_config
from memoryd.sync.critical import push_now
name, n = sys.argv[1], int(sys.argv[2])
config = load_config()
mem = AgentMemory(config, "ag", archive=LazyIndex(config))
PAD = " (details: " + "configuration notes " * 8 + ")"

def change(state, now, i):
    kind = i % 4
    if kind in (0, 2):
        text = f"{name} observation {i}: service {name}{i} listens on port {8000 + i}" + PAD
        warm.add_or_reinforce(state["warm"], warm.new_entry(text, f"dev/{name}", 0.5, now, {"i": i}), now)
    elif kind == 1:
        hot.set_identity(state["hot"], f"{name}_k{i % 5}", f"value {i}")
    else:
        hot.add_event(state["hot"], f"{name} event {i}", now)

statuses = {"conflicts": 0}
for start in range(0, n, 10):  # ten changes per local write, then sync: a busy conversation
    mem.change(lambda s, now: [change(s, now, i) for i in range(start, start + 10)], "test")
    result = push_now(config, "ag")
    statuses[result["status"]] = statuses.get(result["status"], 0) + 1
    statuses["conflicts"] += result["conflicts"]
print(json.dumps(statuses))
"""


def _converge(configs, rounds: int = 10) -> int:
    for n in range(rounds):
        results = [pull_now(c, AGENT)["status"] for c in configs]
        if all(r in ("current", "pulled") for r in results) and len({dumps(state_of(c)) for c in configs}) == 1:
            return n
    raise AssertionError("devices did not converge")


def test_two_processes_200_changes_each_converge(tmp_path, sqld):
    sqld.wipe()
    a, key = first_device(tmp_path, sqld.http_url)
    b = device(tmp_path, "b", sqld.ws_url, key)  # the other device talks WebSocket
    started = time.monotonic()
    procs = {name: subprocess.Popen([sys.executable, "-c", DEVICE, name, "200"], env=env_for(c),
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for name, c in (("a", a), ("b", b))}
    outs = {name: p.communicate(timeout=120) for name, p in procs.items()}
    for name, p in procs.items():
        assert p.returncode == 0, outs[name][1]
    statuses = {name: json.loads(out[0]) for name, out in outs.items()}
    conflicts = statuses["a"].pop("conflicts") + statuses["b"].pop("conflicts")
    assert sum(statuses["a"].values()) == 20 and sum(statuses["b"].values()) == 20
    assert conflicts > 0, statuses  # the devices really did race each other
    _converge([a, b])
    elapsed = time.monotonic() - started
    sa, sb = state_of(a), state_of(b)
    assert sa == sb
    # Every fact is in warm, or was evicted by the 50 KB limit into a device's queue for cold.
    pad = " (details: " + "configuration notes " * 8 + ")"
    facts = {f"{n} observation {i}: service {n}{i} listens on port {8000 + i}{pad}"
             for n in "ab" for i in range(200) if i % 4 in (0, 2)}
    warm = {e["text"] for e in sa["warm"]["entries"]}
    from memoryd.tiers.cold.source import open_index as open_archive

    archive = open_archive(a)
    archived = {e["text"] for e in archive.iter_entries(AGENT)}
    archive.close()
    waiting = sum(AgentMemory(c, AGENT).archive.pending_uploads(AGENT) for c in (a, b))
    assert not waiting  # evicted entries reached the cloud log before any push announced their removal
    assert facts <= warm | archived, sorted(facts - warm - archived)[:5]
    assert len(facts - warm) > 0  # the 50 KB limit really evicted some
    assert len(dumps(sa["warm"])) <= 51200 and len(dumps(sa["hot"])) <= 5120
    # The newest value of every identity key from both devices; only the last 10 events (limit).
    for n in "ab":
        for k in range(5):
            last = max(i for i in range(200) if i % 4 == 1 and i % 5 == k)
            assert sa["hot"]["identity"][f"{n}_k{k}"] == f"value {last}"
    events = [e["text"] for e in sa["hot"]["active_context"]["events"]]
    assert len(events) == 10 and all(" event " in t for t in events)
    assert elapsed < 60


KILLER = """
import sys
from memoryd.tiers.memory.agent import AgentMemory
from memoryd.tiers.cold.source import LazyIndex
from memoryd.tiers.base.config import load_config
from memoryd.sync.critical import push_now
config = load_config()
mem = AgentMemory(config, "ag", archive=LazyIndex(config))
print("ready", flush=True)
i = 0
while True:
    mem.store(f"kill test fact {sys.argv[1]}-{i} about host h{i}", "kill/test")
    push_now(config, "ag")
    i += 1
"""


def test_kill_9_during_push_then_next_run_completes(tmp_path, sqld):
    sqld.wipe()
    a, key = first_device(tmp_path, sqld.http_url)
    for round_ in range(4):
        proc = subprocess.Popen([sys.executable, "-c", KILLER, str(round_)], env=env_for(a),
                                stdout=subprocess.PIPE, text=True)
        assert proc.stdout.readline().strip() == "ready"
        time.sleep(0.3 + 0.15 * round_)
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
        for path in list(a.agent_dir(AGENT).glob("*.json")) + list(a.agent_dir(AGENT).glob("sync/*.json")):
            json.loads(path.read_bytes())  # never torn
    # a push killed after the cloud took it looks like a concurrent change of our own: merging it is right
    assert push_now(a, AGENT)["status"] in ("pushed", "unchanged", "merged")
    assert push_now(a, AGENT)["status"] == "unchanged"
    b = device(tmp_path, "b", sqld.http_url, key)
    pull_now(b, AGENT)
    assert state_of(b) == state_of(a)
    from memoryd.tiers.cold.source import open_index as open_archive

    archive = open_archive(a)
    stored = {e["text"] for e in state_of(a)["warm"]["entries"]} | {
        e["text"] for e in AgentMemory(a, AGENT).archive.iter_entries(AGENT)}
    stored |= {e["text"] for e in archive.iter_entries(AGENT)}
    archive.close()
    assert sum(1 for t in stored if t.startswith("kill test fact")) >= 4
