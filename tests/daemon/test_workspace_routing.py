"""One workspace, one agent: `ingest-daily`, `openclaw sync` and the real daemon's watcher all read a workspace
into the agent recorded for it in the home (routing.json), a new OpenClaw agent is announced, and a split
home left by an older version is merged into the agent used first."""
from __future__ import annotations

import datetime as dt
import json
import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from clock import wait_for
from memoryd.tiers.base.config import load_config
from openclaw_fixture import copy_state

MEMORYD = str(Path(sys.executable).parent / "memoryd")
TODAY = dt.date(2026, 11, 27)


@pytest.fixture
def env(home: Path, tmp_path: Path):
    sock_dir = Path(tempfile.mkdtemp(prefix="mdr-", dir="/tmp"))
    e = dict(os.environ)
    e.pop("NOTIFY_SOCKET", None)
    e.update({"MEMORYD_SOCKET": str(sock_dir / "d.sock"), "MEMORYD_LOG_LEVEL": "INFO", "PYTHONUNBUFFERED": "1",
              "MEMORYD_RETRIEVAL_MODE": "keyword"})
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text("[schedule]\nheartbeat_seconds = 0.2\n[watch]\nquiet_seconds = 60\n"
                                      "recheck_seconds = 0.5\n")
    yield e
    shutil.rmtree(sock_dir, ignore_errors=True)


def md(env: dict, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([MEMORYD, *args], env=env, capture_output=True, text=True, timeout=120)


class Daemon:
    def __init__(self, env: dict, log: Path) -> None:
        self.log = log
        self.proc = subprocess.Popen([MEMORYD, "daemon"], env=env, stdout=subprocess.DEVNULL,
                                     stderr=open(log, "ab"), stdin=subprocess.DEVNULL)
        sock = Path(env["MEMORYD_SOCKET"])
        wait_for(lambda: self.proc.poll() is not None or sock.exists(), timeout=20)
        assert self.proc.poll() is None, log.read_text()

    def text(self) -> str:
        return self.log.read_text(errors="replace")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)


@pytest.fixture
def daemon(env, tmp_path: Path):
    started: list[Daemon] = []

    def start() -> Daemon:
        started.append(Daemon(env, tmp_path / "daemon.log"))
        return started[-1]

    yield start
    for d in started:
        d.stop()


def year_of_notes(workspace: Path, days: int = 365) -> None:
    for i in range(days):
        day = TODAY - dt.timedelta(days=days - i)
        (workspace / "memory" / f"{day}.md").write_text(
            f"# {day}\n\n- Reviewed ticket {i} for the warehouse {i % 7} migration with the platform team.\n")


def found(env: dict, words: str, needle: str, *flags: str) -> bool:
    out = md(env, "retrieve", words, "--json", *flags)
    return out.returncode == 0 and any(needle in hit["text"] for hit in json.loads(out.stdout)["results"])


