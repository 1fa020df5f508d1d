"""What a user meets first: help on stdout, JSON errors, progress only on a terminal, shell completion."""
from __future__ import annotations

import importlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from clihelp import run_on_terminal
from memoryd.cli.main import COMMANDS, cli

BIN = Path(sys.executable).parent
MEMORYD = shutil.which("memoryd", path=str(BIN)) or "memoryd"


def run(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run([MEMORYD, *args], capture_output=True, text=True, timeout=120,
                          env={**os.environ, **env}, stdin=subprocess.DEVNULL)


def _notes(workspace: Path, days: int) -> None:
    (workspace / "memory").mkdir(parents=True, exist_ok=True)
    for day in range(1, days + 1):
        (workspace / "memory" / f"2025-03-{day:02d}.md").write_text(
            f"# 2025-03-{day:02d}\n\n## Retain\n- W @Alice chose tool number {day} for the build\n", encoding="utf-8")


# -- help ---------------------------------------------------------------------------------------
def test_memoryd_alone_prints_help_on_stdout_and_succeeds(tmp_path: Path) -> None:
    r = run(env={"MEMORYD_HOME": str(tmp_path / "h")})
    assert r.returncode == 0 and r.stderr == ""
    assert r.stdout.startswith("Usage: memoryd") and "retrieve" in r.stdout and "config" in r.stdout


def _all_commands() -> list[tuple[str, click.Command]]:
    for module in sorted(set(COMMANDS.values())):
        importlib.import_module(f"memoryd.cli.{module}")
    out: list[tuple[str, click.Command]] = []

    def walk(cmd: click.Command, path: str) -> None:
        out.append((path, cmd))
        for name, sub in getattr(cmd, "commands", {}).items():
            walk(sub, f"{path} {name}")

    walk(cli, "memoryd")
    return out


def test_every_command_and_subcommand_has_a_one_line_help() -> None:
    commands = _all_commands()
    assert len(commands) > 30  # hot, tree, key, service, config groups included
    for path, cmd in commands:
        assert cmd.help and cmd.help.strip(), f"{path} has no help"
        assert cmd.get_short_help_str(limit=120).strip(), path
        res = CliRunner().invoke(cli, [*path.split()[1:], "--help"])
        assert res.exit_code == 0 and res.stdout.startswith("Usage:"), path


# -- JSON -------------------------------------------------------------------------------------------
def test_json_errors_are_one_object_on_stdout_with_the_same_exit_codes(tmp_path: Path) -> None:
    env = {"MEMORYD_HOME": str(tmp_path / "h")}
    cases = [  # (args, exit code, error code)
        (["store", "x", "--category", "a/b/c/d/e", "--json"], 2, "usage"),       # ours: bad input
        (["retrieve", "q", "--limit", "0", "--json"], 2, "usage"),                # click's: bad option value
        (["store", "--json", "x"], 2, "usage"),                                   # click's: missing option
        (["forget", "0123456789abcdef", "--json"], 2, "usage"),
        (["status", "--json"], 2, "config"),                                      # a bad config.toml
    ]
    for args, code, kind in cases:
        if kind == "config":
            (tmp_path / "h").mkdir(exist_ok=True)
            (tmp_path / "h" / "config.toml").write_text("[schedul]\n")
        r = run(*args, env=env)
        assert r.returncode == code, (args, r.stdout, r.stderr)
        doc = json.loads(r.stdout)
        assert doc["schema"] == 1 and doc["error"]["code"] == kind and doc["error"]["exit"] == code, doc
        assert doc["error"]["message"] and "\n" not in r.stdout.strip() and r.stderr == ""
    r = run("status", env=env)  # the same error without --json: one line on stderr
    assert r.returncode == 2 and r.stdout == "" and r.stderr.startswith("memoryd: ")


def test_a_failure_not_the_callers_fault_is_exit_1_in_json_too(tmp_path: Path) -> None:
    env = {"MEMORYD_HOME": str(tmp_path / "h")}
    assert run("store", "a fact", "--category", "c", env=env).returncode == 0
    warm = tmp_path / "h" / "agents" / "default" / "warm-memory.json"
    warm.unlink()
    warm.mkdir()  # the state file cannot be read
    r = run("store", "another", "--category", "c", "--json", env=env)
    doc = json.loads(r.stdout)
    assert r.returncode == 1 and doc["error"]["exit"] == 1 and doc["error"]["code"] in ("store", "os")


def test_retrieve_json_is_an_object_that_tells_empty_from_changed(tmp_path: Path) -> None:
    env = {"MEMORYD_HOME": str(tmp_path / "h")}
    empty = json.loads(run("retrieve", "nothing here", "--json", env=env).stdout)
    assert empty["schema"] == 1 and empty["results"] == [] and isinstance(empty["warnings"], list)
    run("store", "Tea is best with lemon", "--category", "food", env=env)
    found = json.loads(run("retrieve", "tea lemon", "--json", env=env).stdout)
    assert found["schema"] == 1 and [r["text"] for r in found["results"]] == ["Tea is best with lemon"]


# -- progress -----------------------------------------------------------------------------------------
def test_progress_bar_on_a_terminal_and_none_when_piped_or_json(tmp_path: Path) -> None:
    env = {"MEMORYD_HOME": str(tmp_path / "h"), "MEMORYD_WORKSPACE": str(tmp_path / "ws")}
    _notes(tmp_path / "ws", 12)
    code, screen = run_on_terminal("ingest-daily", "--all", env=env)
    assert code == 0, screen
    assert "daily notes" in screen and "12/12" in screen and "[" in screen  # label, counts, bar
    assert "ingested 12 note(s)" in screen
    code, screen = run_on_terminal("export", str(tmp_path / "out.jsonl"), env=env)
    assert code == 0 and "export out.jsonl" in screen and "/15" in screen, screen  # 3 + 12 warm lines
    code, screen = run_on_terminal("import", str(tmp_path / "out.jsonl"), "--json", env=env)
    assert code == 0 and "daily notes" not in screen and "[#" not in screen
    assert json.loads(screen.strip())["schema"] == 1  # --json: the one object, no bar

    piped = run("ingest-daily", "--all", env=env)
    assert piped.returncode == 0 and "daily notes" not in piped.stderr and "\r" not in piped.stderr
    piped = run("export", str(tmp_path / "again.jsonl"), env=env)
    assert piped.returncode == 0 and piped.stderr == "" and piped.stdout.startswith("exported 15 lines")


def _stale_index_of(home: Path, rows: int) -> None:
    """An index of `rows` cold memories whose terms an older analyzer built (as after an upgrade)."""
    import sqlite3

    env = {"MEMORYD_HOME": str(home)}
    run("store", "seed fact about tea", "--category", "food", env=env)
    if not (home / "x.jsonl").exists():
        run("export", str(home / "x.jsonl"), env=env)
        lines = (home / "x.jsonl").read_text().splitlines()
        warm = next(json.loads(line)["entry"] for line in lines if json.loads(line).get("type") == "warm")
        cold = [json.dumps({"type": "cold", "entry": dict(warm, id=f"c{i:015d}", text=f"old fact {i} on coffee")})
                for i in range(rows)]
        (home / "c.jsonl").write_text("\n".join([lines[0], *cold]) + "\n")
        assert run("import", str(home / "c.jsonl"), env=env).returncode == 0
    with sqlite3.connect(home / "cold.db") as db:
        assert db.execute("UPDATE index_meta SET value = 'older analyzer' WHERE key LIKE 'sig:%'").rowcount == 1


@pytest.mark.parametrize("args", [["status"], ["consolidate", "--mode", "full"], ["retrieve", "coffee"]])
def test_an_index_rebuilt_after_an_upgrade_draws_a_bar_in_whichever_command_meets_it(
        tmp_path: Path, args: list[str]) -> None:
    home = tmp_path / "h"
    _stale_index_of(home, 600)
    code, screen = run_on_terminal(*args, env={"MEMORYD_HOME": str(home)})
    assert code == 0, screen
    assert "index" in screen and "600/600" in screen and "[#" in screen, screen
    assert "600/600" not in screen.rstrip().splitlines()[-1]  # the result is printed after the bar, on lines of its own
    _stale_index_of(home, 600)
    piped = run(*args, env={"MEMORYD_HOME": str(home)})
    assert piped.returncode == 0 and "600/600" not in piped.stderr and "\r" not in piped.stderr, piped.stderr
    _stale_index_of(home, 600)
    code, screen = run_on_terminal(*args, "--json", env={"MEMORYD_HOME": str(home)})
    assert code == 0 and "600/600" not in screen and "[#" not in screen
    assert json.loads(screen.rstrip().splitlines()[-1])["schema"] == 1  # stderr's warnings share the pty


def test_core_code_reports_to_the_current_reporter(config, tmp_path: Path) -> None:
    from memoryd.tiers.memory.agent import AgentMemory
    from memoryd.tiers.ingest.dailynotes import ingest
    from memoryd.tiers.base.progress import reporting

    class Counting:
        def __init__(self) -> None:
            self.events: list[tuple] = []

        def start(self, label: str, total: int | None):
            self.events.append(("start", label, total))
            return lambda n=1: self.events.append(("advance", n))

    _notes(config.workspace, 3)
    seen = Counting()
    with reporting(seen):
        ingest(AgentMemory(config, "default"), config.workspace, all_=True)
    assert seen.events[0] == ("start", "daily notes", 3)
    assert sum(n for kind, n in seen.events[1:]) == 3  # every note counted (a batch of notes at a time)
    quiet = Counting()
    ingest(AgentMemory(config, "default"), config.workspace, all_=True)  # outside: the silent default
    assert quiet.events == []


# -- shell completion ---------------------------------------------------------------------------------
def test_bash_completion_as_the_readme_says(tmp_path: Path) -> None:
    script = ('eval "$(_MEMORYD_COMPLETE=bash_source memoryd)"; '
              'COMP_WORDS=(memoryd hot); COMP_CWORD=1; _memoryd_completion memoryd; echo "${COMPREPLY[@]}"; '
              'COMPREPLY=(); COMP_WORDS=(memoryd hot le); COMP_CWORD=2; _memoryd_completion memoryd; echo "${COMPREPLY[@]}"')
    env = {**os.environ, "PATH": f"{BIN}:{os.environ.get('PATH', '')}", "MEMORYD_HOME": str(tmp_path / "h")}
    r = subprocess.run(["bash", "-c", script], capture_output=True, text=True, env=env, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == ["hot", "lesson"]


@pytest.mark.parametrize("shell", ["zsh", "fish"])
def test_zsh_and_fish_completion_scripts_and_answers(shell: str, tmp_path: Path) -> None:
    home = {"MEMORYD_HOME": str(tmp_path / "h")}
    r = run(env={"_MEMORYD_COMPLETE": f"{shell}_source", **home})
    assert r.returncode == 0 and f"_MEMORYD_COMPLETE={shell}_complete" in r.stdout
    # what the sourced script asks back when the user presses tab after `memoryd tree `
    current = {"zsh": "2", "fish": ""}[shell]  # zsh passes the word index, fish the word being typed
    answer = run(env={"_MEMORYD_COMPLETE": f"{shell}_complete", "COMP_WORDS": "memoryd tree ",
                      "COMP_CWORD": current, **home})
    assert answer.returncode == 0 and "prune" in answer.stdout and "show" in answer.stdout, answer.stdout
