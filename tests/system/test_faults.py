"""The fault suite: real `memoryd` commands on four devices killed with SIGKILL at random moments (≥ 200
kills), the server stopped now and then, then one final sync round; nothing acknowledged may be lost,
no file torn, the devices identical, nothing duplicated. bench/faults.py is the long run."""
from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from faultcheck import print_figures, run_faults
from sqld_server import SqldServer

# One process holds the local index open (the daemon's shared connection) while a second connection
# is opened and closed beside it, another process opens and closes the file, then the first writes and
# is killed before it closes: its write must be in the file.
SECOND_OPEN = """
import os, subprocess, sys, time
from memoryd.tiers.cold.source import open_index
from memoryd.tiers.base.config import load_config
config = load_config()
entry = lambda t: {"id": t, "text": f"fact {t}", "category": "notes", "created_at": time.time()}
first = open_index(config)
first.put("ag", [entry("one")])
open_index(config).close()
subprocess.run([sys.executable, "-c", "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); "
                "c.execute('SELECT COUNT(*) FROM memories').fetchone(); c.close()", str(first.path)], check=True)
first.put("ag", [entry("two")])
os._exit(0)
"""


def test_a_second_connection_in_one_process_keeps_the_first_ones_writes(tmp_path: Path) -> None:
    from memoryd.tiers.cold.source import open_index
    from memoryd.tiers.base.config import load_config

    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMORYD_")}
    for url in (None, f"file:{tmp_path / 'db' / 'cold.db'}"):  # the index, and the embedded archive URL
        home = tmp_path / f"home-{bool(url)}"
        run_env = dict(env, MEMORYD_HOME=str(home), **({"MEMORYD_DB_URL": url} if url else {}))
        done = subprocess.run([sys.executable, "-c", SECOND_OPEN], env=run_env, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        with open_index(load_config(run_env)) as ix:
            assert [e["id"] for e in ix.iter_entries("ag")] == ["one", "two"]


def test_kill_9_anywhere_loses_tears_and_duplicates_nothing(tmp_path: Path, private_sqld: SqldServer) -> None:
    started = time.monotonic()
    fig = run_faults(tmp_path / "run", private_sqld, seed=20260112, steps=150, kill_rate=0.65, budget=100)
    print_figures(fig)
    assert fig["kills"] >= 200, fig["kills_by_kind"]
    assert fig["acknowledged"] >= 150 and fig["outages"] >= 3
    assert min(m["index"] for m in fig["memories"].values()) > 0  # warm's cap sent memories to the cloud log
    assert fig["lost"] == 0, fig["lost_examples"]
    assert fig["torn"] == 0 and fig["torn_log_lines"] == 0, fig["torn_examples"]
    assert fig["identical"] and fig["settle_rounds"] > 0
    assert fig["duplicates"] == 0
    assert fig["tracebacks"] == 0, fig["traceback_examples"]
    assert fig["odd_exit_codes"] == 0 and fig["hung"] == 0, fig["odd_examples"]
    assert time.monotonic() - started < 180
