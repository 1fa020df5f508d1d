"""`forget --shred` on a real sqld with three devices: afterwards no key any device keeps (nor the new
recovery key) opens the forgotten memory from anything sqld's files ever held — its replication log, WAL and
main file, read raw, every wrap tried with every private key found — while every other memory stays readable
on all three; `forget --verify` agrees on each device once it synced."""
from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from memoryd.daemon.engine import Engine
from memoryd.sync import epoch_store
from memoryd.sync.crypto.device_keys import save_ring
from memoryd.sync.crypto.keys import export_recovery
from memoryd.sync.crypto.wrap import new_private, public_of
from memoryd.sync.session import Session
from memoryd.tiers.base.config import Config
from memoryd.tiers.cold.source import open_index
from memoryd.tiers.memory.consolidate import consolidate

import sqldraw
from sqld_server import SqldServer
from synchelp import AGENT, device, env_for, first_device, state_of

CLI = str(Path(sys.executable).with_name("memoryd"))
DAY = 86400.0
SECRETS = (b"CanaryOrca", b"CanaryLynx")


@pytest.fixture
def server(private_sqld: SqldServer) -> SqldServer:
    return private_sqld


def memoryd(config: Config, *args: str, code: int = 0) -> dict[str, Any]:
    run = subprocess.run([CLI, *args, "--agent-id", AGENT, "--json"], env=env_for(config), capture_output=True,
                         text=True, timeout=300)
    assert run.returncode == code, (args, run.returncode, run.stdout, run.stderr)
    assert "Traceback" not in run.stderr, run.stderr
    return json.loads(run.stdout)


def archive(config: Config, texts: list[str]) -> list[str]:
    past = time.time() - 40 * DAY
    with Engine(config).memory(AGENT, clock=lambda: past) as mem:
        ids = [e["id"] for e in mem.store_many([(t, "vault", 0.3, None) for t in texts])]
    with Engine(config).memory(AGENT) as mem:
        consolidate(mem, "quick")
    return ids


def give_recovery_key(config: Config) -> bytes:
    """A recovery key for the agent, as `init` issues one: its private half is on paper, not on a device."""
    private = new_private()
    s = Session(config, AGENT)
    try:
        ring = s.refresh_keys()
        epoch_store.replace_recovery(s, ring, public_of(private))
        ring.recovery_public = public_of(private)
        save_ring(config, ring)
    finally:
        s.close()
    return private


def everything(server: SqldServer, agents: list[str] = [AGENT]) -> tuple[set[sqldraw.Row], list[sqldraw.Envelope]]:
    """Every row sqld's files held at any commit, and every envelope in them or found by a byte search."""
    server.stop()
    try:
        rows = sqldraw.replay(server.data_dir)
        versions = {int(r.get("version") or 0) for r in rows if r.table.startswith("critical")}
        epochs = {int(r.get("epoch") or 0) for r in rows if r.table == "key_epochs"} | {0}
        raw, _ = sqldraw.scan(server.data_dir, agents, versions, epochs)
        return rows, sqldraw.envelopes(rows) + raw
    finally:
        server.start()


def recovered(rows: set[sqldraw.Row], envs: list[sqldraw.Envelope], secrets: set[bytes]) -> bytes:
    return b"\n".join(sqldraw.recover(rows, envs, secrets).values())


def index_texts(config: Config) -> set[str]:
    with open_index(config) as ix:
        return {e["text"] for e in ix.iter_entries(AGENT)}


