"""A forget reaches every file derived from the memory (issue 30.4): canary strings stored in a warm and an
archived memory, every derived file made (consolidations, reflect, digests, render targets, the snapshot),
both forgotten through the console script; then no byte of either canary is left anywhere under
MEMORYD_HOME (SQLite files, their WAL included), and `forget --verify` finds every derived place clean."""
from __future__ import annotations

import datetime as dt
import json
import subprocess
import sys
import time
from pathlib import Path

from memoryd.daemon.engine import Engine
from memoryd.tiers.base.config import load_config
from memoryd.tiers.memory.consolidate import consolidate

CLI = str(Path(sys.executable).with_name("memoryd"))
AGENT = "default"
TOPICS = ("the roadmap", "the budget", "the hiring plan", "the release notes", "the database", "the offsite",
          "the API", "the tests", "the docs", "the launch", "the pricing")  # Ada named often: she gets a bank page
WARM_CANARY = "Zorblaxquintel"  # letters only: a word the tree, the entity pages and FTS5 would all take
COLD_CANARY = "Vexmortrandil"
DERIVED = ("summaries and digests", "bank pages", "working snapshot", "eviction and knowledge logs",
           "last-good copies", "local index", "warm", "hot")


def _env(root: Path) -> dict[str, str]:
    return {"MEMORYD_HOME": str(root / "home"), "MEMORYD_WORKSPACE": str(root / "ws"),
            "OPENCLAW_STATE_DIR": str(root / "oc"), "MEMORYD_RETRIEVAL_MODE": "keyword", "PATH": "/usr/bin:/bin",
            "HOME": str(root)}


def run(env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    out = subprocess.run([CLI, *args], env=env, capture_output=True, text=True, timeout=120)
    assert "Traceback" not in out.stderr, out.stderr
    return out


def ok(env: dict[str, str], *args: str) -> dict:
    out = run(env, *args, "--json")
    assert out.returncode == 0, (args, out.stdout, out.stderr)
    return json.loads(out.stdout)


def holders(home: Path, needle: bytes) -> list[str]:
    """Every file under the home whose bytes hold `needle` (as written, or in any letter case)."""
    found = []
    for path in sorted(p for p in home.rglob("*") if p.is_file()):
        data = path.read_bytes()
        if needle in data or needle.lower() in data.lower():
            found.append(str(path.relative_to(home)))
    return found


def test_a_forget_leaves_no_byte_of_the_memory_in_any_file_derived_from_it(tmp_path: Path) -> None:
    env = _env(tmp_path)
    home = tmp_path / "home"
    home.mkdir()
    (tmp_path / "oc").mkdir()
    (home / "config.toml").write_text(f'[render]\ntargets = ["file:{home / "rendered.md"}"]\n')
    ok(env, "init")
    config = load_config(dict(env))
    past = time.time() - 40 * 86400
    with Engine(config).memory(AGENT, clock=lambda: past) as mem:  # an old memory: archived to the index
        cold_id = mem.store(f"Ada Lovelace hid the spare key of the {COLD_CANARY} shed under the blue stone",
                            "people/ada", 0.3)["id"]
        mem.store("Ada Lovelace repaired the garden shed roof", "people/ada", 0.3)
    with Engine(config).memory(AGENT) as mem:
        consolidate(mem, "quick")
        for topic in TOPICS:
            mem.store(f"Talked with Ada Lovelace about {topic}", "people/ada", 0.6)
    warm_id = ok(env, "store", f"Talked with Ada Lovelace about the {WARM_CANARY} release train: it leaves "
                               "on Friday", "--category", "lessons/train", "--importance", "0.95")["id"]  # a lesson: promoted to hot
    for text in ("Lesson: brew Ada Lovelace's green tea for three minutes", "Decided with Ada Lovelace to use libSQL"):
        ok(env, "store", text, "--category", "lessons/ada", "--importance", "0.8")
    for mode in ("quick", "daily", "monthly", "full"):
        ok(env, "consolidate", "--mode", mode)
    ok(env, "reflect", "--since", "8w")
    ok(env, "digest")
    ok(env, "digest", "--date", dt.date.fromtimestamp(past).isoformat())
    ok(env, "render")
    ok(env, "retrieve", f"{WARM_CANARY} {COLD_CANARY}")
    assert len(holders(home, WARM_CANARY.encode())) >= 5, holders(home, WARM_CANARY.encode())  # derived widely
    assert any(p.startswith("agents/default/bank/") for p in holders(home, b"Ada Lovelace"))
    assert holders(home, COLD_CANARY.encode())

    for mid in (warm_id, cold_id):
        ok(env, "forget", mid)
    for canary in (WARM_CANARY, COLD_CANARY):
        assert holders(home, canary.encode()) == [], canary
    for mid in (warm_id, cold_id):
        report = json.loads(run(env, "forget", "--verify", mid, "--json").stdout)
        places = {p["place"]: p for p in report["places"]}
        assert {name: places[name]["status"] for name in DERIVED} == dict.fromkeys(DERIVED, "clean"), report
    assert "green tea for three minutes" in (home / "rendered.md").read_text()  # the rest is still there
    assert ok(env, "retrieve", "green tea")["results"]


def test_verify_reads_the_names_the_knowledge_layer_writes() -> None:
    from memoryd.tiers.knowledge import kinds, snapshot
    from memoryd.tiers.memory import forget_derived_traces as traces

    assert (traces.SUMMARISES_KEY, traces.SNAPSHOT) == (kinds.SUMMARISES_KEY, snapshot.FILE)


def test_a_forget_made_on_another_device_reaches_the_files_this_one_derived(tmp_path: Path, private_sqld) -> None:
    from synchelp import AGENT as SYNCED, device, env_for, first_device

    a, key = first_device(tmp_path, private_sqld.http_url)
    b = device(tmp_path, "b", private_sqld.http_url, key)
    env_a, env_b = env_for(a), env_for(b)
    mid = ok(env_a, "--agent-id", SYNCED, "store", f"The {WARM_CANARY} boat is moored at the north pier",
             "--category", "boats", "--importance", "0.9")["id"]
    ok(env_a, "--agent-id", SYNCED, "store", "The spare oars are in the shed", "--category", "boats")
    ok(env_a, "--agent-id", SYNCED, "sync")
    ok(env_b, "--agent-id", SYNCED, "sync")
    ok(env_b, "--agent-id", SYNCED, "consolidate", "--mode", "daily")  # b's own snapshot: what b derived itself
    assert holders(b.home, WARM_CANARY.encode())
    ok(env_a, "--agent-id", SYNCED, "forget", mid)
    ok(env_b, "--agent-id", SYNCED, "sync")
    assert holders(b.home, WARM_CANARY.encode()) == []
    assert "spare oars" in (b.home / "agents" / SYNCED / "snapshot.md").read_text()
