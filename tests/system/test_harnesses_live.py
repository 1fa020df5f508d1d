"""The real `claude -p` and `codex exec` (npm, cached by tests/harness_cli.py) against fake providers on loopback,
with memoryd's hooks installed by `memoryd hooks install`: what session 1 said reaches session 2's request."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import Any, Iterator

import pytest

from clock import wait_for
from memoryd.daemon.client import try_daemon
from memoryd.tiers.base.config import load_config

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "fixtures" / "harnesses"))
import fake_providers  # noqa: E402
from harness_cli import harness_bins  # noqa: E402

MEMORYD = str(Path(sys.executable).parent / "memoryd")
FACT = "Remember that the staging database listens on port 5433."


@pytest.fixture(scope="module")
def bins() -> tuple[Path, Path]:
    return harness_bins()  # installs both CLIs once into ~/.cache/memoryd-tests


@pytest.fixture
def fake(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    log = tmp_path / "requests.jsonl"
    server = ThreadingHTTPServer(("127.0.0.1", 0), fake_providers.make_handler(fake_providers.Recorder(log)))
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}", log
    server.shutdown()
    server.server_close()


@pytest.fixture
def world(tmp_path: Path, fake: tuple[str, Path]) -> dict[str, Any]:
    """A temp HOME holding memoryd's home, ~/.claude and ~/.codex, and a git project to work in."""
    url, log = fake
    home = tmp_path / "h"
    (home / "tmp").mkdir(parents=True)
    sock_dir = Path(tempfile.mkdtemp(prefix="mdh-", dir="/tmp"))
    project = tmp_path / "widgets"
    project.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    env = {"PATH": os.environ["PATH"], "HOME": str(home), "MEMORYD_HOME": str(home / "memoryd"),
           "MEMORYD_SOCKET": str(sock_dir / "d.sock"), "MEMORYD_RETRIEVAL_MODE": "keyword",
           "ANTHROPIC_BASE_URL": url, "ANTHROPIC_API_KEY": "dummy", "FAKE_API_KEY": "dummy",
           "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_TELEMETRY": "1", "DISABLE_ERROR_REPORTING": "1",
           "DISABLE_AUTOUPDATER": "1", "CLAUDE_CODE_DISABLE_OFFICIAL_MARKETPLACE_AUTOINSTALL": "1",
           "TMPDIR": str(home / "tmp"), "CLAUDE_CODE_TMPDIR": str(home / "tmp")}
    (home / ".codex").mkdir()
    (home / ".codex" / "config.toml").write_text(
        f'model = "gpt-fake"\nmodel_provider = "fake"\ncheck_for_update_on_startup = false\n'
        f'approval_policy = "never"\nsandbox_mode = "danger-full-access"\n[model_providers.fake]\nname = "fake"\n'
        f'base_url = "{url}/v1"\nenv_key = "FAKE_API_KEY"\nwire_api = "responses"\n[analytics]\nenabled = false\n'
        f'[features]\nplugins = false\nremote_plugin = false\napps = false\n')
    return {"env": env, "home": home, "project": project, "log": log, "sock_dir": sock_dir}


