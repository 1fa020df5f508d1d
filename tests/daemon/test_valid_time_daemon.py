"""The daemon's scheduled consolidation runs on MEMORYD_CLOCK_FILE: what was said long enough before that clock
leaves warm by its said age (valid time), through the real daemon process and its catch-up."""
from __future__ import annotations

import json
import time
from pathlib import Path

from clock import wait_for
from test_daemon_process import daemon, env, init_agent  # noqa: F401 - the real daemon's fixtures

DAY = 86400.0


def test_scheduled_consolidation_decays_by_said_age_on_the_test_clock(env, daemon, tmp_path):  # noqa: F811
    from memoryd.daemon.api import in_process
    from memoryd.tiers.base.config import load_config

    init_agent(env)
    t0 = time.time()
    said = time.strftime("%Y-%m-%d", time.gmtime(t0 - 20 * DAY))
    api = in_process(load_config(env))
    old = api.store(agent_id="default", text="The staging database moved to db-7.internal", category="infra",
                    metadata={"date": said})
    new = api.store(agent_id="default", text="The release train leaves on Thursdays", category="infra")
    api.close()
    agent = Path(env["MEMORYD_HOME"]) / "agents" / "default"
    ids = lambda: {e["id"] for e in json.loads((agent / "warm-memory.json").read_text())["entries"]}  # noqa: E731
    assert {old["id"], new["id"]} <= ids()  # said 20 days ago: still warm today

    clock = tmp_path / "clock"
    clock.write_text(str(t0 + 15 * DAY))  # the daemon starts 15 days on: 35 days after it was said
    env["MEMORYD_CLOCK_FILE"] = str(clock)
    d = daemon().start()  # never consolidated: the catch-up runs every mode once, on that clock
    jobs = wait_for(lambda: (j := d.info()["jobs"])["daily"]["runs"] and j, timeout=60)
    assert jobs["daily"]["last_error"] is None
    assert d.stop() == 0
    metrics = json.loads((agent / "metrics.json").read_text())
    assert metrics["runs"]["daily"]["last_start"] >= t0 + 15 * DAY
    assert old["id"] not in ids() and new["id"] in ids()  # 15 days old by the clock: kept
    evicted = [json.loads(line) for line in (agent / "evictions.jsonl").read_text().splitlines()]
    assert any(r.get("id") == old["id"] and "said over 30 days ago" in r.get("why", "") for r in evicted)
