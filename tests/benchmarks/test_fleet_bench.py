"""The fleet benchmark at 10 agents × 3 devices on a real sqld primary + replica (bench/bench_fleet.py as a
process): every device of every agent ends identical, nothing stored is lost, and it ends with its one line."""
from __future__ import annotations

import os
import random
import re
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench" / "bench_fleet.py"
sys.path.append(str(BENCH.parent))  # bench/ is not installed: last on the path, it shadows nothing

import fleet_device as fd  # noqa: E402
from sqld_cluster import SqldCluster  # noqa: E402

LINE = re.compile(r"^fleet: agents (\d+) devices (\d+) lost (\d+) diverged (\d+) converge_s ([\d.]+) "
                  r"push_p95_ms ([\d.]+) push_bytes_median (\d+) change_bytes_median (\d+)$")


def bench(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMORYD_") or k == "MEMORYD_SQLD_BIN"}
    return subprocess.run([sys.executable, str(BENCH), *args], env=env, capture_output=True, text=True,
                          timeout=timeout)


@pytest.mark.xdist_group("fleet")  # four processes of its own for ~15 s: one worker at a time
def test_ten_agents_three_devices_converge_and_lose_nothing() -> None:
    run = bench("--agents", "10", "--devices", "3", "--conversations", "3", "--workers", "2")
    assert run.returncode == 0, run.stderr[-3000:]
    assert "Traceback" not in run.stderr, run.stderr[-3000:]
    lines = run.stdout.strip().splitlines()
    found = LINE.match(lines[-1])
    assert found, lines[-1]
    agents, devices, lost, diverged = (int(found.group(i)) for i in range(1, 5))
    assert (agents, devices, lost, diverged) == (10, 3, 0, 0), run.stdout
    assert int(found.group(7)) > 0 and int(found.group(8)) > 0  # bytes were pushed and measured
    assert "fresh restores from the replica: 5" in run.stdout and "differing 0" in run.stdout
    assert "agents not identical: 0" in run.stdout


def test_bad_arguments_are_one_line_and_exit_2() -> None:
    run = bench("--agents", "0")
    assert run.returncode == 2 and run.stdout == ""
    assert run.stderr.strip().splitlines() == ["bench_fleet: --agents must be at least 1"]


def test_the_fleet_digest_tells_devices_apart_and_finds_every_ticket(tmp_path: Path,
                                                                     sqld_cluster: SqldCluster) -> None:
    """What the bench's lost and diverged rest on: two devices differ until they sync, and every fact is found."""
    a = fd.DeviceSpec(0, 0, sqld_cluster.primary.http_url, fd.homes(tmp_path, 0, 0))
    b = fd.DeviceSpec(0, 1, sqld_cluster.replica.http_url, fd.homes(tmp_path, 0, 1))
    seeded = fd.seed(a, 100)
    sqld_cluster.wait_caught_up()
    fd.restore_device(b, seeded["key"])
    assert fd.digest(a) == fd.digest(b) and fd.digest(a)[1] == [100, 101]
    done = fd.conversation(b, [200, 201, 202], random.Random(1))
    assert done["change_bytes"] > 0 and done["push_bytes"] > 0
    assert fd.digest(b)[1] == [100, 101, 200, 201, 202] and fd.digest(a) != fd.digest(b)
    assert fd.pull_digest(a)["digest"] == fd.digest(b)[0]
