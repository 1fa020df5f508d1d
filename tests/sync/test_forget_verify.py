"""`memoryd forget --verify ID` through the console script against a real sqld: each place a memory can
survive in is reported while it holds the memory and clean once it does not; exit 1 while anything is
left (a plain forget leaves the key that opens sqld's history), 2 for an id never seen."""
from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from memoryd.daemon.engine import Engine
from memoryd.tiers.base.config import Config
from memoryd.tiers.memory.consolidate import consolidate

from sqld_server import SqldServer
from synchelp import AGENT, device, env_for, first_device

CLI = str(Path(sys.executable).with_name("memoryd"))
DAY = 86400.0


@pytest.fixture
def server(private_sqld: SqldServer) -> SqldServer:
    return private_sqld


def run(config: Config, *args: str) -> subprocess.CompletedProcess:
    out = subprocess.run([CLI, *args, "--agent-id", AGENT], env=env_for(config), capture_output=True, text=True,
                         timeout=120)
    assert "Traceback" not in out.stderr, out.stderr
    return out


def verify(config: Config, mid: str) -> tuple[int, dict[str, Any]]:
    out = run(config, "forget", "--verify", mid, "--json")
    report = json.loads(out.stdout)
    return out.returncode, {p["place"]: p for p in report["places"]}


def archive(config: Config, text: str) -> str:
    past = time.time() - 40 * DAY
    with Engine(config).memory(AGENT, clock=lambda: past) as mem:
        mid = mem.store(text, "vault", 0.3)["id"]
    with Engine(config).memory(AGENT) as mem:
        consolidate(mem, "quick")
    return mid


def found(places: dict[str, Any]) -> dict[str, list[str]]:
    return {name: p["found"] for name, p in places.items() if p["status"] != "clean"}


def test_each_place_holding_a_memory_is_reported_until_it_is_forgotten(tmp_path: Path, server: SqldServer) -> None:
    a, key = first_device(tmp_path, server.http_url)
    cold_id = archive(a, "the vault combination is 31-7-42")
    warm_id = json.loads(run(a, "store", "the spare key is under the blue stone", "--category", "home",
                             "--json").stdout)["id"]
    assert run(a, "sync").returncode == 0
    code, places = verify(a, cold_id)
    assert code == 1
    assert "row " + cold_id in places["local index"]["found"][0]
    assert places["memory_log (server)"]["found"] and places["memory_log (server)"]["found"][0].startswith("sealed")
    code, places = verify(a, warm_id)
    assert code == 1 and {"warm", "critical state (this device)", "critical state (server)"} <= set(found(places))
    assert places["memory_log (server)"]["status"] == "clean"

    for mid in (cold_id, warm_id):
        assert run(a, "forget", mid).returncode == 0
        code, places = verify(a, mid)
        left = found(places)
        assert code == 1 and set(left) == {"key store"}, left  # what a plain forget leaves (the index is scrubbed)
        assert "history" in left["key store"][0]


def test_a_forget_not_yet_uploaded_is_a_copy_still_on_the_server(tmp_path: Path, server: SqldServer) -> None:
    a, key = first_device(tmp_path, server.http_url)
    mid = archive(a, "the alarm code is 9090")
    assert run(a, "sync").returncode == 0
    server.stop()
    try:
        assert run(a, "forget", mid).returncode == 0  # queued: the server is down
        code, places = verify(a, mid)
        assert code == 1
        assert any("not uploaded" in f for f in places["local index"]["found"])
        assert places["memory_log (server)"]["status"] == "unknown"
        assert "not reachable" in places["memory_log (server)"]["note"]
    finally:
        server.start()
    code, places = verify(a, mid)
    assert places["memory_log (server)"]["found"]  # the server still holds its sealed copy
    assert run(a, "sync").returncode == 0
    code, places = verify(a, mid)
    assert places["memory_log (server)"]["status"] == "clean" and places["local index"]["status"] == "clean"


def test_another_device_sees_the_forget_it_pulled(tmp_path: Path, server: SqldServer) -> None:
    a, key = first_device(tmp_path, server.http_url)
    b = device(tmp_path, "b", server.http_url, key)
    mid = archive(a, "the boat is called Canary")
    for cfg in (a, b):
        assert run(cfg, "sync").returncode == 0
    code, places = verify(b, mid)
    assert code == 1 and places["local index"]["found"][0].startswith("row ")
    assert run(a, "forget", mid).returncode == 0
    assert run(b, "sync").returncode == 0
    code, places = verify(b, mid)
    assert code == 1 and set(found(places)) == {"key store"}  # the pulled forget scrubbed b's index too


def test_an_unknown_id_is_a_usage_error_and_the_human_report_names_places(tmp_path: Path) -> None:
    a, _ = first_device(tmp_path, f"file:{tmp_path / 'db.sqlite'}")
    out = run(a, "forget", "--verify", "0123456789abcdef")
    assert out.returncode == 2 and out.stderr.strip() == (
        "memoryd: no memory '0123456789abcdef' on this device, and no record of its forget")
    assert run(a, "forget", "--verify", "x", "--days", "2").returncode == 2
    mid = json.loads(run(a, "store", "my locker is 12", "--category", "gym", "--json").stdout)["id"]
    out = run(a, "forget", "--verify", mid)
    assert out.returncode == 1 and f"entry {mid} in warm-memory.json" in out.stdout
    assert out.stderr.strip() == f"memoryd: memory {mid} is not gone everywhere: warm"
