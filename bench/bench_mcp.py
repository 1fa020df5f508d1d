"""Benchmark `memoryd mcp`: time to the `initialize` answer, and memory_search round trips with and without the daemon.

Baselines in the same run: a bare Python start, `import mcp` (the SDK's own import), the SDK's smallest
server (no tools) answering `initialize`, and the retrieve operation called in-process (no MCP, no IPC).
The client speaks raw JSON-RPC over the pipes, so no client library cost is in the numbers.

Run: .venv/bin/python bench/bench_mcp.py [--runs 10] [--calls 200] [--facts 1000]
"""
from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

MINIMAL_SERVER = """
import anyio
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
server = Server("minimal")
async def main():
    async with stdio_server() as (r, w):
        await server.run(r, w, server.create_initialization_options())
anyio.run(main)
"""
INIT = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}}}
WORDS = "garden invoice postgres deploy alice bob tea meeting budget release kernel travel doctor music".split()


class Rpc:
    """A server process spoken to in newline-delimited JSON-RPC."""

    def __init__(self, cmd: list[str], env: dict[str, str]) -> None:
        self.proc = subprocess.Popen(cmd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, text=True, bufsize=1)
        self.next_id = 1

    def send(self, msg: dict) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(msg) + "\n")
        self.proc.stdin.flush()

    def request(self, method: str, params: dict) -> dict:
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        assert self.proc.stdout is not None
        while True:
            reply = json.loads(self.proc.stdout.readline())
            if reply.get("id") == self.next_id:
                return reply

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(10)


def time_to_initialize(cmd: list[str], env: dict[str, str], runs: int) -> list[float]:
    out = []
    for _ in range(runs):  # wall time from spawn to the answer: what a harness waits for
        t = time.perf_counter()
        rpc = Rpc(cmd, env)
        rpc.send(INIT)
        assert rpc.proc.stdout is not None
        assert "result" in json.loads(rpc.proc.stdout.readline())
        out.append((time.perf_counter() - t) * 1000)
        rpc.close()
    return out


def time_to_exit(cmd: list[str], env: dict[str, str], runs: int) -> list[float]:
    out = []
    for _ in range(runs):
        t = time.perf_counter()
        subprocess.run(cmd, env=env, check=True, capture_output=True)
        out.append((time.perf_counter() - t) * 1000)
    return out


def queries(n: int) -> list[str]:
    rng = random.Random(7)
    return [" ".join(rng.sample(WORDS, 2)) for _ in range(n)]


def search_round_trips(exe: str, env: dict[str, str], calls: int) -> list[float]:
    rpc = Rpc([exe, "mcp"], env)
    rpc.send(INIT)
    assert rpc.proc.stdout is not None
    rpc.proc.stdout.readline()
    rpc.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    for q in queries(5):  # warm-up: the first call imports the retrieval path
        rpc.request("tools/call", {"name": "memory_search", "arguments": {"query": q, "limit": 10}})
    out = []
    for q in queries(calls):
        t = time.perf_counter()
        reply = rpc.request("tools/call", {"name": "memory_search", "arguments": {"query": q, "limit": 10}})
        out.append((time.perf_counter() - t) * 1000)
        assert not reply["result"].get("isError"), reply
    rpc.close()
    return out


def in_process_retrieve(env: dict[str, str], calls: int) -> list[float]:
    from memoryd.daemon.api import in_process
    from memoryd.tiers.base.config import load_config

    config = load_config(env)
    for q in queries(5):  # warm-up, as for the server
        in_process(config).call("retrieve", {"agent_id": "default", "query": q, "limit": 10})
    out = []
    for q in queries(calls):
        t = time.perf_counter()
        in_process(config).call("retrieve", {"agent_id": "default", "query": q, "limit": 10})
        out.append((time.perf_counter() - t) * 1000)
    return out


def seed(env: dict[str, str], facts: int) -> None:
    """`facts` memories: the newest in warm, the rest archived in cold by a full consolidation."""
    from memoryd.daemon.api import in_process
    from memoryd.tiers.memory.agent import AgentMemory
    from memoryd.tiers.cold.source import LazyIndex  # noqa: E402
    from memoryd.tiers.base.config import load_config

    config = load_config(env)
    in_process(config).call("init", {"agent_id": "default"})
    rng = random.Random(3)
    mem = AgentMemory(config, "default", archive=LazyIndex(config))
    for start in range(0, facts, 100):
        mem.store_many([(f"fact {i}: " + " ".join(rng.sample(WORDS, 4)), f"topic/{rng.choice(WORDS)}", None, None)
                        for i in range(start, min(start + 100, facts))])
    in_process(config).call("consolidate", {"agent_id": "default", "mode": "full"})