def memoryd(world: dict[str, Any], *args: str) -> str:
    done = subprocess.run([MEMORYD, *args], env=world["env"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout


def claude(world: dict[str, Any], bins: tuple[Path, Path], words: str, *extra: str) -> subprocess.Popen:
    return subprocess.Popen([str(bins[0]), *extra, "-p", words], cwd=world["project"], env=world["env"],
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def codex(world: dict[str, Any], bins: tuple[Path, Path], words: str) -> subprocess.Popen:
    return subprocess.Popen([str(bins[1]), "exec", "--dangerously-bypass-hook-trust", "--skip-git-repo-check", words],
                            cwd=world["project"], env=world["env"], stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def finish(proc: subprocess.Popen) -> str:
    out, err = proc.communicate(timeout=90)
    assert proc.returncode == 0, err.decode()[-2000:]
    return out.decode()


def requests(world: dict[str, Any], api: str) -> list[str]:
    """Every request body the fake got from `api`, as JSON text."""
    lines = world["log"].read_text().splitlines() if world["log"].exists() else []
    return [json.dumps(o["body"]) for o in map(json.loads, lines) if o["api"] == api]


@pytest.mark.parametrize("harness", ["claude", "codex"])
def test_a_fact_from_session_one_is_in_session_twos_request(world, bins, harness: str) -> None:
    settings = world["home"] / (".claude/settings.json" if harness == "claude" else ".codex/hooks.json")
    settings.parent.mkdir(parents=True, exist_ok=True)
    # Codex refuses any top-level key but `description` and `hooks` (and then runs no hook at all)
    settings.write_bytes(b'{"description": "the user\'s own file",\n "hooks": {}}')
    before = settings.read_bytes()
    memoryd(world, "hooks", "install", harness)
    run = claude if harness == "claude" else codex
    api = "anthropic" if harness == "claude" else "responses"
    finish(run(world, bins, FACT))  # no daemon: the Stop hook takes the turn in its own process
    assert not any("5433" in body and "memoryd" in body for body in requests(world, api))
    finish(run(world, bins, "Which port does staging use?"))
    second = requests(world, api)[-1]
    assert "what agent " + harness + " remembers" in second and "5433" in second
    memoryd(world, "hooks", "uninstall", harness)
    assert settings.read_bytes() == before


@pytest.fixture
def daemon(world: dict[str, Any]) -> Iterator[Any]:
    config = load_config(world["env"])
    memoryd_home = Path(world["env"]["MEMORYD_HOME"])
    memoryd_home.mkdir(parents=True, exist_ok=True)
    (memoryd_home / "config.toml").write_text("[watch]\nrecheck_seconds = 0.5\n")
    log = open(world["home"] / "daemon.log", "ab")
    proc = subprocess.Popen([MEMORYD, "daemon"], env=world["env"], stdout=subprocess.DEVNULL, stderr=log,
                            stdin=subprocess.DEVNULL)

    def op(name: str, params: dict) -> Any:
        return try_daemon(config, name, params, timeout=30)

    wait_for(lambda: proc.poll() is not None or (config.socket_path.exists() and _ping(op)), timeout=20)
    assert proc.poll() is None, (world["home"] / "daemon.log").read_text()
    yield op
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(5)
    log.close()


def _ping(op: Any) -> bool:
    try:
        return bool(op("ping", {}))
    except Exception:
        return False


def _written(root: Path, words: str) -> bool:
    return root.is_dir() and any(words in p.read_text(errors="replace") for p in root.rglob("*.jsonl"))


# Six prompts, twelve turns (each answered): a preference, a decision, a tool call, a fact, the fact changed, small talk
TURNS = [("I prefer tabs over spaces in every Python file I write.", "tabs spaces Python"),
         ("Decision: the project uses postgres 16, not MySQL.", "postgres MySQL decision"),
         ("List the files in this project, please.", None),
         ("Remember that the staging database listens on port 5433.", "staging database port"),
         ("We moved the meeting to Thursdays.", "meeting Thursdays"),
         ("Good morning!", None)]


def _say(world: dict[str, Any], bins: tuple[Path, Path], harness: str, words: str, first: bool) -> subprocess.Popen:
    if harness == "claude":
        return claude(world, bins, words, *([] if first else ["--continue"]), "--allowedTools", "Bash")
    argv = [str(bins[1]), "exec", "--dangerously-bypass-hook-trust", "--skip-git-repo-check",
            *([] if first else ["resume", "--last"]), words]
    return subprocess.Popen(argv, cwd=world["project"], env=world["env"], stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


@pytest.mark.parametrize("harness", ["claude", "codex"])
def test_twelve_turns_become_memories_within_5_s_each_with_the_daemon(world, bins, daemon, harness: str) -> None:
    root = world["home"] / (".claude/projects" if harness == "claude" else ".codex/sessions")
    (world["project"] / "zebra_listing_marker.txt").write_text("x")  # what the tool call's output names

    def hits(query: str) -> list[dict]:
        return daemon("retrieve", {"agent_id": harness, "query": query, "limit": 20})["results"]
    waits = []
    for i, (words, query) in enumerate(TURNS):
        proc = _say(world, bins, harness, words, i == 0)  # no hooks installed: the watcher alone
        wait_for(lambda: _written(root, words), timeout=60, step=0.02)
        t0 = time.monotonic()
        if query:
            wait_for(lambda: any(words in h["text"] for h in hits(query)), timeout=10, step=0.05)
            waits.append(time.monotonic() - t0)
        finish(proc)
    assert max(waits) <= 5.0, waits
    warm = [h["text"] for q in ("tabs spaces", "postgres", "5433", "Thursdays") for h in hits(q) if h["tier"] != "cold"]
    assert any("tabs" in t for t in warm) and any("5433" in t for t in warm)
    assert not [h for h in hits("zebra_listing_marker") if "zebra" in h["text"]]  # tool output is not memory
    assert not [h for h in hits("Good morning") if "morning" in h["text"]]  # small talk is not either
    def mine() -> dict:
        status = daemon("harness_status", {})["harnesses"]
        return next(h for h in status if h["harness"] == harness)["agents"][0]
    # the last turn (small talk) found nothing to wait on: wait for the watcher to have read every byte written
    wait_for(lambda: (m := mine())["turns"] >= 11 and all(c["pending_bytes"] == 0 for c in m["cursors"]),
             timeout=10, step=0.05)
    took = mine()
    assert took["agent_id"] == harness and took["cursors"] and took["turns"] >= 11
    again = daemon("harness_sync", {"harness": harness})
    assert again["turns"] == 0 and again["warm"] == 0  # the watcher took it all: a second sync adds nothing
