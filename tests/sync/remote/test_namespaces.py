"""A namespace per agent on a real sqld (--enable-namespaces, JWT auth, admin API): the name mapping, devices
syncing in their own namespace, agent A's token refused everywhere in agent B's namespace, a device cut off
by the operator without touching the others, and the token a destroying command needs."""
from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from memoryd.sync.crypto.keys import read_key_file
from memoryd.sync.restore import restore
from memoryd.sync.remote.db import connect
from memoryd.sync.remote.namespaces import NamespaceAdmin, namespace_name
from memoryd.tiers.base.config import Config, load_config
from memoryd.tiers.base.errors import ConfigError, TokenError, UsageError

from memhelp import AgentMemory
from sqld_server import SqldServer, key_pair, ns_pipeline, ns_pipeline as pipeline
from synchelp import KEYWORD, env_for, sample, texts

CLI = str(Path(sys.executable).with_name("memoryd"))


def test_agent_ids_map_to_distinct_valid_names() -> None:
    assert namespace_name("alice") == "alice" and namespace_name("proj-x2") == "proj-x2"
    ids = ["default", "Alice", "alice_", "a_b", "a-b", "a--b", "A-B", "a" * 64, "a" * 63, "x" * 63 + "Y", "9", "Zz_-9"]
    names = [namespace_name(i) for i in ids]
    assert len(set(names)) == len(ids)  # no two agents share a namespace
    assert namespace_name("default") != "default"  # sqld's own default namespace holds the single database
    for name in names:
        assert len(name) <= 63 and name == name.lower() and not name.startswith("-") and not name.endswith("-")
        assert set(name) <= set("abcdefghijklmnopqrstuvwxyz0123456789-")
    with pytest.raises(UsageError):
        namespace_name("../b")


def ns_device(tmp_path: Path, server: SqldServer, name: str, agent: str, token: str, **extra: str) -> Config:
    env = {"MEMORYD_HOME": str(tmp_path / name), "MEMORYD_DB_URL": server.http_url, "MEMORYD_DB_TOKEN": token,
           "MEMORYD_DB_LAYOUT": "namespace", **KEYWORD, **extra}
    return load_config(env)


def operator(server: SqldServer, tmp_path: Path) -> dict[str, str]:
    """What the operator's own machine sets: the admin API creates namespaces."""
    return {"MEMORYD_NAMESPACE_ADMIN_URL": server.admin_url, "MEMORYD_NAMESPACE_ADMIN_KEY": server.admin_key}  # type: ignore[attr-defined]


def fingerprint(server: SqldServer, ns: str, token: str) -> str:
    """Every row of every table of the namespace, hashed: equal before and after means not a byte changed."""
    status, tables = pipeline(server, ns, token, "SELECT name FROM sqlite_master WHERE type='table' ORDER BY name")
    assert status == 200 and isinstance(tables, list) and tables, (status, tables)
    digest = hashlib.sha256()
    for (name,) in tables:
        status, rows = pipeline(server, ns, token, f'SELECT * FROM "{name}" ORDER BY 1, 2')
        assert status == 200 and isinstance(rows, list), (name, rows)
        digest.update(json.dumps([name, rows]).encode())
    return digest.hexdigest()


@pytest.fixture
def two_agents(tmp_path: Path, sqld_ns: SqldServer) -> tuple[Config, Config]:
    """Agents alice and bob, one device each, each with a token for its own namespace only."""
    out = []
    for agent in ("alice", "bob"):
        token = sqld_ns.scoped(namespace_name(agent), "rw")  # type: ignore[attr-defined]
        cfg = ns_device(tmp_path, sqld_ns, agent, agent, token, **operator(sqld_ns, tmp_path))
        memoryd(cfg, agent, "init")
        sample(AgentMemory(cfg, agent), f" of {agent}")
        memoryd(cfg, agent, "sync")
        out.append(cfg)
    return out[0], out[1]


def memoryd(cfg: Config, agent: str, *args: str, code: int = 0, **extra: str) -> dict[str, Any]:
    env = env_for(cfg, MEMORYD_DB_TOKEN=cfg.db_token or "", MEMORYD_DB_LAYOUT=cfg.sync.layout, **extra)
    if cfg.sync.namespace_admin_url:
        env.update(MEMORYD_NAMESPACE_ADMIN_URL=cfg.sync.namespace_admin_url,
                   MEMORYD_NAMESPACE_ADMIN_KEY=cfg.namespace_admin_key or "")
    run = subprocess.run([CLI, *args, "--agent-id", agent, "--json"], env=env, capture_output=True, text=True,
                         timeout=120)
    assert run.returncode == code, (args, run.returncode, run.stdout, run.stderr)
    assert "Traceback" not in run.stderr, run.stderr
    return json.loads(run.stdout) if code == 0 else {"stderr": run.stderr.strip(), "stdout": run.stdout}