def test_a_shredded_memory_opens_with_no_key_left_anywhere(tmp_path: Path, server: SqldServer) -> None:
    a, key = first_device(tmp_path, server.http_url)
    b, c = (device(tmp_path, n, server.http_url, key) for n in "bc")
    keep = [f"the garden shed {i} holds the blue ladder" for i in range(20)]
    cold_id, *_ = archive(a, ["the vault combination is CanaryOrca 31-7-42", *keep])
    warm_id = memoryd(a, "store", "the spare key hides under the CanaryLynx stone", "--category", "home")["id"]
    memoryd(a, "store", "the bike lock code is 2468", "--category", "home")
    for cfg in (a, b, c, a):
        memoryd(cfg, "sync")
    old_recovery = give_recovery_key(a)
    homes = {name: sqldraw.secrets_in(cfg.home) for name, cfg in (("a", a), ("b", b), ("c", c))}
    rows, envs = everything(server)
    before = recovered(rows, envs, set().union(*homes.values()))
    assert all(s in before for s in SECRETS)  # the harness opens them while any device's keys would

    names = lambda: {e["name"] for e in memoryd(a, "entity", "list")["entities"]}  # noqa: E731
    assert {"CanaryOrca", "CanaryLynx"} <= names()
    out = memoryd(a, "forget", "--shred", cold_id)
    assert out["shred"]["reseal"]["dropped_epochs"] == [0] and out["shred"]["recovery"].startswith("mdr1-")
    out = memoryd(a, "forget", "--shred", warm_id)
    new_recovery = sqldraw.key_material([out["shred"]["recovery"]])
    assert len(new_recovery) == 1
    with open_index(a) as ix:  # read at rest, before any entity command refreshes them
        held = {r[0] for r in ix.read("SELECT name FROM entities")} | {r[0] for r in ix.read("SELECT key FROM "
                                                                                           "entity_mentions")}
    assert not any("canary" in n.casefold() for n in held), held  # no entity row keeps a shredded memory's names
    assert not {"CanaryOrca", "CanaryLynx"} & names()
    for cfg in (b, c):
        assert memoryd(cfg, "sync").get("rekeyed"), cfg.home  # each drops the old epochs and replaces its key pair
    for cfg in (a, b, c):
        memoryd(cfg, "sync")

    rows, envs = everything(server)
    secrets = set().union(*(sqldraw.secrets_in(cfg.home) for cfg in (a, b, c))) | new_recovery
    after = recovered(rows, envs, secrets)
    assert after and not any(s in after for s in SECRETS), "a key left somewhere opens the shredded memory"
    assert b"garden shed 7" in after and b"bike lock code" in after  # the keys left open all the rest
    assert any(s in recovered(rows, envs, {old_recovery}) for s in SECRETS)  # why the old one must be destroyed
    for cfg in (a, b, c):  # every other memory stays readable on all three devices
        assert set(keep) <= index_texts(cfg)
        assert "the bike lock code is 2468" in {e["text"] for e in state_of(cfg)["warm"]["entries"]}
        assert not any(s.decode() in t for t in index_texts(cfg) for s in SECRETS)
        for mid in (cold_id, warm_id):
            report = memoryd(cfg, "forget", "--verify", mid)
            assert report["clean"], (cfg.home, report)
    assert state_of(a) == state_of(b) == state_of(c)


def test_a_plain_forget_is_not_clean_and_shredding_it_later_is(tmp_path: Path, server: SqldServer) -> None:
    a, key = first_device(tmp_path, server.http_url)
    b = device(tmp_path, "b", server.http_url, key)
    cold_id, other = archive(a, ["the boat is named CanaryOrca", "the car is blue"])
    for cfg in (a, b, a):
        memoryd(cfg, "sync")
    memoryd(a, "forget", cold_id)
    report = memoryd(a, "forget", "--verify", cold_id, code=1)
    assert not report["clean"]
    out = memoryd(a, "forget", "--shred", cold_id)  # already forgotten: only the shred is left to do
    assert out["already_forgotten"] and out["removed"] == {"warm": 0, "hot": 0, "cold": 0}
    assert memoryd(a, "forget", "--verify", cold_id)["clean"]
    left = {p["place"]: p for p in memoryd(b, "forget", "--verify", cold_id, code=1)["places"]}
    assert left["key store"]["status"] == "remains"  # b has not synced since: it still holds the old epoch
    memoryd(b, "sync")
    assert memoryd(b, "forget", "--verify", cold_id)["clean"]
    assert "the car is blue" in index_texts(b)


def test_shred_forget_in_config_makes_every_forget_shred_and_mcp_never_gets_the_recovery_key(
        tmp_path: Path, server: SqldServer) -> None:
    from memoryd.daemon.api import connect
    from memoryd.tiers.base.config import load_config

    a, key = first_device(tmp_path, server.http_url)
    ids = archive(a, ["the locker code is CanaryOrca", "the gate code is CanaryLynx", "the sky is grey"])
    memoryd(a, "sync")
    give_recovery_key(a)
    (a.home / "config.toml").write_text("[sync]\nshred_forget = true\n")
    out = memoryd(a, "forget", ids[0])  # the config's default: a shred, the new recovery key printed once
    assert out["shred"]["reseal"]["dropped_epochs"] and out["shred"]["recovery"].startswith("mdr1-")
    # epochs and forgets carry milliseconds: these forgets come after the shred's epoch
    assert "shred" not in memoryd(a, "forget", ids[1], "--no-shred")
    assert not memoryd(a, "forget", "--verify", ids[1], code=1)["clean"]
    api = connect(load_config({"MEMORYD_HOME": str(a.home), "MEMORYD_DB_URL": server.http_url}))
    try:  # what the MCP server and the web view call: the config's shred, and no recovery key in the answer
        result = api.forget(agent_id=AGENT, memory_id=ids[1])
    finally:
        api.close()
    assert "recovery" not in result["shred"] and "key recovery --new" in result["shred"]["note"]
    places = {p["place"]: p for p in memoryd(a, "forget", "--verify", ids[1], code=1)["places"]}
    assert [f for f in places["key store"]["found"] if "recovery key" in f]  # the old one still opens the history
    assert "the sky is grey" in index_texts(a)
