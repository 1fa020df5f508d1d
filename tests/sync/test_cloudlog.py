"""The sealed cloud log against a real sqld: canaries never in clear, devices exchange cold memories and
forgets, tampered or moved rows are refused, outages and kills lose and duplicate nothing."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from memoryd.daemon.engine import Engine
from memoryd.sync.critical import push_now, pull_now
from memoryd.sync.remote.db import connect
from memoryd.sync.remote.errors import MissingTableError
from memoryd.tiers.cold.source import open_index
from memoryd.sync.restore import restore
from memoryd.tiers.retrieval import analyzer
from memoryd.tiers.base.config import Config
from memoryd.tiers.memory.consolidate import consolidate
from memoryd.tiers.base.errors import CryptoError, RemoteError
from memoryd.tiers.memory.forget import forget_id

from sqld_server import SqldServer
from synchelp import AGENT, device, env_for, first_device
from waiting import eventually

DAY = 86400.0


@pytest.fixture
def server(private_sqld: SqldServer) -> SqldServer:
    """A private sqld: its data directory holds only what these tests sent."""
    return private_sqld


def archive_facts(config: Config, texts: list[str], category: str = "notes", meta: dict | None = None) -> list[str]:
    """Store facts 40 days in the past and consolidate: they leave warm for the local index."""
    past = time.time() - 40 * DAY
    with Engine(config).memory(AGENT, clock=lambda: past) as mem:
        ids = [e["id"] for e in mem.store_many([(t, category, 0.3, meta) for t in texts])]
    with Engine(config).memory(AGENT) as mem:
        consolidate(mem, "quick")
    return ids


def cold_texts(config: Config) -> set[str]:
    with open_index(config) as ix:
        return {e["text"] for e in ix.iter_entries(AGENT)}


def log_rows(server: SqldServer) -> list[tuple[Any, ...]]:
    db = connect(Config(home=Path("/nonexistent"), db_url=server.http_url))
    try:
        return [tuple(r) for r in db.execute("SELECT seq, agent_id, ref, kind, data FROM memory_log ORDER BY seq").rows]
    finally:
        db.close()


def log_count(server: SqldServer) -> int:
    db = connect(Config(home=Path("/nonexistent"), db_url=server.http_url))
    try:
        return int(db.execute("SELECT COUNT(*) FROM memory_log", []).rows[0][0])
    finally:
        db.close()


def run_sql(server: SqldServer, sql: str, args: list[Any] | None = None) -> Any:
    db = connect(Config(home=Path("/nonexistent"), db_url=server.http_url))
    try:
        return db.execute(sql, args or [])
    finally:
        db.close()


def test_canary_never_reaches_the_server_in_clear(tmp_path: Path, server: SqldServer) -> None:
    a, key = first_device(tmp_path, server.http_url)
    canaries = [b"CanaryTextZebra", b"canarycategoryquokka", b"CanaryMetaNarwhal"]
    ids = archive_facts(a, ["CanaryTextZebra lives in the archive", "second CanaryTextZebra fact"],
                        "canarycategoryquokka", {"source": "CanaryMetaNarwhal"})
    with Engine(a).memory(AGENT) as mem:
        mem.store("warm CanaryTextZebra fact", "canarycategoryquokka", metadata={"source": "CanaryMetaNarwhal"})
    assert pull_now(a, AGENT)["cold"]["uploaded"] == 2
    with Engine(a).memory(AGENT) as mem:
        forget_id(mem, ids[0])
    push_now(a, AGENT, purge_history=True)
    b = device(tmp_path, "b", server.http_url)
    assert restore(b, AGENT, key=key)["cold_count"] == 1
    assert pull_now(b, AGENT)["status"] in ("current", "pushed")
    for table in ("memory_log", "critical_state", "critical_versions"):  # every row of every table
        dump = repr(run_sql(server, f"SELECT * FROM {table}").rows).encode()
        assert not any(c in dump for c in canaries), table
    server.stop()  # sqld's WAL, replication log and snapshots: every byte it wrote
    for path in server.data_dir.rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            assert not any(c.lower() in data.lower() for c in canaries), path
    server.start()


def test_three_devices_exchange_cold_memories_and_forgets(tmp_path: Path, server: SqldServer) -> None:
    a, key = first_device(tmp_path, server.http_url)
    b, c = (device(tmp_path, n, server.http_url, key) for n in "bc")
    ids = {name: archive_facts(cfg, [f"{name} archived fact {i}" for i in range(5)]) for name, cfg in
           (("alpha", a), ("beta", b), ("gamma", c))}
    for cfg in (a, b, c, a, b):
        assert pull_now(cfg, AGENT)["status"] != "queued"
        with open_index(cfg) as ix:  # what a merge evicted went up before the push that announced it
            assert ix.pending_uploads(AGENT) == 0
    every = {f"{n} archived fact {i}" for n in ("alpha", "beta", "gamma") for i in range(5)}
    assert cold_texts(a) == cold_texts(b) == cold_texts(c) == every
    with Engine(b).memory(AGENT) as mem:
        assert mem.retrieve("gamma archived fact 3")[0]["text"] == "gamma archived fact 3"  # found locally
        forget_id(mem, ids["alpha"][2])
    for cfg in (b, a, c):
        pull_now(cfg, AGENT)
    assert cold_texts(a) == cold_texts(b) == cold_texts(c) == every - {"alpha archived fact 2"}
    puts = [r for r in log_rows(server) if r[3] == "put"]
    assert len(puts) == 14 and len({r[2] for r in puts}) == 14  # no duplicate, forgotten ciphertext deleted


def test_an_offline_device_does_not_bring_a_forgotten_memory_back(tmp_path: Path, server: SqldServer) -> None:
    a, key = first_device(tmp_path, server.http_url)
    b = device(tmp_path, "b", server.http_url, key)
    mid = archive_facts(a, ["the old locker code"])[0]
    pull_now(a, AGENT)
    pull_now(b, AGENT)
    with Engine(a).memory(AGENT) as mem:
        forget_id(mem, mid)
    pull_now(a, AGENT)
    with open_index(b) as ix:  # b, offline, still holds it and re-archives its copy
        ix.put(AGENT, [dict(ix.get(AGENT, [mid])[0], importance=0.9)])
    pull_now(b, AGENT)
    pull_now(a, AGENT)
    assert "the old locker code" not in cold_texts(a) | cold_texts(b)
    with Engine(a).memory(AGENT) as mem:  # stored anew, after the forget: it stays
        mem.store("the old locker code", "notes")
    assert mem.retrieve("locker code")


@pytest.mark.parametrize("tamper", ["byte", "moved", "other-agent", "kind"])
def test_a_tampered_row_is_refused_and_nothing_is_applied(tmp_path: Path, server: SqldServer, tamper: str) -> None:
    a, key = first_device(tmp_path, server.http_url)
    b = device(tmp_path, "b", server.http_url, key)
    archive_facts(a, ["first honest fact", "second honest fact"])
    pull_now(a, AGENT)
    seq, _agent, ref, _kind, data = log_rows(server)[0]
    if tamper == "byte":
        flipped = data[:40] + ("A" if data[40] != "A" else "B") + data[41:]
        run_sql(server, "UPDATE memory_log SET data = ? WHERE seq = ?", [flipped, seq])
    elif tamper == "moved":
        run_sql(server, "UPDATE memory_log SET ref = ? WHERE seq = ?", [log_rows(server)[1][2], seq])
    elif tamper == "other-agent":
        run_sql(server, "UPDATE memory_log SET agent_id = 'ag' WHERE seq = ?", [seq])
        c, _ = first_device(tmp_path, server.http_url, "c", agent="zz")
        run_sql(server, "INSERT INTO memory_log (agent_id, ref, kind, version, digest, data, device_id, created_at) "
                        "SELECT 'zz', ref, kind, version, digest, data, device_id, created_at FROM memory_log WHERE seq = ?",
                [seq])
        with pytest.raises(CryptoError):  # the other agent's key cannot open a row copied to it
            pull_now(c, "zz")
    else:
        run_sql(server, "UPDATE memory_log SET kind = 'forget' WHERE seq = ?", [seq])
    if tamper != "other-agent":
        with pytest.raises(CryptoError) as err:
            pull_now(b, AGENT)
        assert f"row {seq}" in err.value.message and err.value.exit_code == 1
        assert cold_texts(b) == set()  # refused: nothing of the page applied, cursor where it was


def test_a_log_behind_the_cursor_is_a_clear_error_and_force_recovers(tmp_path: Path, server: SqldServer) -> None:
    a, _ = first_device(tmp_path, server.http_url)
    archive_facts(a, ["kept through a server reset"])
    pull_now(a, AGENT)
    assert pull_now(a, AGENT)["cold"]["pulled"]["cursor"] == 1  # its own row came back: the cursor is past it
    server.wipe()  # the server lost everything (an old backup, a new database at the same URL)
    with pytest.raises(RemoteError, match="before this device's cursor"):
        pull_now(a, AGENT)
    result = pull_now(a, AGENT, force=True)
    assert result["cold"]["uploaded"] == 1 and len(log_rows(server)) == 1


def test_a_deleted_top_row_is_no_lost_log(tmp_path: Path, server: SqldServer) -> None:
    """A pull drops the stale cloud copy of a forgotten memory; when that copy was the log's top row, a device
    already past it sees the log end before its cursor: nothing was lost, its next sync goes on."""
    a, key = first_device(tmp_path, server.http_url)
    archive_facts(a, ["the first fact", "the stale copy"])
    pull_now(a, AGENT)
    assert pull_now(a, AGENT)["cold"]["pulled"]["cursor"] == 2
    run_sql(server, "DELETE FROM memory_log WHERE seq = 2")  # as _drop_stale does on another device
    assert pull_now(a, AGENT)["status"] == "current"
    archive_facts(a, ["a later fact"])
    pull_now(a, AGENT)
    b = device(tmp_path, "b", server.http_url)
    assert restore(b, AGENT, key=key)["cold_count"] == 2
    assert [r[0] for r in log_rows(server)] == [1, 3]  # the counter never went back: no seq reused


def test_server_down_during_sync_loses_and_duplicates_nothing(tmp_path: Path, server: SqldServer) -> None:
    a, key = first_device(tmp_path, server.http_url)
    archive_facts(a, [f"outage fact {i}" for i in range(450)])  # three upload batches
    server.kill()
    assert pull_now(a, AGENT)["status"] == "queued"
    server.start()
    assert pull_now(a, AGENT)["cold"]["uploaded"] == 450
    assert pull_now(a, AGENT)["status"] == "current"
    assert len(log_rows(server)) == 450
    b = device(tmp_path, "b", server.http_url)
    assert restore(b, AGENT, key=key)["cold_count"] == 450


def test_kill_9_during_upload_then_resume(tmp_path: Path, server: SqldServer) -> None:
    a, key = first_device(tmp_path, server.http_url)
    archive_facts(a, [f"killed upload fact {i}" for i in range(1200)])
    env = env_for(a)
    cli = str(Path(sys.executable).with_name("memoryd"))
    interrupted = 0
    for past in (0, 600):  # killed once the server holds more than this many rows: mid-upload, twice
        proc = subprocess.Popen([cli, "sync", "--agent-id", AGENT], env=env, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        eventually(lambda: proc.poll() is not None or log_count(server) > past, timeout=60, step=0.01,
                   ignore=(MissingTableError,))  # before the first sync made it
        proc.send_signal(signal.SIGKILL)
        interrupted += proc.wait() == -signal.SIGKILL
    assert interrupted >= 1, "the uploads ended before the kills: nothing was interrupted"
    assert subprocess.run([cli, "sync", "--agent-id", AGENT], env=env, capture_output=True).returncode == 0
    rows = log_rows(server)
    assert len(rows) == 1200 and len({r[2] for r in rows}) == 1200  # every memory once
    b = device(tmp_path, "b", server.http_url)
    restore(b, AGENT, key=key)
    assert len(cold_texts(b)) == 1200


def test_restore_refuses_a_tampered_log_and_keeps_nothing(tmp_path: Path, server: SqldServer) -> None:
    a, key = first_device(tmp_path, server.http_url)
    archive_facts(a, [f"restorable fact {i}" for i in range(5)])
    pull_now(a, AGENT)
    seq = log_rows(server)[3][0]
    run_sql(server, "UPDATE memory_log SET data = substr(data, 1, 30) || 'QUFB' || substr(data, 35) WHERE seq = ?", [seq])
    b = device(tmp_path, "b", server.http_url)
    with pytest.raises(CryptoError):
        restore(b, AGENT, key=key)
    assert not b.agent_dir(AGENT).exists() and cold_texts(b) == set()


def test_round_one_plaintext_rows_on_a_server_are_sealed_and_dropped(tmp_path: Path, server: SqldServer) -> None:
    a, key = first_device(tmp_path, server.http_url)
    run_sql(server, "CREATE TABLE cold_memories (agent_id TEXT NOT NULL, id TEXT NOT NULL, text TEXT NOT NULL, "
                    "category TEXT NOT NULL, importance REAL, created_at INTEGER NOT NULL, access_count INTEGER NOT NULL "
                    "DEFAULT 0, last_access INTEGER, metadata TEXT, grams TEXT NOT NULL DEFAULT '', "
                    "PRIMARY KEY (agent_id, id))")
    db = connect(Config(home=tmp_path, db_url=server.http_url))
    db.batch([("INSERT INTO cold_memories (agent_id, id, text, category, importance, created_at, metadata) "
               "VALUES (?, ?, ?, 'legacy', 0.4, ?, '{}')", [AGENT, f"l{i:05d}", f"legacy plaintext {i}", 1e9 + i])
              for i in range(1500)])
    db.close()
    result = pull_now(a, AGENT)
    assert result["cold"]["migrated"] == 1500 and result["cold"]["uploaded"] == 1500
    tables = {r[0] for r in run_sql(server, "SELECT name FROM sqlite_master WHERE type = 'table'").rows}
    assert "cold_memories" not in tables and len(log_rows(server)) == 1500
    assert len(cold_texts(a)) == 1500
    with open_index(a) as ix:
        assert ix.search(AGENT, analyzer.query_terms("legacy plaintext 1234"))[0]["id"] == "l01234"
    assert "migrated" not in pull_now(a, AGENT)["cold"]  # done once
    b = device(tmp_path, "b", server.http_url)
    assert restore(b, AGENT, key=key)["cold_count"] == 1500


def test_reading_commands_never_load_the_network_client(tmp_path: Path, server: SqldServer) -> None:
    a, _ = first_device(tmp_path, server.http_url)
    archive_facts(a, ["a fact for the import check"])
    code = ("import sys; from memoryd.cli.main import main; sys.argv = ['memoryd', *sys.argv[1:]]\n"
            "try:\n    main()\nexcept SystemExit:\n    pass\n"
            "assert 'libsql_client' not in sys.modules and 'aiohttp' not in sys.modules, 'network client loaded'")
    env = dict(env_for(a), PYTHONPATH=os.pathsep.join(sys.path))
    for args in (["retrieve", "import check", "--agent-id", AGENT], ["status"], ["store", "x y z", "--category", "c",
                 "--agent-id", AGENT], ["hot", "show", "--agent-id", AGENT], ["tree", "show", "--agent-id", AGENT],
                 ["consolidate", "--agent-id", AGENT]):
        out = subprocess.run([sys.executable, "-c", code, *args], env=env, capture_output=True, text=True)
        assert out.returncode == 0, (args, out.stderr)


def test_restore_shows_progress_on_a_terminal_only(tmp_path: Path, server: SqldServer) -> None:
    from memoryd.sync.crypto.keys import export_recovery

    from clihelp import run_on_terminal

    a, key = first_device(tmp_path, server.http_url)
    archive_facts(a, [f"restored with a bar {i}" for i in range(700)])
    pull_now(a, AGENT)
    b = device(tmp_path, "b", server.http_url)
    env = dict(env_for(b, MEMORYD_KEY=export_recovery(key)))
    code, screen = run_on_terminal("restore", "--agent-id", AGENT, env=env)
    assert code == 0, screen
    assert "cloud log" in screen and "700/700" in screen and "700 cold" in screen
    c = device(tmp_path, "c", server.http_url)
    piped = subprocess.run([str(Path(sys.executable).with_name("memoryd")), "restore", "--agent-id", AGENT],
                           env=env_for(c, MEMORYD_KEY=export_recovery(key)), capture_output=True, text=True)
    assert piped.returncode == 0 and "cloud log" not in piped.stderr and "\r" not in piped.stderr
