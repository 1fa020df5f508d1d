"""Finding OpenClaw: state dir, agents, workspaces from openclaw.json (JSON5 too), older overrides."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from memoryd.tiers.base.config import load_config
from memoryd.tiers.ingest.openclaw.install import Install


@pytest.fixture
def state(home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    s = tmp_path / "oc"
    (s / "agents" / "main" / "agent").mkdir(parents=True)
    (s / "agents" / "work" / "sessions").mkdir(parents=True)
    monkeypatch.setenv("OPENCLAW_STATE_DIR", str(s))
    monkeypatch.delenv("MEMORYD_WORKSPACE")
    return s


def test_defaults_follow_openclaw(state: Path) -> None:
    inst = Install(load_config())
    assert inst.agent_ids() == ["main", "work"] and inst.default_agent() == "main"
    main, work = inst.agents()
    assert (main.memoryd_id, main.workspace) == ("main", state / "workspace")
    assert work.workspace == state / "workspace-work"
    assert main.store == state / "agents" / "main" / "agent" / "openclaw-agent.sqlite"
    assert work.sessions_dir == state / "agents" / "work" / "sessions"


def test_openclaw_json5_config_names_workspaces(state: Path, tmp_path: Path) -> None:
    (state / "openclaw.json").write_text("""{
      // JSON5: comments and trailing commas
      agents: {"defaults": {"workspace": "~/ws",}, "list": [{"id": "ops", "default": true},
               {"id": "work", "workspace": "$OPENCLAW_STATE_DIR/work-space"},],},
    }""".replace('agents:', '"agents":'))
    inst = Install(load_config())
    assert inst.warning is None and inst.default_agent() == "ops"
    assert inst.workspace("ops") == Path("~/ws").expanduser()
    assert inst.workspace("work") == state / "work-space"
    assert inst.workspace("main") == Path("~/ws").expanduser() / "main"
    assert "ops" in inst.agent_ids()
    (state / "openclaw.json").write_text("{not json at all")
    broken = Install(load_config())
    assert broken.warning and broken.workspace("main") == state / "workspace"


def test_agents_entries_roster_of_2026_9(state: Path) -> None:
    (state / "openclaw.json").write_text('{"agents": {"entries": {"main": {}, "research": {"workspace": "/srv/r"}},'
                                         ' "defaults": {"systemAgent": {"agentId": "main"}}}}')
    inst = Install(load_config())
    assert inst.default_agent() == "main" and {"main", "research", "work"} <= set(inst.agent_ids())
    assert inst.workspace("research") == Path("/srv/r") and inst.workspace("main") == state / "workspace"


def test_older_overrides_keep_working(state: Path, home: Path, tmp_path: Path, monkeypatch) -> None:
    legacy = tmp_path / "legacy-agents"
    (legacy / "bot" / "sessions").mkdir(parents=True)
    monkeypatch.setenv("MEMORYD_SESSIONS_DIR", str(legacy))
    monkeypatch.setenv("MEMORYD_WORKSPACE", str(tmp_path / "my-ws"))
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text('[watch]\nnotes_agent = "default"\n')
    inst = Install(load_config(dict(os.environ)))
    assert "bot" in inst.agent_ids() and inst.agent("bot").sessions_dir == legacy / "bot" / "sessions"
    main = inst.agent("main")
    assert (main.memoryd_id, main.workspace) == ("default", tmp_path / "my-ws")
    assert inst.agent("bot").memoryd_id == "bot"
