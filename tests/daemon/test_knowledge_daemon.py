"""The daemon's daily job through the real scheduler: entities read, yesterday's digest stored, pages reflected."""
from __future__ import annotations

import json
import time
from pathlib import Path

from waiting import eventually
from test_daemon_process import daemon, env, init_agent  # noqa: F401 - the real daemon's fixtures


def test_daily_catch_up_writes_yesterdays_digest_and_pages(env, daemon, tmp_path):  # noqa: F811
    from memoryd.daemon.api import in_process
    from memoryd.tiers.base.config import load_config

    init_agent(env)
    api = in_process(load_config(env))
    for i in range(12):
        api.store(agent_id="default", text=f"Call {i} with Alice about the warelay project", category="work")
    api.close()
    t0 = time.time()
    clock = tmp_path / "clock"
    clock.write_text(str(t0 + 86400))  # the daemon starts "tomorrow": daily is overdue, yesterday is today
    env["MEMORYD_CLOCK_FILE"] = str(clock)
    d = daemon().start()
    jobs = eventually(lambda: (j := d.info()["jobs"])["daily"]["runs"] and j, timeout=60)
    assert jobs["daily"]["last_error"] is None
    agent = Path(env["MEMORYD_HOME"]) / "agents" / "default"
    page = eventually(lambda: (p := agent / "bank" / "entities" / "Alice.md").is_file() and p, timeout=30)
    assert "Call 11 with Alice" in page.read_text()
    warm = json.loads((agent / "warm-memory.json").read_text())["entries"]
    day = time.strftime("%Y-%m-%d", time.gmtime(t0))
    digests = [e for e in warm if e["metadata"].get("digest_date") == day]
    assert len(digests) == 1 and "Alice" in digests[0]["text"]
    assert d.stop() == 0
