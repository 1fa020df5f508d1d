"""Core CLI: exit codes 0/1/2, one-line stderr, --json prints one document, no file changed on bad input."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from clihelp import snapshot
from memoryd.cli.main import cli

MEMORYD = shutil.which("memoryd", path=str(Path(sys.executable).parent)) or "memoryd"


def run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """The real console script in a fresh process."""
    return subprocess.run([MEMORYD, *args], capture_output=True, text=True, timeout=60,
                          env=dict(os.environ, **(env or {})))


def invoke(*args: str) -> "object":
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def run_main(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    """The console-script entry point (memoryd.cli.main:main) in this process: fast, same code path."""
    from memoryd.cli.main import main

    runner = CliRunner()
    code = 0
    saved = sys.argv
    with runner.isolation(env=env) as (out, err, _):
        sys.argv = ["memoryd", *args]
        try:
            main()
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        finally:
            sys.argv = saved
        sys.stdout.flush()
        sys.stderr.flush()
        stdout, stderr = out.getvalue().decode(), err.getvalue().decode()
    return subprocess.CompletedProcess(args, code, stdout, stderr)


def one_json(stdout: str):
    text = stdout.strip()
    assert text and "\n" not in text, f"expected one JSON line, got {stdout!r}"
    doc = json.loads(text)
    assert isinstance(doc, dict) and doc.pop("schema") == 1, doc  # every --json answer: one versioned object
    return doc


def one_line_error(stderr: str) -> None:
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("memoryd: "), stderr
    assert "Traceback" not in stderr


# --- happy paths (CliRunner, in-process) ------------------------------------------------------

def test_init_store_retrieve_json(home: Path) -> None:
    r = invoke("init", "--json")
    assert r.exit_code == 0, r.output
    info = one_json(r.stdout)
    assert info["agent_id"] == "default" and Path(info["dir"]).is_dir()
    assert invoke("init").exit_code == 0  # idempotent
    r = invoke("store", "I really love Beijing roast duck 北京烤鸭", "--category", "food/chinese", "--json")
    assert r.exit_code == 0
    entry = one_json(r.stdout)
    assert entry["category"] == "food/chinese" and len(entry["id"]) == 16
    r = invoke("store", "Use ripgrep for code search", "--category", "dev/tools", "--importance", "0.6")
    assert r.exit_code == 0 and len(r.stdout.strip()) == 16
    r = invoke("retrieve", "烤鸭", "--json")
    assert r.exit_code == 0
    results = one_json(r.stdout)["results"]
    assert results[0]["id"] == entry["id"]
    for key in ("id", "text", "category", "tier", "score", "reason", "path"):
        assert key in results[0]
    r = invoke("retrieve", "duck")
    assert r.exit_code == 0 and "why:" in r.stdout and "[warm]" in r.stdout


def test_agent_id_before_or_after_command(home: Path) -> None:
    assert invoke("--agent-id", "bot1", "store", "fact one", "--category", "c").exit_code == 0
    assert invoke("store", "fact two", "--category", "c", "--agent-id", "bot2").exit_code == 0
    assert sorted(p.name for p in (home / "agents").iterdir()) == ["bot1", "bot2"]
    data = one_json(invoke("status", "--json").stdout)
    assert [a["agent_id"] for a in data["agents"]] == ["bot1", "bot2"]


def test_hot_commands_render_memory_md(home: Path) -> None:
    for args in (["identity", "name", "Clawd"], ["profile", "timezone", "Asia/Shanghai"],
                 ["project", "EvoClaw", "--description", "agent framework"], ["event", "shipped v1"],
                 ["task", "write docs"], ["lesson", "Never force-push main", "--importance", "0.9"]):
        r = invoke("hot", *args, "--json")
        assert r.exit_code == 0, (args, r.output)
        one_json(r.stdout)
    hot = one_json(invoke("hot", "show", "--json").stdout)
    assert hot["identity"] == {"name": "Clawd"} and len(hot["critical_lessons"]) == 1
    md = (home / "agents" / "default" / "MEMORY.md").read_text("utf-8")
    assert "Clawd" in md and "Never force-push main" in md and "shipped v1" in md
    assert "Clawd" in invoke("hot", "show").stdout


def test_tree_commands(home: Path) -> None:
    assert invoke("tree", "add", "projects/evoclaw", "EvoClaw framework").exit_code == 0
    tree = one_json(invoke("tree", "show", "--json").stdout)
    assert set(tree["nodes"]) == {"projects", "projects/evoclaw"}
    r = invoke("tree", "show")
    assert r.exit_code == 0 and "projects/evoclaw — EvoClaw framework" in r.stdout
    assert invoke("store", "EvoClaw uses a plugin bus", "--category", "projects/evoclaw").exit_code == 0
    r = invoke("tree", "remove", "projects/evoclaw")
    assert r.exit_code == 2 and "memories" in r.stderr
    assert one_json(invoke("tree", "prune", "--json").stdout) == {"pruned": []}
    assert invoke("tree", "add", "scratch").exit_code == 0
    assert invoke("tree", "remove", "scratch").exit_code == 0
    assert "scratch" not in one_json(invoke("tree", "show", "--json").stdout)["nodes"]


def test_consolidate_and_status(home: Path) -> None:
    invoke("store", "A fact", "--category", "c", "--importance", "0.5")
    for mode in ("quick", "daily", "monthly", "full"):
        r = invoke("consolidate", "--mode", mode, "--json")
        assert r.exit_code == 0, r.output
        assert one_json(r.stdout)["mode"] == mode
    data = one_json(invoke("status", "--json").stdout)
    agent = data["agents"][0]
    assert all(agent["consolidation"][m]["ok"] for m in ("quick", "daily", "monthly", "full"))
    assert agent["warm"]["entries"] == 1 and agent["hot"]["bytes"] <= 5120
    human = invoke("status").stdout
    assert "agent default" in human and "warm" in human


def test_urls_and_forget(home: Path) -> None:
    r = invoke("store", "Docs at https://example.org/docs and more", "--category", "links", "--json")
    entry = one_json(r.stdout)
    assert one_json(invoke("urls", "--json").stdout)["urls"] == ["https://example.org/docs"]
    r = invoke("forget", entry["id"], "--json")
    assert r.exit_code == 0 and one_json(r.stdout)["removed"]["warm"] == 1
    assert one_json(invoke("urls", "--json").stdout)["urls"] == []


# --- the real console script: exit codes, one-line errors, nothing changed ---------------------

BAD_INPUT = [
    ["store", "", "--category", "a"],
    ["store", "   ", "--category", "a"],
    ["store", "no category"],
    ["store", "abc", "--category", "a", "--importance", "1.5"],
    ["store", "abc", "--category", "a", "--importance", "-0.1"],
    ["store", "abc", "--category", "a", "--importance", "nan"],
    ["store", "abc", "--category", "a", "--importance", "high"],
    ["store", "abc", "--category", "a/b/c/d/e"],
    ["store", "abc", "--category", "a//b"],
    ["store", "abc", "--category", ""],
    ["store", "x" * 4097, "--category", "a"],
    ["store", "abc", "--category", "a", "--agent-id", "../x"],
    ["--agent-id", "../x", "store", "abc", "--category", "a"],
    ["store", "abc", "--category", "a", "--agent-id", ""],
    ["retrieve", ""],
    ["retrieve", "x", "--limit", "0"],
    ["retrieve", "x", "--mode", "magic"],
    ["hot", "identity", "", "v"],
    ["hot", "event", ""],
    ["hot", "lesson", "x", "--importance", "2"],
    ["tree", "add", "a/b/c/d/e", "too deep"],
    ["tree", "add", "x", "d" * 61],
    ["tree", "remove", "nothere"],
    ["consolidate", "--mode", "hourly"],
    ["forget"],
    ["forget", "--days", "0"],
    ["forget", "--days", "nan"],
    ["forget", "0000000000000000"],
    ["status", "--agent-id", "../x"],
    ["no-such-command"],
    ["store", "", "--category", "a", "--json"],
    ["tree", "add", "a/b/c/d/e", "--json"],
    ["forget", "--days", "-3", "--json"],
]


@pytest.fixture(scope="module")
def seeded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A home with an initialised agent holding one memory (read-only for the bad-input tests)."""
    h = tmp_path_factory.mktemp("seeded") / "home"
    env = {"MEMORYD_HOME": str(h)}
    assert run("init", env=env).returncode == 0
    assert run("store", "A fact to keep", "--category", "a", env=env).returncode == 0
    assert run("tree", "add", "a/full", "node", env=env).returncode == 0
    return h


