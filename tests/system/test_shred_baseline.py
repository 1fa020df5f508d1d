"""The finding shredding answers, proven on sqld's own files: after a plain forget the server's live tables
no longer hold the memory, but sqld's replication log and WAL still hold its ciphertext, and the agent
key every device keeps opens it."""
from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path
import pytest

from memoryd.daemon.engine import Engine
from memoryd.tiers.base.config import Config
from memoryd.tiers.memory.consolidate import consolidate

import sqldraw
from sqld_server import SqldServer
from synchelp import AGENT, device, env_for, first_device

CLI = str(Path(sys.executable).with_name("memoryd"))
DAY = 86400.0


@pytest.fixture
def server(private_sqld: SqldServer) -> SqldServer:
    return private_sqld


def memoryd(config: Config, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([CLI, *args, "--agent-id", AGENT], env=env_for(config), capture_output=True, text=True,
                          timeout=120)


def archive(config: Config, text: str) -> str:
    """A fact stored 40 days ago and consolidated: it lives in the local index (and goes to the cloud log)."""
    past = time.time() - 40 * DAY
    with Engine(config).memory(AGENT, clock=lambda: past) as mem:
        mid = mem.store(text, "vault", 0.3)["id"]
    with Engine(config).memory(AGENT) as mem:
        consolidate(mem, "quick")
    return mid


def history(server: SqldServer) -> tuple[set[sqldraw.Row], list[sqldraw.Envelope]]:
    """Every row sqld's files held at any commit, and every envelope in them or found by a byte search."""
    server.stop()
    try:
        rows = sqldraw.replay(server.data_dir)
        versions = {int(r.get("version") or 0) for r in rows if r.table.startswith("critical")}
        raw, _ = sqldraw.scan(server.data_dir, [AGENT], versions)
        return rows, sqldraw.envelopes(rows) + raw
    finally:
        server.start()


def live_rows(server: SqldServer) -> set[sqldraw.Row]:
    """The server's tables as a client reads them now."""
    out = set()
    for table, cols in (("memory_log", "agent_id, ref, kind, version, data"),
                        ("critical_versions", "agent_id, version, data"), ("critical_state", "agent_id, version, data")):
        for values in server._pipeline([f"SELECT {cols} FROM {table}"], None)[0]:
            out.add(sqldraw.Row(table, tuple(zip(cols.split(", "), values))))
    return out


def test_a_plain_forget_leaves_the_ciphertext_in_sqlds_history_under_a_key_devices_keep(
        tmp_path: Path, server: SqldServer) -> None:
    a, key = first_device(tmp_path, server.http_url)
    b = device(tmp_path, "b", server.http_url, key)
    cold_id = archive(a, "the vault combination is CanaryOrca 31-7-42")
    warm = memoryd(a, "store", "the spare key hides under CanaryLynx stone", "--category", "home", "--json")
    assert warm.returncode == 0, warm.stderr
    for cfg in (a, b):
        assert memoryd(cfg, "sync").returncode == 0
    for mid in (cold_id, warm.stdout.split('"id": "')[1].split('"')[0]):
        run = memoryd(a, "forget", mid)
        assert run.returncode == 0, run.stderr

    keys = {key}
    live = sqldraw.open_all(sqldraw.envelopes(live_rows(server)), keys)
    assert live and not [p for p in live.values() if b"Canary" in p]  # the tables a client sees are clean
    rows, envs = history(server)
    opened = sqldraw.open_all(envs, keys)
    recovered = b"\n".join(opened.values())
    assert b"CanaryOrca" in recovered  # the cloud log's put row, deleted from the table, is in the history
    assert b"CanaryLynx" in recovered  # older critical-state versions, purged from the table, likewise
    assert not any(b"Canary" in repr(r.values).encode() for r in rows)  # never in clear, at any commit