def cpu_ms(fn, *args) -> tuple[list[float], float]:
    """fn's result and the CPU milliseconds (user+sys) its child processes used, per run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    result = fn(*args)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    used = (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000
    return result, used / max(1, len(result))


def startup(label: str, fn, cmd: list[str], env: dict[str, str], runs: int) -> None:
    wall, cpu = cpu_ms(fn, cmd, env, runs)
    print(line(label, wall) + f"   cpu {cpu:6.0f} ms/run")


def line(label: str, ms: list[float]) -> str:
    ms = sorted(ms)
    p95 = ms[min(len(ms) - 1, int(round(0.95 * (len(ms) - 1))))]
    return f"{label:40s} p50 {statistics.median(ms):7.1f} ms   p95 {p95:7.1f} ms   min {ms[0]:7.1f} ms   (n={len(ms)})"


def start_daemon(exe: str, env: dict[str, str]) -> subprocess.Popen:
    from memoryd.daemon.client import daemon_running
    from memoryd.tiers.base.config import load_config

    proc = subprocess.Popen([exe, "daemon"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 20
    while not daemon_running(load_config(env)):
        if time.monotonic() > deadline or proc.poll() is not None:
            raise SystemExit("the daemon did not start")
        time.sleep(0.05)
    return proc


def rss_mib(pid: int) -> float:
    for row in Path(f"/proc/{pid}/status").read_text().splitlines():
        if row.startswith("VmRSS:"):
            return int(row.split()[1]) / 1024
    return float("nan")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=10, help="server starts per startup case")
    ap.add_argument("--calls", type=int, default=200, help="memory_search calls per case")
    ap.add_argument("--facts", type=int, default=1000, help="memories seeded (warm + cold)")
    args = ap.parse_args()
    exe = shutil.which("memoryd", path=str(Path(sys.executable).parent)) or "memoryd"
    with tempfile.TemporaryDirectory(prefix="memoryd-bench-") as tmp, \
            tempfile.TemporaryDirectory(prefix="mb-", dir="/tmp") as sock_dir:
        env = {k: v for k, v in os.environ.items() if not k.startswith("MEMORYD_")}
        env.update(MEMORYD_HOME=str(Path(tmp) / "home"), MEMORYD_SOCKET=str(Path(sock_dir) / "d.sock"),
                   MEMORYD_WORKSPACE=str(Path(tmp) / "ws"))
        seed(env, args.facts)
        print("startup, fresh process (wall):")
        startup("  python -c pass", time_to_exit, [sys.executable, "-c", "pass"], env, args.runs)
        startup("  memoryd --help", time_to_exit, [exe, "--help"], env, args.runs)
        startup("  python -c 'import mcp' (the SDK)", time_to_exit, [sys.executable, "-c", "import mcp"], env, args.runs)
        startup("  SDK minimal server: initialize", time_to_initialize, [sys.executable, "-c", MINIMAL_SERVER], env,
                args.runs)
        startup("  memoryd mcp: initialize", time_to_initialize, [exe, "mcp"], env, args.runs)
        print(f"memory_search round trip ({args.facts} memories, limit 10):")
        print(line("  retrieve op in-process (baseline)", in_process_retrieve(env, args.calls)))
        print(line("  memory_search, no daemon", search_round_trips(exe, env, args.calls)))
        daemon = start_daemon(exe, env)
        try:
            before = rss_mib(daemon.pid)
            first = time_to_initialize([exe, "mcp"], env, 1)[0]  # the daemon loads the SDK for its first session
            print(line("  memory_search, through the daemon", search_round_trips(exe, env, args.calls)))
            print(f"startup with the daemon up (it serves the session; `memoryd mcp` only pumps lines):\n"
                  f"  first session of a daemon that had not loaded the SDK: initialize {first:7.1f} ms")
            startup("  memoryd mcp: initialize (daemon up)", time_to_initialize, [exe, "mcp"], env, args.runs)
            print(f"daemon RSS: {before:.1f} MiB before any MCP session, {rss_mib(daemon.pid):.1f} MiB with the SDK"
                  " loaded (it preloads at start when MCP was used in the last 30 days)")
        finally:
            daemon.send_signal(signal.SIGTERM)
            daemon.wait(15)
        print("goal: initialize answered ≤ 300 ms after start")


if __name__ == "__main__":
    main()