def test_each_agent_syncs_in_its_own_namespace(tmp_path: Path, sqld_ns: SqldServer, two_agents) -> None:
    alice, bob = two_agents
    full = sqld_ns.token()  # type: ignore[attr-defined]  # the operator's: no claims opens every namespace
    for agent in ("alice", "bob"):
        status, rows = pipeline(sqld_ns, agent, full, "SELECT DISTINCT agent_id FROM critical_state")
        assert (status, rows) == (200, [[agent]])  # each namespace holds one agent's rows, no other's
    # a second device of alice restores from alice's namespace with a token for it alone
    token = sqld_ns.scoped("alice", "rw")  # type: ignore[attr-defined]
    second = ns_device(tmp_path, sqld_ns, "alice2", "alice", token)
    restore(second, "alice", read_key_file(alice.key_path("alice")))
    assert texts(second, "alice") == texts(alice, "alice") and all("of alice" in t for t in texts(second, "alice"))
    status = memoryd(alice, "alice", "status", "--remote")
    sync = next(a for a in status["agents"] if a["agent_id"] == "alice")["sync"]
    assert sync["namespace"] == "alice" and sync["versions"] and "remote_error" not in sync, sync
    listed = memoryd(alice, "alice", "device", "list")
    assert listed["devices"] and all(d.get("revoked_at") is None for d in listed["devices"])


def test_agent_a_token_cannot_read_change_or_delete_agent_b(sqld_ns: SqldServer, two_agents) -> None:
    alice_token = sqld_ns.scoped("alice", "rw")  # type: ignore[attr-defined]
    full = sqld_ns.token()  # type: ignore[attr-defined]
    before = fingerprint(sqld_ns, "bob", full)
    attempts = ["SELECT data FROM critical_state", "SELECT count(*) FROM memory_log",
                "INSERT INTO devices (agent_id, device_id, name, kind, public_key, enrolled_at) "
                "VALUES ('bob', 'evil', 'x', 'x', 'x', 0)",
                "UPDATE critical_state SET data = 'x'", "DELETE FROM critical_versions", "DELETE FROM memory_log",
                "DROP TABLE critical_state", "CREATE TABLE planted (x)"]
    for sql in attempts:
        status, answer = pipeline(sqld_ns, "bob", alice_token, sql)
        assert status in (401, 403, 404), (sql, status, answer)  # refused before any statement runs
        assert "bob" not in json.dumps(answer).replace("Namespace `bob`", "")  # no row of bob's comes back
    # the same through memoryd: alice's token aimed at bob's namespace is refused with the token named
    cfg = ns_device(Path(sqld_ns.root), sqld_ns, "intruder", "bob", alice_token)
    for scheme in ("http", "ws"):
        url = sqld_ns.http_url if scheme == "http" else sqld_ns.ws_url
        with pytest.raises(TokenError, match="MEMORYD_DB_TOKEN does not open it"):
            connect(cfg, url=url, token=alice_token, agent_id="bob").execute("SELECT data FROM critical_state")
    # a read-only token of bob's own namespace cannot write either
    status, _ = pipeline(sqld_ns, "bob", sqld_ns.scoped("bob", "ro"), "DELETE FROM memory_log")  # type: ignore[attr-defined]
    assert status == 403
    assert fingerprint(sqld_ns, "bob", full) == before  # not a byte of bob's namespace changed


