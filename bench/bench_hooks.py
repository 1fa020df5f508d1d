"""Claude Code / Codex hooks: hook latency with and without the daemon, context bytes, turn-to-retrievable time.

Run: .venv/bin/python bench/bench_hooks.py [--rounds 20]
Over a copy of tests/fixtures/harnesses (what the real CLIs wrote), in a temp HOME. Baselines printed
beside the hook figures: `memoryd-hook` with no argument (its start and config load, no work), `memoryd --version`
(the click CLI's start) and the same hook through the click CLI (`memoryd hooks run`).
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MEMORYD = str(Path(sys.executable).parent / "memoryd")
HOOK = str(Path(sys.executable).parent / "memoryd-hook")
FIXTURES = ROOT / "tests" / "fixtures" / "harnesses"
sys.path.insert(0, str(ROOT / "tests"))
from memoryd.daemon.client import try_daemon  # noqa: E402
from memoryd.tiers.base.config import load_config  # noqa: E402


CPU: dict[int, float] = {}  # id of a timing list → median CPU ms of the child (user + sys): what load on the machine does not inflate


def timed(argv: list[str], env: dict[str, str], stdin: bytes, rounds: int) -> tuple[list[float], bytes]:
    times, cpu, out = [], [], b""
    for _ in range(rounds):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        out = subprocess.run(argv, env=env, input=stdin, capture_output=True, timeout=60).stdout
        times.append((time.perf_counter() - t0) * 1000)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu.append((after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime) * 1000)
    times.sort()
    CPU[id(times)] = statistics.median(cpu)
    return times, out


def pct(times: list[float]) -> str:
    p95 = times[min(len(times) - 1, int(round(0.95 * (len(times) - 1))))]
    cpu = f" (cpu {CPU[id(times)]:3.0f} ms)" if id(times) in CPU else ""
    return f"p50 {statistics.median(times):4.0f} ms  p95 {p95:4.0f} ms{cpu}"


def hooks(env: dict[str, str], session: Path, rounds: int, label: str) -> None:
    start = json.dumps({"hook_event_name": "SessionStart", "source": "startup", "cwd": "/home/dev/widgets",
                        "session_id": session.stem, "transcript_path": str(session)}).encode()
    stop = json.dumps({"hook_event_name": "Stop", "cwd": "/home/dev/widgets", "session_id": session.stem,
                       "transcript_path": str(session)}).encode()
    base, _ = timed([MEMORYD, "--version"], env, b"", rounds)
    start_only, _ = timed([HOOK], env, b"", rounds)  # a usage line: the script's start and config, no work
    ss, out = timed([HOOK, "claude"], env, start, rounds)
    st, _ = timed([HOOK, "claude"], env, stop, rounds)
    clicked, _ = timed([MEMORYD, "hooks", "run", "claude"], env, start, rounds)
    context = json.loads(out)["hookSpecificOutput"]["additionalContext"] if out else ""
    print(f"{label}: memoryd-hook SessionStart {pct(ss)} | Stop {pct(st)}")
    print(f"{label}: baselines: memoryd-hook start {pct(start_only)} | memoryd --version {pct(base)} | "
          f"the click form (memoryd hooks run) SessionStart {pct(clicked)}")
    print(f"{label}: context injected {len(context.encode())} bytes ({len(context)} characters)")


def turn_to_retrievable(env: dict[str, str], session: Path, rounds: int) -> None:
    config = load_config(env)
    waits = []
    for i in range(rounds):
        words = f"The quokka enclosure number {i} opens on the ninth of March."
        line = {"type": "user", "message": {"role": "user", "content": words}, "cwd": "/home/dev/widgets",
                "timestamp": "2026-11-28T07:00:00Z", "promptSource": "sdk"}
        t0 = time.perf_counter()
        with open(session, "a") as fh:
            fh.write(json.dumps(line) + "\n")
        while True:
            hits = try_daemon(config, "retrieve", {"agent_id": "claude", "query": f"quokka enclosure number {i}"})
            if any(words == h["text"] for h in hits["results"]):
                break
            if time.perf_counter() - t0 > 10:
                raise SystemExit("not retrievable in 10 s")
            time.sleep(0.01)
        waits.append((time.perf_counter() - t0) * 1000)
    print(f"daemon: turn written → retrievable {pct(sorted(waits))}  (inotify hands a change over 50 ms after the last one)")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=20)
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="bench-hooks-", dir="/tmp"))
    home = tmp / "h"
    shutil.copytree(FIXTURES / "claude" / "projects", home / ".claude" / "projects")
    env = {"PATH": os.environ["PATH"], "HOME": str(home), "MEMORYD_HOME": str(home / "memoryd"),
           "MEMORYD_SOCKET": str(tmp / "d.sock"), "MEMORYD_RETRIEVAL_MODE": "keyword"}
    session = next((home / ".claude" / "projects" / "-home-dev-widgets").glob("e5840a01*.jsonl"))
    subprocess.run([MEMORYD, "claude", "sync"], env=env, check=True, capture_output=True)
    hooks(env, session, args.rounds, "no daemon")
    proc = subprocess.Popen([MEMORYD, "daemon"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 20
        while not (tmp / "d.sock").exists() or try_daemon(load_config(env), "ping", {}) is None:
            if time.monotonic() > deadline:
                raise SystemExit("daemon did not start")
            time.sleep(0.05)
        hooks(env, session, args.rounds, "daemon")
        turn_to_retrievable(env, session, min(args.rounds, 10))
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(10)
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
