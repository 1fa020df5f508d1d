"""Durable outbox: a push during a server outage is queued, survives a restart and drains with backoff."""
from __future__ import annotations

import random

import pytest
from click.testing import CliRunner

from memoryd.sync import outbox
from memoryd.sync.critical import pull_now, push_now
from memoryd.sync.device_files import SyncFiles
from memhelp import AgentMemory

from sqld_server import SqldServer, sqld_binary
from synchelp import AGENT, device, env_for, first_device, run_py, sample, state_of, texts


@pytest.fixture
def own_sqld(tmp_path):
    """A server of our own, so stopping it disturbs no other test."""
    (tmp_path / "sqld").mkdir()
    server = SqldServer(sqld_binary(), tmp_path / "sqld")
    server.start()
    yield server
    server.stop()


def test_backoff_grows_with_jitter_and_a_cap():
    rng = random.Random(7)
    delays = [outbox.backoff(n, rng) for n in range(1, 12)]
    for n, d in enumerate(delays, start=1):
        nominal = min(outbox.POLICY.cap, outbox.POLICY.base * 2 ** (n - 1))
        assert 0.5 * nominal <= d <= 1.5 * nominal
    assert len({round(outbox.backoff(3), 6) for _ in range(20)}) > 1  # jitter
    assert max(delays) <= 1.5 * outbox.POLICY.cap


def test_outage_queues_then_drains_after_restart(tmp_path, own_sqld):
    a, key = first_device(tmp_path, own_sqld.http_url)
    sample(AgentMemory(a, AGENT))
    assert push_now(a, AGENT)["status"] == "pushed"
    AgentMemory(a, AGENT).store("written while the server was down", "misc")
    own_sqld.kill()

    queued = push_now(a, AGENT)
    assert queued["status"] == "queued" and queued["pending"] == 1
    record = SyncFiles(a, AGENT).outbox()
    assert record["attempts"] == 1 and record["next_try"] > record["last_try"]
    assert outbox.pending_agents(a) == [AGENT]
    assert not outbox.is_due(outbox.pending(a, AGENT), now=record["last_try"])  # not due yet: no attempt made

    # The CLI says so and exits 1; a second failure counts another attempt.
    result = CliRunner().invoke(_cli(), ["sync", "--agent-id", AGENT], env=env_for(a))
    assert result.exit_code == 1 and "queued:" in result.stderr
    assert SyncFiles(a, AGENT).outbox()["attempts"] == 2
    assert SyncFiles(a, AGENT).state()["last_error"]

    own_sqld.start()
    # A fresh process (a restart) drains what the outbox holds.
    code = ("from memoryd.tiers.base.config import load_config; from memoryd.sync import outbox; import json;"
            "from memoryd.sync.critical import pull_now; config = load_config();"
            "print(json.dumps({agent: pull_now(config, agent) for agent in outbox.pending_agents(config)"
            " if outbox.is_due(outbox.pending(config, agent), now=1e12)}))")
    done = run_py(code, env_for(a))
    assert done.returncode == 0, done.stderr
    assert '"status": "pushed"' in done.stdout
    assert SyncFiles(a, AGENT).outbox() is None and outbox.pending_agents(a) == []

    b = device(tmp_path, "b", own_sqld.http_url, key)
    pull_now(b, AGENT)
    assert "written while the server was down" in texts(b)
    assert state_of(b) == state_of(a)


def test_status_reports_pending_and_last_error(tmp_path, own_sqld):
    from memoryd.sync.status import status_info

    a, _ = first_device(tmp_path, own_sqld.http_url)
    sample(AgentMemory(a, AGENT))
    own_sqld.kill()
    push_now(a, AGENT)
    info = status_info(a, AGENT)
    assert info["pending"] == 1 and info["outbox"]["attempts"] == 1
    assert "cannot reach" in info["last_error"] or "timed out" in info["last_error"]
    assert info["unpushed_changes"] is True
    own_sqld.start()
    assert push_now(a, AGENT)["status"] == "pushed"
    info = status_info(a, AGENT, remote=True)
    assert info["pending"] == 0 and info["last_error"] is None and not info["unpushed_changes"]
    assert [v["version"] for v in info["versions"]] == [1]


def _cli():
    from memoryd.cli.main import cli

    return cli
