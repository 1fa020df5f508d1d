"""Edge cases found in review: privacy of forget, config checks, secrets in odd places, strict input."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memoryd.tiers.cold.source import open_index as open_archive
from memoryd.tiers.memory import hot as H
from memoryd.tiers.memory import tree as T
from memhelp import AgentMemory
from memoryd.tiers.base.config import load_config
from memoryd.tiers.memory.consolidate import consolidate
from memoryd.tiers.base.errors import ConfigError, LimitError, UsageError
from memoryd.tiers.memory.forget import forget_id
from memoryd.tiers.retrieval.filters import Filters
from memoryd.tiers.memory.transfer import import_from
from clock import T0, Clock

MEMORYD = str(Path(sys.executable).parent / "memoryd")


def run(*args: str | bytes, home: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, MEMORYD_HOME=str(home))
    return subprocess.run([MEMORYD, *args], env=env, capture_output=True, timeout=60)


def test_forget_leaves_no_local_trace(config) -> None:
    clock = Clock()
    mem = AgentMemory(config, "default", archive=open_archive(config), clock=clock)
    secret = mem.store("the alarm code for the back door is four digits", "home", 0.2)  # warm: not yet frozen
    mem.store("an unrelated later fact", "misc", 0.5)
    clock.days(31)
    consolidate(mem, "quick")  # past the retention with a low score: it goes to cold, with a preview in the log
    assert any(r.get("what") for r in mem.evictions.rows() if r.get("id") == secret["id"])
    forget_id(mem, secret["id"])
    for path in mem.dir.iterdir():
        if path.is_file():
            assert b"alarm code" not in path.read_bytes(), path.name
    assert mem.archive.get("default", [secret["id"]]) == []


def test_retention_must_be_sane(home: Path) -> None:
    home.mkdir(parents=True, exist_ok=True)
    for bad in ("0", "-1", '"ten"', "true"):
        (home / "config.toml").write_text(f"[retention]\ncold_years = {bad}\n")
        with pytest.raises(ConfigError, match="cold_years"):
            load_config({"MEMORYD_HOME": str(home)})
        r = run("consolidate", "--mode", "monthly", home=home)
        assert r.returncode == 2 and len(r.stderr.decode().strip().splitlines()) == 1


def test_prompt_file_does_not_touch_its_directory(home: Path, tmp_path: Path) -> None:
    assert run("store", "hello world fact", "--category", "a", home=home).returncode == 0
    out = tmp_path / "userproj"
    out.mkdir(mode=0o755)
    os.chmod(out, 0o755)
    r = run("retrieve", "hello", "--llm-prompt-file", str(out / "prompt.txt"), home=home)
    assert r.returncode == 0 and (out / "prompt.txt").read_text()
    assert out.stat().st_mode & 0o777 == 0o755


def test_secrets_never_reach_tree_keys_or_categories(config) -> None:
    mem = AgentMemory(config, "default")
    mem.change(lambda s, now: T.add_node(s["tree"], "ops", "ghp_abcdefghijklmnopqrstuvwxyz0123456789", now), "t")
    assert "ghp_" not in json.dumps(mem.read_state()["tree"])
    with pytest.raises(UsageError, match="secret"):
        H.set_identity(H.empty_hot(), "AKIAIOSFODNN7EXAMPLE", "value")
    with pytest.raises(UsageError, match="secret"):
        mem.store("some fact text", "keys/AKIAIOSFODNN7EXAMPLE")
    from memoryd.tiers.memory.status import agent_status

    assert agent_status(mem)["redactions"]  # hot/tree redactions are counted too


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["a", "bb", "ccc", "dddd"]), st.integers(0, 3), st.text("xyz", max_size=60)),
                min_size=1, max_size=60))
def test_tree_add_is_refused_rather_than_evicting_another_node(ops) -> None:
    from memoryd.tiers.memory.limits import enforce_all

    tree = T.empty_tree()
    for seg, depth, desc in ops:
        path = "/".join(f"{seg}{i}" for i in range(depth + 1))
        try:
            T.add_node(tree, path, desc, T0)
        except LimitError:
            continue
        state = {"hot": H.empty_hot(), "warm": {"entries": []}, "tree": tree}
        assert [e for e in enforce_all(state, T0)[1] if e["tier"] == "tree"] == []


@pytest.mark.parametrize("bad", ['"created_at": NaN', '"created_at": Infinity', '"metadata": {"urls": 5}',
                                 '"created_at": true'])
def test_import_refuses_non_numbers_and_mistyped_metadata(config, bad: str) -> None:
    import io

    entry = '{"id": "abc", "text": "llamas", "category": "zoo", "importance": 0.5, "access_count": 0, ' \
            '"created_at": 1700000000, "metadata": {}, ' + bad + "}"
    text = '{"format": "memoryd-export", "version": 1}\n{"type": "warm", "entry": ' + entry + "}\n"
    with pytest.raises(UsageError, match="line 2"):
        import_from(AgentMemory(config, "default"), io.StringIO(text))
    assert not config.agent_dir("default").exists()


def test_newlines_and_undecodable_bytes_are_bad_input(home: Path) -> None:
    for args in (["store", "x fact", "--category", "a", "--agent-id", "abc\n"],
                 ["store", "x fact", "--category", "x\n/y"],
                 [b"store", b"abc \xff def", b"--category", b"a"],
                 [b"hot", b"event", b"abc \xff def"]):
        r = run(*args, home=home)
        assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert not (home / "agents").exists() or not any((home / "agents").iterdir())


def test_stray_directories_and_unknown_agents(home: Path) -> None:
    assert run("store", "hello world fact", "--category", "a", home=home).returncode == 0
    (home / "agents" / "default.old").mkdir()
    r = run("status", "--json", home=home)
    assert r.returncode == 0 and [a["agent_id"] for a in json.loads(r.stdout)["agents"]] == ["default"]
    r = run("status", "--agent-id", "ghost", home=home)
    assert r.returncode == 2
    r = run("retrieve", "hello", "--agent-id", "typo", home=home)
    assert r.returncode == 0 and not (home / "agents" / "typo").exists()


def test_filters_alone_reach_cold(config) -> None:
    clock = Clock()
    mem = AgentMemory(config, "default", archive=open_archive(config), clock=clock)
    mem.store("Peter moved billing to Postgres 16", "people", 0.01,
              {"entities": ["Peter"], "date": "2023-11-14"})
    clock.days(2)
    consolidate(mem, "quick")
    assert mem.read_state()["warm"]["entries"] == [] and mem.archive.count("default") == 1
    assert [r["tier"] for r in mem.retrieve("", filters=Filters(entity="Peter"))] == ["cold"]
    dated = Filters.from_params({"since": "2023-11-14", "until": "2023-11-14"})
    assert [r["tier"] for r in mem.retrieve("", filters=dated)] == ["cold"]
    assert mem.retrieve("", filters=Filters.from_params({"since": "2024-01-01"})) == []


def test_identity_and_profile_entries_can_be_forgotten(config) -> None:
    mem = AgentMemory(config, "default")
    mem.change(lambda s, now: (H.set_identity(s["hot"], "name", "Claw"), H.set_profile(s["hot"], "city", "Oslo")), "t")
    ids = {r["id"] for r in mem.retrieve("Claw Oslo")}
    assert {"identity:name", "profile:city"} <= ids
    forget_id(mem, "identity:name")
    forget_id(mem, "profile:city")
    hot = mem.read_state()["hot"]
    assert hot["identity"] == {} and hot["owner_profile"] == {}
