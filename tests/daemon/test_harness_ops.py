"""harness_sync / harness_take / harness_status / harness_context over copies of what the real CLIs wrote."""
from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from memoryd.daemon.engine import Engine
from memoryd.daemon.hooks_context import fit
from memoryd.daemon.hooks_ops import harness_status, harness_sync, harness_take
from memoryd.daemon.hooks_context import harness_context
from memoryd.tiers.base.config import load_config
from memoryd.tiers.base.errors import UsageError

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "harnesses"
WIDGETS, GADGETS = "/home/dev/widgets", "/home/dev/gadgets"


@pytest.fixture
def dirs(home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    claude, codex = tmp_path / "claude", tmp_path / "codex"
    shutil.copytree(FIXTURES / "claude" / "projects", claude / "projects")
    shutil.copytree(FIXTURES / "codex" / "sessions", codex / "sessions")
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(claude))
    monkeypatch.setenv("CODEX_HOME", str(codex))
    monkeypatch.setenv("MEMORYD_RETRIEVAL_MODE", "keyword")
    return claude, codex


def _engine(home: Path, extra: str = "") -> Engine:
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(extra)
    return Engine(load_config(dict(os.environ)))


def _cold(engine: Engine, agent: str) -> list[str]:
    with engine.memory(agent) as mem:
        return [r[0] for r in mem.archive.read(f"SELECT text FROM memories WHERE agent_id = '{agent}'")]


def test_sync_takes_both_harnesses_once(home: Path, dirs) -> None:
    engine = _engine(home)
    claude = harness_sync(engine, {"harness": "claude"})
    codex = harness_sync(engine, {"harness": "codex"})
    assert [a["agent_id"] for a in claude["agents"]] == ["claude"] and claude["turns"] == 17 and claude["notes"] == 1
    assert [a["agent_id"] for a in codex["agents"]] == ["codex"] and codex["turns"] == 14
    cold = _cold(engine, "claude")
    assert "Remember that the staging database listens on port 5433." in cold
    assert not any(n in t for t in cold for n in ("<summary>", "tool_result", "Bash completed", "<command-name>"))
    for harness in ("claude", "codex"):  # a second sync adds nothing
        again = harness_sync(engine, {"harness": harness})
        assert (again["turns"], again["warm"], again["notes"]) == (0, 0, 0)
    assert len(_cold(engine, "claude")) == len(cold)
    engine.close()


def test_appended_lines_are_taken_from_the_cursor_on(home: Path, dirs) -> None:
    claude_dir, _ = dirs
    engine = _engine(home)
    harness_sync(engine, {"harness": "claude"})
    path = next((claude_dir / "projects" / "-home-dev-widgets").glob("e5840a01*.jsonl"))
    line = {"type": "user", "message": {"role": "user", "content": "We ship the widgets release on Fridays."},
            "timestamp": "2026-11-28T07:00:00Z", "cwd": WIDGETS, "promptSource": "sdk"}
    with open(path, "a") as fh:
        fh.write(json.dumps(line) + "\n" + json.dumps(line)[:40])  # the second line is still being written
    got = harness_take(engine, {"harness": "claude", "path": str(path)})
    assert got["turns"] == 1 and got["agent_id"] == "claude"
    assert harness_take(engine, {"harness": "claude", "path": str(path)})["turns"] == 0
    status = harness_status(engine, {})["harnesses"][0]["agents"][0]
    cursor = next(c for c in status["cursors"] if c["file"] == str(path))
    assert cursor["pending_bytes"] == 40 and status["turns"] == 18
    with pytest.raises(UsageError):
        harness_take(engine, {"harness": "vim", "path": str(path)})
    engine.close()


def test_the_projects_map_and_the_hook_agent_choose_the_agent(home: Path, dirs) -> None:
    engine = _engine(home, f'[harness]\nprojects = ["{WIDGETS}=widgets-team"]\n')
    assert [a["agent_id"] for a in harness_sync(engine, {"harness": "claude", "hook_agent": "x"})["agents"]] == \
        ["widgets-team"]  # the map wins over the hook's --agent-id
    assert [a["agent_id"] for a in harness_sync(engine, {"harness": "codex", "hook_agent": "mine"})["agents"]] == \
        ["mine"]
    engine.close()


def test_context_holds_the_project_facts_within_budget(home: Path, dirs) -> None:
    engine = _engine(home)
    assert harness_context(engine, {"harness": "claude", "cwd": WIDGETS})["context"] == ""  # nothing yet
    harness_sync(engine, {"harness": "claude"})
    got = harness_context(engine, {"harness": "claude", "cwd": WIDGETS})
    text = got["context"]
    assert "tabs over spaces" in text and "5433" in text and len(text) <= 10_000
    assert "There are a few files here" not in text  # raw assistant turns stay out
    with pytest.raises(UsageError):
        harness_context(engine, {"harness": "claude", "cwd": "relative/dir"})
    engine.close()


def test_fit_cuts_at_a_line_within_the_budget() -> None:
    body = "\n".join(f"- memory number {i} " + "x" * 80 for i in range(300))
    out = fit([("Hot memory", "short"), ("Project", body)], 2000)
    assert len(out) <= 2000 and out.startswith("## Hot memory\nshort") and out.rstrip().endswith("x" * 80)
