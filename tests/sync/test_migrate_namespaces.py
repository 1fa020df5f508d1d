"""A single-database sqld with three devices of one agent (and a second agent) moved to a namespace per agent:
`memoryd namespace migrate` SIGKILLed mid-way and run again ends with every row in its namespace and none
left in the single database; then the three devices sync from the namespace, a fourth restores, all agree."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from memoryd.sync.crypto.keys import read_key_file
from memoryd.sync.migrate_namespaces import journal_path
from memoryd.sync.restore import restore
from memoryd.tiers.base.config import Config, load_config

from memhelp import AgentMemory
from sqld_server import SqldServer, namespaced, ns_pipeline as pipeline
from synchelp import AGENT, KEYWORD, device, env_for, first_device, sample, state_of, texts
from test_shred import archive

CLI = str(Path(sys.executable).with_name("memoryd"))
OTHER = "bob"


def run(config: Config, *args: str, env: dict[str, str] | None = None, agent: str = AGENT) -> dict[str, Any]:
    argv = [CLI, *args, "--json"] + (["--agent-id", agent] if args[0] != "namespace" else [])
    done = subprocess.run(argv, env=env or env_for(config), capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, (args, done.returncode, done.stdout, done.stderr)
    return json.loads(done.stdout)


def operator_env(tmp_path: Path, server: SqldServer) -> dict[str, str]:
    """The operator's machine: a full-access token and the admin API."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMORYD_")}
    env.update({"MEMORYD_HOME": str(tmp_path / "operator"), "MEMORYD_DB_URL": server.http_url,
                "MEMORYD_ADMIN_TOKEN": server.token(),  # type: ignore[attr-defined]
                "MEMORYD_NAMESPACE_ADMIN_URL": server.admin_url,  # type: ignore[attr-defined]
                "MEMORYD_NAMESPACE_ADMIN_KEY": server.admin_key, **KEYWORD})  # type: ignore[attr-defined]
    return env


def migrate_killed_at(env: dict[str, str], journal: Path, agent: str, step: str) -> bool:
    """Start the migration, SIGKILL it as soon as the journal shows `agent` at `step`; True if caught there."""
    proc = subprocess.Popen([CLI, "namespace", "migrate", "--json"], env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)
    deadline, caught = time.monotonic() + 60, False
    while proc.poll() is None and time.monotonic() < deadline:
        try:
            doc = json.loads(journal.read_text())
        except (FileNotFoundError, ValueError):
            doc = {}
        if (doc.get("agents", {}).get(agent) or {}).get("step") == step:
            os.killpg(proc.pid, signal.SIGKILL)
            caught = True
            break
        time.sleep(0.001)
    proc.wait(30)
    return caught


def rows_of(server: SqldServer, ns: str, agent: str) -> int:
    full = server.token()  # type: ignore[attr-defined]
    status, tables = pipeline(server, ns, full, "SELECT name FROM sqlite_master WHERE type='table'")
    assert status == 200, tables
    total = 0
    for (name,) in tables:
        status, cols = pipeline(server, ns, full, f'SELECT name FROM pragma_table_info("{name}")')
        if ["agent_id"] in cols:
            status, rows = pipeline(server, ns, full, f"SELECT count(*) FROM \"{name}\" WHERE agent_id = '{agent}'")
            total += int(rows[0][0])
    return total


def test_migration_killed_mid_way_resumes_and_every_device_agrees(tmp_path: Path, private_sqld: SqldServer) -> None:
    server = private_sqld
    a, key = first_device(tmp_path, server.http_url)
    b, c = device(tmp_path, "b", server.http_url, key), device(tmp_path, "c", server.http_url, key)
    archive(a, [f"the spare key {i} hangs behind the door" for i in range(40)])  # rows in memory_log
    for cfg, tag in ((a, " a"), (b, " b"), (c, " c")):
        sample(AgentMemory(cfg, AGENT), tag)
    bob, _ = first_device(tmp_path, server.http_url, "bob", agent=OTHER)
    sample(AgentMemory(bob, OTHER), " of bob")
    for cfg in (a, b, c, a, b):
        run(cfg, "sync")
    run(bob, "sync", agent=OTHER)
    before = texts(a)

    namespaced(server)  # the operator restarts sqld with namespaces: the single database is `default`
    env = operator_env(tmp_path, server)
    journal = journal_path(load_config(env))
    assert migrate_killed_at(env, journal, AGENT, "copied"), "the migration ended before the kill"
    assert rows_of(server, "default", AGENT) > 0  # killed before the delete: the single database still whole
    out = json.loads(subprocess.run([CLI, "namespace", "migrate", "--json"], env=env, capture_output=True,
                                    text=True, timeout=120, check=True).stdout)
    assert {x["agent_id"]: x["left_in_single"] for x in out["agents"]} == {AGENT: 0, OTHER: 0}
    assert rows_of(server, "default", AGENT) == 0 and rows_of(server, "default", OTHER) == 0
    assert rows_of(server, AGENT, AGENT) > 0 and rows_of(server, AGENT, OTHER) == 0
    assert run(a, "namespace", "migrate", env=env)["agents"] == []  # nothing left: a third run is a no-op

    token = server.scoped(AGENT)  # type: ignore[attr-defined]  # the devices' tokens open their namespace only
    layout = {"MEMORYD_DB_LAYOUT": "namespace", "MEMORYD_DB_TOKEN": token}
    sample(AgentMemory(b, AGENT), " after")  # a change made while the migration ran travels too
    for cfg in (a, b, c, a):
        run(cfg, "sync", env=env_for(cfg, **layout))
    d = load_config({"MEMORYD_HOME": str(tmp_path / "d"), "MEMORYD_DB_URL": server.http_url, **KEYWORD, **layout})
    restore(d, AGENT, read_key_file(a.key_path(AGENT)))
    views = [(texts(cfg), state_of(cfg)["hot"]) for cfg in (a, b, c, d)]
    assert all(v == views[0] for v in views), "the devices disagree after the migration"
    assert before <= views[0][0] and any("after" in t for t in views[0][0])