def test_a_year_of_notes_and_a_line_the_daemon_picks_up_are_found_by_the_same_retrieve(env, daemon, home) -> None:
    ws = Path(env["MEMORYD_WORKSPACE"])
    year_of_notes(ws)
    done = md(env, "ingest-daily", "--all", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["agent_id"] == "default"
    d = daemon()
    note = ws / "memory" / f"{TODAY}.md"
    note.write_text(f"# {TODAY}\n\n- The release train leaves every Thursday at noon from the ops channel.\n")
    assert wait_for(lambda: found(env, "release train Thursday", "release train"), timeout=20)
    assert found(env, "warehouse migration ticket 17", "ticket 17 ")  # the year, in the same agent
    assert not (home / "agents" / "main").exists(), d.text()  # no second agent made behind the user's back
    routes = json.loads((home / "routing.json").read_text())
    assert stat.S_IMODE((home / "routing.json").stat().st_mode) == 0o600
    assert routes["openclaw"]["main"]["agent_id"] == "default"
    status = json.loads(md(env, "status", "--json").stdout)
    feeds = status["agents"][0]["routing"]
    assert [w["path"] for w in feeds["workspaces"]] == [os.path.realpath(ws)]
    assert [o["openclaw_agent"] for o in feeds["openclaw"]] == ["main"]


def test_a_new_openclaw_agent_is_announced_with_the_command_to_move_it(env, home, tmp_path) -> None:
    env = dict(env, OPENCLAW_STATE_DIR=str(copy_state(tmp_path / "oc")))
    env.pop("MEMORYD_WORKSPACE")
    synced = md(env, "--log-level", "INFO", "openclaw", "sync")
    assert synced.returncode == 0, synced.stderr
    assert "memoryd route openclaw main --agent-id ID" in synced.stderr  # the log line of a new agent
    human = md(env, "status", "--agent-id", "main").stdout
    assert "fed by OpenClaw agent main (new agent; new: to send it elsewhere, memoryd route openclaw main" in human
    moved = md(env, "route", "openclaw", "main", "--agent-id", "assistant")
    assert moved.returncode == 0, moved.stderr
    again = md(env, "openclaw", "sync", "--json")
    assert [a["agent_id"] for a in json.loads(again.stdout)["agents"]] == ["assistant"]
    shown = md(env, "route").stdout
    assert "openclaw main → agent assistant (route" in shown


def test_ingest_daily_follows_the_route_and_refuses_a_second_agent(env, home) -> None:
    ws = Path(env["MEMORYD_WORKSPACE"])
    (ws / "memory" / f"{TODAY}.md").write_text(f"# {TODAY}\n\n- Decided to keep the nightly backups for 30 days.\n")
    assert md(env, "route", "workspace", "--agent-id", "notes").returncode == 0
    done = md(env, "ingest-daily", "--all", "--json")
    assert json.loads(done.stdout)["agent_id"] == "notes"
    other = md(env, "ingest-daily", "--all", "--agent-id", "default")
    assert other.returncode == 2
    assert other.stderr.count("\n") == 1 and "feeds agent 'notes'" in other.stderr
    assert md(env, "ingest-daily", "--all", "--agent-id", "notes").returncode == 0
    assert not (home / "agents" / "default").exists()


def _split_home(env: dict, home: Path) -> Path:
    """What an older version left: notes in `default` through ingest-daily, then the same workspace read by
    the daemon into `main` (plus a line only `main` got), with no routing table."""
    from memoryd.tiers.ingest.dailynotes import ingest
    from memoryd.tiers.ingest.openclaw.agent_sync import AgentSync
    from memoryd.tiers.ingest.openclaw.install import Install
    from memhelp import AgentMemory

    config = load_config(env)
    ws = Path(env["MEMORYD_WORKSPACE"])
    year_of_notes(ws, days=40)
    assert md(env, "init").returncode == 0
    mem = AgentMemory(config, "default")
    ingest(mem, ws, all_=True)
    note = ws / "memory" / f"{TODAY}.md"
    note.write_text(f"# {TODAY}\n\n- The release train leaves every Thursday at noon from the ops channel.\n")
    later = AgentMemory(config, "main")
    AgentSync(later, Install(config).agent("main")).run(("notes",))
    assert not (home / "routing.json").exists()  # the tiers alone never write it: an older home
    for agent, age in (("default", 3 * 86400), ("main", 3600)):  # default read the workspace first
        for ledger in (home / "agents" / agent / "ingested").glob("*.json"):
            t = ledger.stat().st_mtime - age
            os.utime(ledger, (t, t))
    return note


def test_a_split_home_is_merged_into_the_agent_used_first_on_upgrade(env, daemon, home) -> None:
    note = _split_home(env, home)
    assert not found(env, "release train Thursday", "release train")  # the split: only `main` has it
    d = daemon()
    assert wait_for(lambda: "split home repaired" in d.text(), timeout=20)
    line = next(x for x in d.text().splitlines() if "split home repaired" in x)
    assert "agent main also held workspace" in line and "merged into default" in line
    assert found(env, "release train Thursday", "release train")
    assert found(env, "warehouse migration ticket 17", "ticket 17 ")
    with note.open("a") as fh:
        fh.write("- Priya owns the invoice service from December on.\n")
    assert wait_for(lambda: found(env, "Priya invoice service", "Priya"), timeout=20)
    routes = json.loads((home / "routing.json").read_text())
    assert routes["openclaw"]["main"]["agent_id"] == "default" and routes["merged"]["main"]["into"] == "default"
    assert routes["merged"]["main"]["warm"] == 1  # the line only `main` had came over; the 40 days folded into one
    assert not found(env, "Priya invoice service", "Priya", "--agent-id", "main")  # main is fed no more
    human = md(env, "status", "--agent-id", "default").stdout
    assert "merged in: agent main (split home repaired" in human


def test_a_merge_cut_short_is_done_at_the_next_command(env, home) -> None:
    _split_home(env, home)
    table = {"version": 1, "workspaces": {}, "openclaw": {},  # what a process killed mid-merge left
             "merged": {"main": {"into": "default", "at": 1.0, "workspace": env["MEMORYD_WORKSPACE"], "done": False}}}
    (home / "routing.json").write_text(json.dumps(table))
    assert md(env, "route").returncode == 0
    assert found(env, "release train Thursday", "release train")
    assert json.loads((home / "routing.json").read_text())["merged"]["main"]["done"] is True


def test_which_path_reads_a_workspace_first_does_not_choose_its_agent(env, tmp_path: Path) -> None:
    """No OpenClaw here: the notes of the configured workspace go to the default agent whether the daemon's
    watcher or `ingest-daily` reads them first; with OpenClaw's default agent reading that workspace, both paths
    choose that agent."""
    note = "# 2026-11-27\n\n- Decided to rotate the staging keys every quarter\n"
    for first in ("daemon", "ingest-daily"):
        home, ws = tmp_path / f"home-{first}", tmp_path / f"ws-{first}"
        (ws / "memory").mkdir(parents=True)
        (ws / "memory" / "2026-11-27.md").write_text(note)
        e = dict(env, MEMORYD_HOME=str(home), MEMORYD_WORKSPACE=str(ws))
        assert md(e, "init").returncode == 0
        if first == "daemon":
            d = Daemon(e, tmp_path / "daemon.log")
            try:
                wait_for(lambda: (home / "routing.json").exists() and os.path.realpath(ws) in
                         json.loads((home / "routing.json").read_text())["workspaces"], timeout=20)
            finally:
                d.stop()
        assert md(e, "ingest-daily", "--all", "--json").returncode == 0
        table = json.loads((home / "routing.json").read_text())
        assert table["workspaces"][os.path.realpath(ws)]["agent_id"] == "default", (first, table)
        assert not (home / "agents" / "main").exists()
    state = tmp_path / "openclaw"
    copy_state(state)
    e = dict(env, MEMORYD_HOME=str(tmp_path / "home-oc"), OPENCLAW_STATE_DIR=str(state),
             MEMORYD_WORKSPACE=str(state / "workspace"))
    assert md(e, "ingest-daily", "--all", "--json").returncode == 0   # the CLI first, in OpenClaw's workspace
    table = json.loads((tmp_path / "home-oc" / "routing.json").read_text())
    assert [w["agent_id"] for w in table["workspaces"].values()] == ["main"], table