def test_bad_input_in_a_real_process(seeded: Path) -> None:
    before = snapshot(seeded)
    for args in (["store", "", "--category", "a"], ["--agent-id", "../x", "store", "a", "--category", "a"],
                 ["store", "abc", "--category", "a/b/c/d/e"]):
        r = run(*args, env={"MEMORYD_HOME": str(seeded)})
        assert r.returncode == 2 and r.stdout == ""
        one_line_error(r.stderr)
    assert snapshot(seeded) == before


@pytest.mark.parametrize("args", BAD_INPUT, ids=lambda a: " ".join(a)[:40])
def test_bad_input_exit_2_one_line_nothing_changed(home: Path, seeded: Path, args: list[str]) -> None:
    env = {"MEMORYD_HOME": str(seeded)}
    before = snapshot(seeded)
    r = run_main(*args, env=env)
    assert r.returncode == 2, (r.returncode, r.stderr)
    if "--json" in args:  # the error is the one JSON object on stdout, with the same exit code
        error = one_json(r.stdout)["error"]
        assert error["exit"] == 2 and error["code"] in ("usage", "limit", "config") and error["message"]
        assert r.stderr == ""
    else:
        one_line_error(r.stderr)
        assert r.stdout == ""
    assert snapshot(seeded) == before


@pytest.mark.parametrize("args", [["store", "abc", "--category", "a//b"], ["tree", "remove", "nothere"],
                                  ["forget", "0000000000000000"], ["retrieve", ""]],
                         ids=lambda a: " ".join(a)[:30])
