"""config.toml against its one schema: every class of mistake, sources, `config show`, platform paths."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from memoryd.cli.main import cli
from memoryd.tiers.base.config import load_config
from memoryd.tiers.base.config_schema import SCHEMA
from memoryd.tiers.base.errors import ConfigError


def _load(home: Path, text: str, **env: str):
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(text, encoding="utf-8")
    return load_config({"MEMORYD_HOME": str(home), **env})


MISTAKES = [  # (config.toml, what the message must name)
    ("[schedul]\nquick = '0 * * * *'\n", ["line 1", "unknown section [schedul]", "did you mean [schedule]",
                                          "[watch]"]),
    ("[watch]\nnotes_agent = 'bot'\nquiet_secs = 5\n", ["line 3", "unknown key quiet_secs in [watch]",
                                                        "did you mean quiet_seconds", "recheck_seconds"]),
    ("db_urll = 'file:/x'\n", ["line 1", "unknown key db_urll", "did you mean db_url", "workspace"]),
    ("[watch]\nquiet_seconds = '5'\n", ["line 2", "[watch] quiet_seconds must be a number > 0", "'5'"]),
    ("[watch]\nenabled = 'yes'\n", ["line 2", "[watch] enabled must be true or false"]),
    ("[schedule]\nmisfire_grace_seconds = 1.5\n", ["[schedule] misfire_grace_seconds must be an integer"]),
    ("[retention]\ncold_years = 0\n", ["line 2", "cold_years must be a number from 1 to 1000"]),
    ("[db]\ntimeout = -1\n", ["[db] timeout must be a number > 0"]),
    ("[schedule]\nheartbeat_seconds = nan\n", ["heartbeat_seconds must be a number > 0"]),
    ("[daemon]\nlog_level = 'verbose'\n", ["log_level must be one of DEBUG, INFO, WARNING, ERROR"]),
    ("[schedule]\ndaily = 'nonsense'\n", ["[schedule] daily must be a crontab string of 5 fields"]),
    ("[schedule]\nquick = '61 * * * *'\n", ["line 2", "[schedule] quick must be a crontab", "maximum value (59)"]),
    ("[schedule]\nmonthly = '0 4 32 * *'\n", ["[schedule] monthly must be a crontab", "maximum value (31)"]),
    ("[render]\ntargets = ['openclaw', 'cursor']\n", ["line 2", "[render] targets entries must be openclaw, claude, "
                                                     "agents or file:/absolute/path", "'cursor'"]),
    ("[render]\ntargets = ['file:notes/MEMORY.md']\n", ["[render] targets entries must be", "'file:notes/MEMORY.md'"]),
    ("[schedule]\ntimezone = 'Mars/Olympus'\n", ["timezone must be an IANA time zone name"]),
    ("[watch]\nnotes_agent = '../x'\n", ["notes_agent must be an agent id"]),
    ("[llm]\napi_key_env = 'sk-123'\n", ["api_key_env must be the NAME of an environment variable"]),
    ("db_url = 'ftp://x'\n", ["db_url must be a URL starting with one of file:"]),
    ("schedule = 3\n", ["line 1", "schedule must be a section [schedule]"]),
    ("[schedule\n", ["cannot read"]),
]


@pytest.mark.parametrize("text,needles", MISTAKES, ids=[m[0].split("\n")[-2][:30] for m in MISTAKES])
def test_every_mistake_is_an_error_naming_line_key_and_choices(tmp_path: Path, text: str, needles: list[str]) -> None:
    with pytest.raises(ConfigError) as info:
        _load(tmp_path / "h", text)
    message = info.value.message
    assert str(tmp_path / "h" / "config.toml") in message
    for needle in needles:
        assert needle in message, message


def test_the_cli_refuses_a_bad_file_with_exit_2_and_one_line(tmp_path: Path) -> None:
    home = tmp_path / "h"
    home.mkdir()
    (home / "config.toml").write_text("[watch]\nquiet_secs = 5\n")
    res = CliRunner().invoke(cli, ["status"], env={"MEMORYD_HOME": str(home)})
    assert res.exit_code == 2 and "quiet_secs" in res.stderr and len(res.stderr.strip().splitlines()) == 1
    res = CliRunner().invoke(cli, ["config", "show", "--json"], env={"MEMORYD_HOME": str(home)})
    error = json.loads(res.stdout)["error"]
    assert res.exit_code == 2 and error["code"] == "config" and "line 2" in error["message"]


def test_render_targets_a_command_cannot_honour_are_refused_by_every_command(tmp_path: Path) -> None:
    """[render] targets = ['claude'] without project_dir: every command (and the daemon) refuses the file
    with exit 2 and nothing changed, instead of logging an error and running without the rendering."""
    home = tmp_path / "h"
    home.mkdir()
    (home / "config.toml").write_text("[render]\ntargets = ['claude']\n")
    env = {"MEMORYD_HOME": str(home)}
    for args in (["store", "a fact", "--category", "c"], ["hot", "lesson", "be brief"]):
        res = CliRunner().invoke(cli, args, env=env)
        assert res.exit_code == 2 and "project_dir" in res.stderr and "ERROR" not in res.stderr, (args, res.stderr)
        assert len(res.stderr.strip().splitlines()) == 1
    exe = Path(sys.executable).with_name("memoryd")  # the daemon refuses to start (it would run until the timeout)
    sock = Path(tempfile.mkdtemp(prefix="mdcfg-", dir="/tmp")) / "d.sock"
    started = subprocess.run([str(exe), "daemon"], env={**os.environ, **env, "MEMORYD_SOCKET": str(sock)},
                             capture_output=True, text=True, timeout=60)
    assert started.returncode == 2 and "project_dir" in started.stderr, started.stderr
    assert not (home / "agents").exists()
    res = CliRunner().invoke(cli, ["status", "--json"], env=env)
    assert res.exit_code == 2 and "project_dir" in json.loads(res.stdout)["error"]["message"]


def test_values_defaults_and_where_each_came_from(tmp_path: Path) -> None:
    cfg = _load(tmp_path / "h", "[watch]\nquiet_seconds = 30\n[schedule]\ntimezone = 'UTC'\n",
                MEMORYD_SESSIONS_DIR="/s", MEMORYD_LLM_MODEL="m1")
    assert cfg.section("watch")["quiet_seconds"] == 30.0 and cfg.section("watch")["sessions_dir"] == "/s"
    assert cfg.section("db") == {"timeout": 15.0, "connect_timeout": 5.0}  # defaults filled in
    assert cfg.sources["[watch] quiet_seconds"] == "file"
    assert cfg.sources["[watch] sessions_dir"] == "environment MEMORYD_SESSIONS_DIR"
    assert cfg.sources["[llm] model"] == "environment MEMORYD_LLM_MODEL"
    assert cfg.sources["[db] timeout"] == "default"
    assert set(cfg.sources) == {f"[{s}] {k}" if s else k for s, keys in SCHEMA.items() for k in keys}


def test_a_wrong_file_value_is_an_error_even_when_the_environment_overrides_it(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="log_level"):
        _load(tmp_path / "h", "[daemon]\nlog_level = 'loud'\n", MEMORYD_LOG_LEVEL="DEBUG")
    with pytest.raises(ConfigError, match="environment MEMORYD_DB_URL"):
        _load(tmp_path / "h", "", MEMORYD_DB_URL="gopher://x")


def test_config_show_sources_and_masked_secrets(tmp_path: Path) -> None:
    home = tmp_path / "h"
    home.mkdir()
    (home / "config.toml").write_text(
        "db_token = 'file-secret-tok'\n"
        "llm_endpoint = 'https://llm.example/v1?model=m&api_key=q-secret&X-Goog-Signature=s-secret;access_token=a-secret'\n"
        "[llm]\napi_key_env = 'MY_LLM_KEY'\n[watch]\nquiet_seconds = 7\n")
    env = {"MEMORYD_HOME": str(home), "MEMORYD_DB_URL": "libsql://user:pw-secret@db.example?authToken=tok-secret",
           "MEMORYD_KEY": "mdk1-key-secret", "MY_LLM_KEY": "sk-llm-secret"}
    for args in (["config", "show"], ["config", "show", "--json"]):
        res = CliRunner().invoke(cli, args, env=env)
        assert res.exit_code == 0, res.output
        for secret in ("file-secret-tok", "pw-secret", "tok-secret", "key-secret", "llm-secret", "q-secret",
                       "s-secret", "a-secret"):
            assert secret not in res.output
    doc = json.loads(res.stdout)
    rows = {(r["section"], r["key"]): r for r in doc["settings"]}
    assert rows[("", "db_token")]["value"] == "(set, hidden)" and rows[("", "db_token")]["source"] == "file"
    assert rows[("", "db_url")]["source"] == "environment MEMORYD_DB_URL"
    assert rows[("", "llm_endpoint")]["value"] == "https://llm.example/v1?model=m&api_key=***&X-Goog-Signature=***;access_token=***"
    assert rows[("watch", "quiet_seconds")] == {"section": "watch", "key": "quiet_seconds", "value": 7.0,
                                                 "source": "file", "secret": False}
    assert rows[("schedule", "daily")]["value"] == "0 3 * * *" and rows[("schedule", "daily")]["source"] == "default"
    assert doc["environment_secrets"] == {"MEMORYD_KEY": "set", "MY_LLM_KEY": "set"}
    human = CliRunner().invoke(cli, ["config", "show"], env=env).stdout
    assert "quiet_seconds = 7.0" in human and "# file" in human and "[schedule]" in human


# -- where files live --------------------------------------------------------------------------------
@pytest.fixture
def xdg(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    """Platform dirs pointed into tmp_path (platformdirs reads the XDG variables); no MEMORYD_HOME."""
    dirs = {name: tmp_path / name for name in ("config", "data", "runtime")}
    monkeypatch.delenv("MEMORYD_HOME", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(dirs["config"]))
    monkeypatch.setenv("XDG_DATA_HOME", str(dirs["data"]))
    dirs["runtime"].mkdir(mode=0o700)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(dirs["runtime"]))
    return dirs


@pytest.mark.skipif(os.uname().sysname != "Linux", reason="the XDG layout is Linux's")
def test_platform_dirs_without_memoryd_home(xdg: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    cfg = load_config(dict(os.environ))
    assert cfg.home == xdg["data"] / "memoryd" and not cfg.pinned
    assert cfg.config_file == xdg["config"] / "memoryd" / "config.toml"
    assert cfg.socket_path == xdg["runtime"] / "memoryd" / "memoryd.sock"
    assert cfg.db_url == f"file:{xdg['data'] / 'memoryd' / 'cold.db'}"
    monkeypatch.delenv("XDG_RUNTIME_DIR")  # no runtime dir: the socket goes to the data dir
    assert load_config(dict(os.environ)).socket_path == xdg["data"] / "memoryd" / "memoryd.sock"


@pytest.mark.skipif(os.uname().sysname != "Linux", reason="the XDG layout is Linux's")
def test_an_old_home_keeps_its_config_with_a_note(xdg: dict[str, Path]) -> None:
    legacy = xdg["data"] / "memoryd" / "config.toml"
    legacy.parent.mkdir(parents=True)
    legacy.write_text("[watch]\nquiet_seconds = 9\n")
    cfg = load_config(dict(os.environ))
    assert cfg.config_file == legacy and cfg.section("watch")["quiet_seconds"] == 9.0
    assert any("move it to" in n and str(xdg["config"] / "memoryd" / "config.toml") in n for n in cfg.notes)
    res = CliRunner().invoke(cli, ["config", "show"])
    assert res.exit_code == 0 and "note: read" in res.stdout
    primary = xdg["config"] / "memoryd" / "config.toml"
    primary.parent.mkdir(parents=True)
    primary.write_text("[watch]\nquiet_seconds = 4\n")  # both: the config dir's file wins, the old one is named
    cfg = load_config(dict(os.environ))
    assert cfg.section("watch")["quiet_seconds"] == 4.0 and any("ignored" in n for n in cfg.notes)


def test_memoryd_home_overrides_every_dir(xdg: dict[str, Path], tmp_path: Path) -> None:
    home = tmp_path / "pinned"
    cfg = load_config({**os.environ, "MEMORYD_HOME": str(home)})
    assert cfg.pinned and cfg.home == home and cfg.config_file == home / "config.toml"
    assert cfg.socket_path == home / "memoryd.sock"
    res = CliRunner().invoke(cli, ["init", "--json"], env={"MEMORYD_HOME": str(home)})
    assert res.exit_code == 0 and (home / "agents" / "default").is_dir()
    assert not (xdg["data"] / "memoryd").exists() and not (xdg["config"] / "memoryd").exists()


def test_crontabs_taken_without_apscheduler_are_ones_apscheduler_takes() -> None:
    """The fast path (no APScheduler import on a command's start) accepts only what APScheduler accepts,
    and leaves everything else to APScheduler's parser."""
    import random
    from datetime import timezone

    from apscheduler.triggers.cron import CronTrigger

    from memoryd.tiers.base.config_schema import _CRON_BOUNDS, _crontab, _plainly_valid

    rng = random.Random(3)
    items = ["*", "*/0", "*/1", "*/15", "0", "5", "7", "12", "23", "24", "31", "32", "59", "60", "1-5", "5-1",
             "0-59/5", "10-70", "mon", "jan", "L", "1,2,30"]
    fast = 0
    for _ in range(20000):
        expr = " ".join(rng.choice(items) for _ in range(5))
        fields = expr.split()
        if all(_plainly_valid(f, lo, hi) for f, (lo, hi) in zip(fields, _CRON_BOUNDS)):
            fast += 1
            CronTrigger.from_crontab(expr, timezone=timezone.utc)  # raises if the fast path was wrong
            assert _crontab(expr) is None
    assert fast > 50
    assert _crontab("0 3 * * *") is None and _crontab("*/15 * * * 1-5") is None
    assert _crontab("61 * * * *") is not None and _crontab("0 3 * * mon") is None  # left to APScheduler
