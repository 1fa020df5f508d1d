"""Writers killed mid-write in every folder memoryd writes: the next command that takes the folder's lock
removes their temp files (issue 23), and nothing acknowledged before the kill is lost."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

MEMORYD = str(Path(sys.executable).parent / "memoryd")

# The child's write reaches its temp file (written and fsynced), then the process dies by SIGKILL where
# the rename would have happened: what a kill -9 at the worst instant leaves behind.
CHILD = textwrap.dedent("""
    import os, signal, sys
    from pathlib import Path
    from memoryd.tiers.base.config import load_config
    config = load_config(dict(os.environ))
    real_replace = os.replace
    def die(src, dst):
        if ".tmp-" in str(src):
            os.kill(os.getpid(), signal.SIGKILL)
        return real_replace(src, dst)
    os.replace = die
    where = sys.argv[1]
    if where == "sync":
        from memoryd.sync.device_files import SyncFiles
        SyncFiles(config, "default").update_state(last_error="x")
    elif where == "outbox":
        from memoryd.sync.device_files import SyncFiles
        SyncFiles(config, "default").save_outbox({"version": 1})
    elif where == "keys":
        from memoryd.tiers.base.atomic import atomic_write_bytes
        atomic_write_bytes(config.key_path("default"), os.urandom(32))
    elif where == "render":
        from memoryd.tiers.base.atomic import atomic_write_json
        atomic_write_json(config.home / "render" / "state.json", {})
    elif where == "agent":
        from memoryd.tiers.base.atomic import atomic_write_json
        atomic_write_json(config.agent_dir("default") / "metrics.json", {})
""")


def run(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run([MEMORYD, *args], env=env, capture_output=True, text=True, timeout=120)


def leftovers(home: Path) -> list[str]:
    return sorted(str(p.relative_to(home)) for p in home.rglob(".*") if ".tmp-" in p.name or ".new-" in p.name)


def test_temp_files_of_killed_writers_go_from_every_folder(tmp_path: Path) -> None:
    home = tmp_path / "home"
    env = dict(os.environ, MEMORYD_HOME=str(home), OPENCLAW_STATE_DIR=str(tmp_path / "openclaw"))
    env.pop("MEMORYD_DB_URL", None)
    assert run("init", env=env).returncode == 0
    assert run("store", "the deploy server is called atlas", "--category", "ops", env=env).returncode == 0
    assert run("sync", env=env).returncode == 0  # makes sync/ and its lock
    key_before = (home / "keys" / "default.key").read_bytes()
    for where in ("sync", "outbox", "keys", "render", "agent"):
        child = subprocess.run([sys.executable, "-c", CHILD, where], env=env, capture_output=True, timeout=60)
        assert child.returncode == -9, child.stderr
    found = leftovers(home)
    for folder in ("agents/default/sync/.state.json", "agents/default/sync/outbox/.pending.json", "keys/.default.key",
                   "render/.state.json", "agents/default/.metrics.json"):
        assert any(f.startswith(folder + ".tmp-") for f in found), (folder, found)
    assert run("store", "a store after the kills", "--category", "ops", env=env).returncode == 0  # agent lock
    assert run("sync", env=env).returncode == 0  # the sync lock
    target = tmp_path / "MEMORY-copy.md"
    assert run("render", "--target", f"file:{target}", env=env).returncode == 0  # the render lock
    assert leftovers(home) == []
    assert (home / "keys" / "default.key").read_bytes() == key_before
    found_text = run("retrieve", "deploy server", "--json", env=env)
    assert found_text.returncode == 0 and "atlas" in found_text.stdout
