"""`memoryd hooks install|uninstall|run`: the user's settings byte for byte, idempotence, a hook that never fails."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from memoryd.cli.main import cli
from memoryd.daemon.hooks_run import caller, run_hook
from memoryd.tiers.base.config import load_config

MEMORYD = str(Path(sys.executable).parent / "memoryd")
HOOK = str(Path(sys.executable).parent / "memoryd-hook")
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "harnesses"
# a user's own settings, formatted their way (tabs, key order, a unicode string, no final newline)
USER_SETTINGS = ('{\n\t"model": "opus",\n\t"hooks": {\n\t\t"Stop": [{"matcher": "", "hooks": [{"type": "command", '
                 '"command": "notify-send done"}]}],\n\t\t"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": '
                 '"command", "command": "audit.sh"}]}]\n\t},\n\t"theme": "dünkel"\n}').encode()


@pytest.fixture
def claude_dir(home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    d = tmp_path / "dot-claude"
    d.mkdir()
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(d))
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "dot-codex"))
    return d


def _run(*args: str) -> str:
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


def test_install_merges_around_the_users_hooks_and_uninstall_restores_bytes(claude_dir: Path) -> None:
    settings = claude_dir / "settings.json"
    settings.write_bytes(USER_SETTINGS)
    _run("hooks", "install", "claude", "--agent-id", "work")
    obj = json.loads(settings.read_bytes())
    assert obj["theme"] == "dünkel" and obj["hooks"]["PreToolUse"][0]["hooks"][0]["command"] == "audit.sh"
    stop = obj["hooks"]["Stop"]
    assert stop[0]["hooks"][0]["command"] == "notify-send done"  # the user's own first, untouched
    ours = stop[1]["hooks"][0]["command"]
    assert ours == f"{HOOK} claude --agent-id work" and Path(ours.split()[0]).is_absolute()
    assert set(obj["hooks"]) >= {"SessionStart", "PreCompact", "Stop", "SessionEnd"}
    installed = settings.read_bytes()
    assert "already installed" in _run("hooks", "install", "claude", "--agent-id", "work")  # idempotent
    assert settings.read_bytes() == installed
    _run("hooks", "uninstall", "claude")
    assert settings.read_bytes() == USER_SETTINGS
    assert "nothing of memoryd's" in _run("hooks", "uninstall", "claude")
    assert settings.read_bytes() == USER_SETTINGS


def test_uninstall_after_the_user_edited_keeps_their_edit(claude_dir: Path) -> None:
    settings = claude_dir / "settings.json"
    settings.write_bytes(USER_SETTINGS)
    _run("hooks", "install", "claude")
    obj = json.loads(settings.read_bytes())
    obj["hooks"]["Notification"] = [{"matcher": "", "hooks": [{"type": "command", "command": "beep"}]}]
    settings.write_text(json.dumps(obj, indent=2))
    _run("hooks", "uninstall", "claude")
    left = json.loads(settings.read_bytes())
    assert left["hooks"]["Notification"][0]["hooks"][0]["command"] == "beep"
    assert "memoryd" not in settings.read_text() and left["hooks"]["Stop"][0]["hooks"][0]["command"] == "notify-send done"


def test_project_scope_and_codex_files_that_did_not_exist_are_gone_again(claude_dir: Path, tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    monkeypatch.chdir(project)
    _run("hooks", "install", "claude", "--scope", "project")
    assert (project / ".claude" / "settings.json").is_file()
    _run("hooks", "uninstall", "claude", "--scope", "project")
    assert not (project / ".claude").exists()
    _run("hooks", "install", "codex")
    hooks = json.loads((tmp_path / "dot-codex" / "hooks.json").read_text())["hooks"]
    assert hooks["SessionStart"][0]["hooks"][0]["command"] == f"{HOOK} codex"
    _run("hooks", "uninstall", "codex")
    assert not (tmp_path / "dot-codex" / "hooks.json").exists()


def test_settings_that_are_not_json_are_refused_and_left_alone(claude_dir: Path) -> None:
    settings = claude_dir / "settings.json"
    settings.write_bytes(b'{"hooks": ')
    result = CliRunner().invoke(cli, ["hooks", "install", "claude"])
    assert result.exit_code == 2 and "not valid JSON" in result.output
    assert settings.read_bytes() == b'{"hooks": '


@pytest.mark.parametrize("argv", [[HOOK, "claude"], [MEMORYD, "hooks", "run", "claude"]])
@pytest.mark.parametrize("stdin", [b"", b"not json", b'{"hook_event_name": "SessionStart"}',
                                   b'{"hook_event_name": "Stop", "transcript_path": "/nowhere.jsonl"}'])
def test_the_hook_never_fails_the_session(home: Path, claude_dir: Path, stdin: bytes, argv: list[str]) -> None:
    done = subprocess.run(argv, input=stdin, capture_output=True, timeout=60, env=dict(os.environ))
    assert done.returncode == 0 and done.stdout == b""
    if stdin and stdin != b'{"hook_event_name": "Stop", "transcript_path": "/nowhere.jsonl"}':
        log = (home / "logs" / "hooks.log").read_text()
        assert len(log.splitlines()) == 1 and "claude hook failed" in log


def test_a_bad_hook_command_line_is_one_line_on_stderr_and_exit_0(home: Path) -> None:
    done = subprocess.run([HOOK, "vim"], input=b"{}", capture_output=True, timeout=60)
    assert done.returncode == 0 and done.stdout == b"" and done.stderr.decode().startswith("memoryd-hook: usage")



@pytest.mark.parametrize("harness", ["claude", "codex"])
def test_the_captured_hook_inputs_replayed_take_every_turn_and_answer_session_start(
        home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, harness: str) -> None:
    """Every hook input the real CLI sent (tests/fixtures/harnesses/*/hooks), in order, through the hook's code."""
    root = tmp_path / "dev"
    if harness == "claude":
        shutil.copytree(FIXTURES / "claude" / "projects", root / "claude-home" / ".claude" / "projects")
    else:
        shutil.copytree(FIXTURES / "codex" / "sessions", root / "codex-home" / ".codex" / "sessions")
    monkeypatch.setenv("MEMORYD_RETRIEVAL_MODE", "keyword")
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(root / "claude-home" / ".claude"))
    monkeypatch.setenv("CODEX_HOME", str(root / "codex-home" / ".codex"))
    config = load_config(dict(os.environ))
    call = caller(config)  # in this process (no daemon): what memoryd-hook runs, without a process per input
    answers = {}
    for path in sorted((FIXTURES / harness / "hooks").glob("*.json")):
        raw = path.read_bytes().replace(b"/home/dev/c", f"{root}/c".encode())  # the homes move; cwd stays
        answers[path.name] = run_hook(config, call, harness, raw).encode()
    starts = [out for name, out in answers.items() if name.endswith("SessionStart.json")]
    assert starts[0] == b""  # the very first session: nothing remembered yet
    context = json.loads(starts[-1])["hookSpecificOutput"]
    assert context["hookEventName"] == "SessionStart" and "5433" in context["additionalContext"]
    assert all(out == b"" for name, out in answers.items() if not name.endswith("SessionStart.json"))
    assert not (home / "logs" / "hooks.log").exists()
    state = json.loads((home / "agents" / harness / "harness-state.json").read_text())
    for file, cursor in state["files"].items():
        assert cursor["offset"] == Path(file).stat().st_size  # every turn taken by the hooks alone


def test_codex_install_renders_agents_md_in_a_project_and_nowhere_else(claude_dir: Path, tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    monkeypatch.chdir(plain)
    _run("hooks", "install", "codex")
    assert not (plain / "AGENTS.md").exists()  # not a project: only told how
    _run("hooks", "uninstall", "codex")
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    monkeypatch.chdir(project)
    assert "render --target agents" in _run("hooks", "install", "codex")  # no agent yet: told how, nothing written
    assert not (project / "AGENTS.md").exists()
    _run("hooks", "uninstall", "codex")
    _run("init", "--agent-id", "codex")
    _run("hooks", "install", "codex")
    assert "memoryd:begin" in (project / "AGENTS.md").read_text()
    _run("hooks", "uninstall", "codex")
