"""`memoryd service install|uninstall|status` into a temp HOME; units checked by systemd-analyze or by key."""
from __future__ import annotations

import configparser
import json
import os
import plistlib
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

import memoryd.cli.cmd_daemon  # noqa: F401 - registers `daemon` and `service` on the root group
from memoryd.cli.main import cli
from memoryd.daemon import service
from memoryd.tiers.base.config import load_config


@pytest.fixture
def user_home(tmp_path: Path, home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    h = tmp_path / "user home"  # a space, like macOS' Application Support
    h.mkdir()
    monkeypatch.setenv("HOME", str(h))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.setenv("MEMORYD_DB_TOKEN", "secret-token-value")
    return h


def _unit(text: str) -> configparser.ConfigParser:
    parser = configparser.ConfigParser(strict=False, interpolation=None, delimiters=("=",))
    parser.optionxform = str  # keys are case-sensitive in systemd
    parser.read_string(text)
    return parser


def test_install_systemd_unit_renders_paths_and_hardening(user_home, home):
    res = CliRunner().invoke(cli, ["service", "install", "--kind", "systemd", "--no-enable"])
    assert res.exit_code == 0, res.output
    path = user_home / ".config" / "systemd" / "user" / "memoryd.service"
    assert f"wrote {path}" in res.output and "--no-enable" in res.output
    text = path.read_text()
    assert "@" not in text.replace("$MAINPID", "")  # every marker filled in
    assert "secret-token-value" not in text  # secrets never land in a unit file
    assert "not copied into the unit" in res.output
    svc = _unit(text)["Service"]
    assert svc["Type"] == "notify" and svc["Restart"] == "on-failure" and int(svc["WatchdogSec"]) > 0
    assert svc["NoNewPrivileges"] == "yes" and svc["PrivateTmp"] == "yes" and svc["ProtectSystem"] == "strict"
    assert svc["ReadWritePaths"] == f'"{home}"'
    workspace = os.environ["MEMORYD_WORKSPACE"]  # set by the fixture, so carried into the unit
    assert svc["Environment"] == f'"MEMORYD_HOME={home}" "MEMORYD_WORKSPACE={workspace}"'
    exe = svc["ExecStart"].split('" "')[0].strip('"')
    assert Path(exe).is_absolute() and os.access(exe, os.X_OK)
    assert svc["ExecStart"].endswith('"daemon"') or svc["ExecStart"].endswith('"memoryd.daemon"')
    assert _unit(text)["Install"]["WantedBy"] == "default.target"
    assert (home.stat().st_mode & 0o777) == 0o700  # the writable data dir exists, private


def test_systemd_escaping_of_odd_paths(tmp_path):
    odd = tmp_path / 'my %h "data" $HOME'
    cfg = load_config({"MEMORYD_HOME": str(odd)})
    text = service.render_systemd(cfg, ["/opt/x y/memoryd", "daemon"], env={})
    svc = _unit(text)["Service"]
    assert svc["ExecStart"] == '"/opt/x y/memoryd" "daemon"'
    assert "%%h" in svc["Environment"] and "$HOME" in svc["Environment"] and "$$" not in svc["Environment"] and '\\"data\\"' in svc["Environment"]


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze not installed here; keys checked above")
def test_rendered_unit_passes_systemd_analyze_verify(user_home, home, tmp_path):
    res = CliRunner().invoke(cli, ["service", "install", "--kind", "systemd", "--no-enable"])
    assert res.exit_code == 0, res.output
    unit = user_home / ".config" / "systemd" / "user" / "memoryd.service"
    proc = subprocess.run(["systemd-analyze", "verify", str(unit)], capture_output=True, text=True, timeout=60)
    problems = [line for line in (proc.stdout + proc.stderr).splitlines() if "memoryd.service" in line]
    assert proc.returncode == 0 and not problems, proc.stdout + proc.stderr


def test_install_launchd_plist(user_home, home):
    res = CliRunner().invoke(cli, ["service", "install", "--kind", "launchd", "--no-enable", "--json"])
    assert res.exit_code == 0, res.output
    result = json.loads(res.stdout)
    path = user_home / "Library" / "LaunchAgents" / "com.memoryd.agent.plist"
    assert result["path"] == str(path) and result["kind"] == "launchd"
    plist = plistlib.loads(path.read_bytes())
    assert plist["Label"] == "com.memoryd.agent"
    assert plist["RunAtLoad"] is True and plist["KeepAlive"]
    assert plist["ProgramArguments"][0] == result["command"][0] and plist["ProgramArguments"][-1] in ("daemon", "memoryd.daemon")
    assert plist["EnvironmentVariables"]["MEMORYD_HOME"] == str(home)
    assert plist["StandardErrorPath"] == str(home / "logs" / "memoryd.err.log")
    assert "secret-token-value" not in path.read_text()


def test_install_without_service_manager_says_how_to_start(user_home, home, monkeypatch):
    monkeypatch.setenv("PATH", str(user_home))  # no systemctl / launchctl reachable
    res = CliRunner().invoke(cli, ["service", "install", "--kind", "systemd"])
    assert res.exit_code == 0, res.output
    assert "systemctl not found" in res.output and "systemctl --user enable --now memoryd.service" in res.output


def test_status_and_uninstall(user_home, home, monkeypatch):
    monkeypatch.setenv("PATH", str(user_home))
    runner = CliRunner()
    res = runner.invoke(cli, ["service", "status", "--kind", "systemd", "--json"])
    status = json.loads(res.stdout)
    assert res.exit_code == 0 and status["installed"] is False and status["daemon_running"] is False
    runner.invoke(cli, ["service", "install", "--kind", "systemd", "--no-enable"])
    status = json.loads(runner.invoke(cli, ["service", "status", "--kind", "systemd", "--json"]).stdout)
    assert status["installed"] is True and status["manager"] == "systemctl not found"
    res = runner.invoke(cli, ["service", "uninstall", "--kind", "systemd"])
    assert res.exit_code == 0 and "removed" in res.output
    assert not Path(status["path"]).exists()
    res = runner.invoke(cli, ["service", "uninstall", "--kind", "systemd"])
    assert res.exit_code == 0 and "nothing installed" in res.output


def test_templates_ship_with_the_package():
    assert "Type=notify" in service.template("memoryd.service")
    assert "com.memoryd.agent" in service.template("com.memoryd.agent.plist")


def test_exec_line_escapes_dollar(tmp_path):
    cfg = load_config({"MEMORYD_HOME": str(tmp_path / "h")})
    text = service.render_systemd(cfg, ["/opt/$bin/memoryd", "daemon"], env={})
    assert _unit(text)["Service"]["ExecStart"] == '"/opt/$$bin/memoryd" "daemon"'


def test_writable_dirs_follow_the_parsed_database_path(tmp_path):
    from memoryd.daemon.service import writable_dirs
    from memoryd.tiers.base.config import load_config

    home = tmp_path / "h"
    outside = tmp_path / "db dir"
    config = load_config({"MEMORYD_HOME": str(home), "MEMORYD_DB_URL": f"file://localhost{outside}/c.db"})
    assert writable_dirs(config) == [str(home), "-" + str(outside)]
    inside = load_config({"MEMORYD_HOME": str(home), "MEMORYD_DB_URL": f"file:{home}/sub/c.db"})
    assert writable_dirs(inside) == [str(home)]