def test_bad_input_on_fresh_home_creates_nothing(home: Path, tmp_path: Path, args: list[str]) -> None:
    h = tmp_path / "home"
    r = run_main(*args, env={"MEMORYD_HOME": str(h)})
    assert r.returncode == 2
    one_line_error(r.stderr)
    assert snapshot(h) == {}, sorted(snapshot(h))


def test_json_output_is_one_document(tmp_path: Path) -> None:
    env = {"MEMORYD_HOME": str(tmp_path / "h")}
    for args in (["init", "--json"], ["store", "Gamma fact 伽马", "--category", "g", "--json"],
                 ["retrieve", "伽马", "--json"], ["hot", "show", "--json"], ["tree", "show", "--json"],
                 ["status", "--json"], ["consolidate", "--json"], ["urls", "--json"]):
        r = run(*args, env=env)
        assert r.returncode == 0, (args, r.stderr)
        one_json(r.stdout)


def test_failure_not_callers_fault_exits_1(tmp_path: Path) -> None:
    h = tmp_path / "h"
    env = {"MEMORYD_HOME": str(h)}
    assert run("init", env=env).returncode == 0  # the key: without it, sync is a usage error (exit 2)
    assert run("store", "fact", "--category", "c", env=env).returncode == 0
    down = dict(env, MEMORYD_DB_URL="http://127.0.0.1:1")
    assert run("retrieve", "fact", env=down).returncode == 0  # reading never needs the server
    r = run("sync", env=down)
    assert r.returncode == 1
    one_line_error(r.stderr)
    warm = h / "agents" / "default" / "warm-memory.json"
    warm.unlink()
    warm.mkdir()  # unreadable state file
    r = run("store", "another", "--category", "c", env=env)
    assert r.returncode == 1
    one_line_error(r.stderr)


def test_bad_config_exits_2(tmp_path: Path) -> None:
    r = run("status", env={"MEMORYD_HOME": str(tmp_path / "h"), "MEMORYD_DB_URL": "ftp://nope"})
    assert r.returncode == 2
    one_line_error(r.stderr)


def test_corrupt_state_warns_and_recovers(tmp_path: Path) -> None:
    h = tmp_path / "h"
    env = {"MEMORYD_HOME": str(h)}
    first = run("store", "first fact", "--category", "c", env=env).stdout.strip()
    run("store", "second fact", "--category", "c", env=env)
    (h / "agents" / "default" / "warm-memory.json").write_text("{torn")
    r = run("retrieve", "fact", "--json", env=env)
    assert r.returncode == 0
    assert [x["id"] for x in one_json(r.stdout)["results"]] == [first]
    assert "corrupt" in r.stderr and "warm-memory.json" in r.stderr
    assert any(p.name.startswith("warm-memory.json.corrupt-") for p in (h / "agents" / "default").iterdir())


