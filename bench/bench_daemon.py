"""Daemon benchmarks: idle RSS/CPU, daily-note → retrievable latency, `memoryd status` wall time.

Usage: python bench/bench_daemon.py [--seconds 60] [--notes 5] [--status-runs 10]
Runs the real daemon on a throwaway MEMORYD_HOME (file: database) and prints one line per figure.
Goals: idle RSS <= 60 MB, idle CPU ~0 s, status through the socket <= 150 ms.
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from memoryd.daemon.client import try_daemon
from memoryd.tiers.config import load_config

TICKS = os.sysconf("SC_CLK_TCK")


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS  # utime + stime


def wait_for(pred, timeout: float = 30.0, step: float = 0.01):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = pred()
        if value:
            return value
        time.sleep(step)
    raise SystemExit("benchmark: condition not reached in time")


def start(env: dict[str, str]) -> subprocess.Popen:
    proc = subprocess.Popen([sys.executable, "-m", "memoryd.daemon"], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    cfg = load_config(env)

    def up() -> bool:
        try:
            return try_daemon(cfg, "ping", {}, timeout=2) is not None
        except Exception:
            return False

    wait_for(up)
    # let the start-up catch-up (consolidations, outbox drain, file scan) finish before measuring
    wait_for(lambda: try_daemon(cfg, "daemon", {})["jobs"]["sync"]["runs"] >= 1)
    return proc


def bench_idle(proc: subprocess.Popen, seconds: float) -> None:
    time.sleep(1.0)
    cpu0, rss0 = cpu_seconds(proc.pid), rss_mb(proc.pid)
    time.sleep(seconds)
    cpu1, rss1 = cpu_seconds(proc.pid), rss_mb(proc.pid)
    print(f"idle_rss_mb_start {rss0:.1f}")
    print(f"idle_rss_mb_end {rss1:.1f}   (goal <= 60)")
    print(f"idle_cpu_seconds {cpu1 - cpu0:.3f} over {seconds:g} s   (goal ~0)")


def bench_note_latency(env: dict[str, str], notes: int) -> None:
    cfg = load_config(env)
    mem_dir = Path(env["MEMORYD_WORKSPACE"]) / "memory"
    samples = []
    for i in range(notes):
        word = f"zebrafish{i}quokka"
        t0 = time.perf_counter()
        (mem_dir / f"2026-01-{i + 1:02d}.md").write_text(f"# 2026-01-{i + 1:02d}\n\n- Deployed the {word} service to the edge cluster\n")

        def found() -> bool:
            hits = try_daemon(cfg, "retrieve", {"agent_id": "default", "query": word}, timeout=10)["results"]
            return any(word in h["text"] for h in hits)

        wait_for(found, timeout=30)
        samples.append(time.perf_counter() - t0)
    print(f"note_to_retrievable_ms median {statistics.median(samples) * 1000:.0f} "
          f"max {max(samples) * 1000:.0f} (n={notes})")


def bench_status(env: dict[str, str], runs: int) -> None:
    exe = shutil.which("memoryd", path=str(Path(sys.executable).parent)) or "memoryd"
    walls = []
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run([exe, "status", "--json"], env=env, check=True, capture_output=True)
        walls.append(time.perf_counter() - t0)
    cfg = load_config(env)
    rpc = []
    for _ in range(runs):
        t0 = time.perf_counter()
        try_daemon(cfg, "status", {"agent_id": "default"})
        rpc.append(time.perf_counter() - t0)
    print(f"memoryd_status_wall_ms median {statistics.median(walls) * 1000:.0f} "
          f"min {min(walls) * 1000:.0f} (n={runs}, whole process; goal <= 150)")
    print(f"status_socket_roundtrip_ms median {statistics.median(rpc) * 1000:.1f} (in-process client)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=60.0, help="idle measuring window")
    ap.add_argument("--notes", type=int, default=5)
    ap.add_argument("--status-runs", type=int, default=10)
    args = ap.parse_args()
    root = Path(tempfile.mkdtemp(prefix="mdb-", dir="/tmp"))
    env = dict(os.environ)
    env.update({"MEMORYD_HOME": str(root / "home"), "MEMORYD_WORKSPACE": str(root / "ws"),
                "MEMORYD_SOCKET": str(root / "d.sock"), "MEMORYD_SESSIONS_DIR": str(root / "agents")})
    for var in ("MEMORYD_DB_URL", "MEMORYD_DB_TOKEN", "NOTIFY_SOCKET", "MEMORYD_CLOCK_FILE"):
        env.pop(var, None)
    (root / "ws" / "memory").mkdir(parents=True)
    (root / "agents").mkdir()
    from memoryd.daemon.ops import dispatch

    dispatch(load_config(env), "init", {"agent_id": "default"})
    proc = start(env)
    try:
        bench_idle(proc, args.seconds)
        bench_note_latency(env, args.notes)
        bench_status(env, args.status_runs)
        print(f"rss_mb_after_work {rss_mb(proc.pid):.1f}")
    finally:
        proc.terminate()
        t0 = time.perf_counter()
        code = proc.wait(10)
        print(f"sigterm_to_exit_ms {(time.perf_counter() - t0) * 1000:.0f} (exit {code})")
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