def test_the_operator_cuts_off_one_device_without_touching_the_others(tmp_path: Path, sqld_ns: SqldServer) -> None:
    """Each device signs its tokens with a key of its own; the namespace lists the keys it accepts
    (sqld's per-namespace jwt_key). `memoryd namespace keys` without one device's key refuses it, live."""
    (k1, pem1), (k2, pem2) = key_pair(), key_pair()
    (tmp_path / "both.pem").write_text(pem1 + pem2)
    (tmp_path / "second.pem").write_text(pem2)
    env = env_for(ns_device(tmp_path, sqld_ns, "op", "carol", ""))
    env.update(operator(sqld_ns, tmp_path))

    def keys(*args: str) -> dict[str, Any]:
        run = subprocess.run([CLI, "namespace", "keys", *args, "--agent-id", "carol", "--json"], env=env,
                             capture_output=True, text=True, timeout=60)
        assert run.returncode == 0, run.stderr
        return json.loads(run.stdout)

    assert keys("--create", "--jwt-keys", str(tmp_path / "both.pem")) == {
        "schema": 1, "agent_id": "carol", "namespace": "carol", "created": True, "keys": 2}
    admin = NamespaceAdmin(sqld_ns.admin_url, sqld_ns.admin_key)  # type: ignore[attr-defined]
    assert admin.create("carol") is False and admin.exists("carol")  # idempotent: it exists
    t1 = sqld_ns.scoped("carol", key=k1)  # type: ignore[attr-defined]
    t2 = sqld_ns.scoped("carol", key=k2)  # type: ignore[attr-defined]
    assert pipeline(sqld_ns, "carol", t1, "CREATE TABLE t (x)")[0] == 200
    assert pipeline(sqld_ns, "carol", t2, "INSERT INTO t VALUES (1)")[0] == 200
    # the server-wide full-access token does not open a namespace with keys of its own
    assert pipeline(sqld_ns, "carol", sqld_ns.token(), "SELECT 1")[0] == 401  # type: ignore[attr-defined]
    assert keys("--jwt-keys", str(tmp_path / "second.pem"))["keys"] == 1  # revoke device 1
    assert pipeline(sqld_ns, "carol", t1, "SELECT * FROM t")[0] == 401
    assert pipeline(sqld_ns, "carol", t2, "SELECT * FROM t") == (200, [["1"]])
    with pytest.raises(ConfigError, match="MEMORYD_NAMESPACE_ADMIN_KEY"):  # the admin API wants its key
        NamespaceAdmin(sqld_ns.admin_url, "wrong").create("dave")  # type: ignore[attr-defined]
    device = ns_device(tmp_path, sqld_ns, "dev", "dave", sqld_ns.token())  # type: ignore[attr-defined]
    with pytest.raises(TokenError, match="namespace dave is not on .* the operator creates it"):
        connect(device, agent_id="dave").execute("SELECT 1")  # no admin API here: the operator creates it


def test_a_destroying_command_names_the_token_it_needs(tmp_path: Path, sqld_ns: SqldServer, two_agents) -> None:
    alice, _ = two_agents
    mid = memoryd(alice, "alice", "store", "the locker code is 4417", "--category", "vault")["id"]
    (alice.home / "config.toml").write_text("[sync]\nseparate_admin_token = true\n")
    out = memoryd(alice, "alice", "forget", "--shred", mid, code=2)
    error = json.loads(out["stdout"])["error"]
    assert error["code"] == "token" and "needs MEMORYD_ADMIN_TOKEN" in error["message"], error
    assert "the locker code is 4417" in texts(alice, "alice")  # refused before anything was forgotten
    admin_token = sqld_ns.scoped("alice", "rw")  # type: ignore[attr-defined]  # held apart by the user
    done = memoryd(alice, "alice", "forget", "--shred", mid, MEMORYD_ADMIN_TOKEN=admin_token)
    assert done["shred"]["ids"] == [mid]


@pytest.mark.parametrize("template", ["http://{agent}.localhost:PORT", "libsql://{agent}.localhost:PORT?tls=0",
                                      "http://127.0.0.1:PORT", "ws://127.0.0.1:PORT"])
def test_each_form_of_url_reaches_the_agents_own_namespace(tmp_path: Path, sqld_ns: SqldServer, template: str) -> None:
    """A {agent} template (sqld reads the Host; *.localhost is reached on loopback) or a plain URL with the
    namespace layout (sqld's header), over HTTP and WebSocket: each lands in the agent's namespace."""
    admin = NamespaceAdmin(sqld_ns.admin_url, sqld_ns.admin_key)  # type: ignore[attr-defined]
    for agent in ("dora", "Dora_2"):  # a plain id and one with a derived name
        admin.create(namespace_name(agent))
        full = sqld_ns.token()  # type: ignore[attr-defined]
        assert ns_pipeline(sqld_ns, namespace_name(agent), full, f"CREATE TABLE mark_{agent.lower()} (x)")[0] == 200
    url = template.replace("PORT", str(sqld_ns.port))
    cfg = load_config({"MEMORYD_HOME": str(tmp_path / "h"), "MEMORYD_DB_URL": url, "MEMORYD_DB_LAYOUT": "namespace"})
    for agent in ("dora", "Dora_2"):
        token = sqld_ns.scoped(namespace_name(agent))  # type: ignore[attr-defined]
        with connect(cfg, token=token, url=url, agent_id=agent) as db:
            tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'").rows}
        assert f"mark_{agent.lower()}" in tables and len([t for t in tables if t.startswith("mark_")]) == 1