def test_store_over_tree_limit_notes_fallback(home: Path, tmp_path: Path) -> None:
    env = {"MEMORYD_HOME": str(tmp_path / "h")}
    for i in range(10):
        assert run_main("tree", "add", f"p/c{i}", env=env).returncode == 0
    r = run_main("tree", "add", "p/c10", env=env)
    assert r.returncode == 2 and "children" in r.stderr
    one_line_error(r.stderr)
    r = run("store", "fact for a new child", "--category", "p/new", "--json", env=env)
    assert r.returncode == 0 and one_json(r.stdout)["category"] == "p"
    assert "note: filed under 'p'" in r.stderr


def test_consolidate_archives_and_status_reports_cold_and_evictions(home: Path, config) -> None:
    import time

    from memhelp import AgentMemory

    past = time.time() - 40 * 86400  # stored 40 days ago (injected clock), consolidated now by the CLI
    old = AgentMemory(config, "default", clock=lambda: past).store("An old minor note", "notes", importance=0.4)
    r = invoke("consolidate", "--mode", "daily", "--json")
    assert r.exit_code == 0, r.output
    report = one_json(r.stdout)
    assert report["counts"]["to_cold"] == 1 and report["counts"]["archived"] == 1 and report["cold_count"] == 1
    agent = one_json(invoke("status", "--json").stdout)["agents"][0]
    assert agent["cold"]["count"] == 1 and "pending_upload" not in agent["cold"] and agent["warm"]["entries"] == 0
    assert agent["evictions"]["total"] >= 1 and agent["evictions"]["by_kind"].get("warm/entry") == 1
    assert agent["consolidation"]["daily"]["ok"] is True
    hits = one_json(invoke("retrieve", "old minor note", "--json").stdout)["results"]
    assert [(h["id"], h["tier"]) for h in hits] == [(old["id"], "cold")]


def test_retrieve_reinforces_and_filters_by_url(home: Path) -> None:
    a = one_json(invoke("store", "Read https://docs.python.org/3/library/json.html for JSON", "--category",
                        "dev/python", "--json").stdout)
    invoke("store", "Unrelated fact about tea", "--category", "misc")
    hits = one_json(invoke("retrieve", "--url", "docs.python.org", "--json").stdout)["results"]
    assert [h["id"] for h in hits] == [a["id"]]
    assert one_json(invoke("retrieve", "json", "--json").stdout)["results"][0]["access_count"] == 2
    from memhelp import AgentMemory
    from memoryd.tiers.base.config import load_config

    warm = {e["id"]: e for e in AgentMemory(load_config(), "default").read_state()["warm"]["entries"]}
    assert warm[a["id"]]["access_count"] == 2
    invoke("store", "A later fact folds the counts in", "--category", "misc")
    entries = json.loads((home / "agents" / "default" / "warm-memory.json").read_text("utf-8"))["entries"]
    assert {e["id"]: e for e in entries}[a["id"]]["access_count"] == 2


def test_hot_identity_key_with_spaces(home: Path) -> None:
    r = run_main("hot", "identity", " name", "Clawd", env={"MEMORYD_HOME": str(home)})
    assert r.returncode in (0, 2), r.stderr
    if r.returncode == 2:
        one_line_error(r.stderr)
    else:
        assert one_json(invoke("hot", "show", "--json").stdout)["identity"] == {"name": "Clawd"}


def test_a_stored_lesson_reaches_hot_lessons_with_its_source(home: Path) -> None:
    """An agent's store read as a lesson by the cues a note's line is read by goes to hot lessons, as the note's
    line would; a store of rules that are no lesson of the owner's (a card's terms) and a plain fact do not."""
    rule = one_json(invoke("store", "Rule: never run the migration script on a Friday afternoon.",
                           "--category", "ops", "--json").stdout)
    zh = one_json(invoke("store", "规则：周报一律周三上午发，不拖。", "--category", "ops", "--json").stdout)
    for text in ("停车卡规则：包月三百，年卡三千。", "Fixed the flaky login test today."):
        assert invoke("store", text, "--category", "ops").exit_code == 0
    hot = one_json(invoke("hot", "show", "--json").stdout)
    lessons = {x["text"]: x.get("source_id") for x in hot["critical_lessons"]}
    assert lessons == {"Rule: never run the migration script on a Friday afternoon.": rule["id"],
                       "规则：周报一律周三上午发，不拖。": zh["id"]}, lessons
    assert "migration script" in (home / "agents" / "default" / "MEMORY.md").read_text(encoding="utf-8")
