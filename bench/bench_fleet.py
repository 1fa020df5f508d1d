"""Fleet benchmark: N agents × M devices on a real sqld primary + replica on loopback.

Run: .venv/bin/python bench/bench_fleet.py --agents 10 --devices 3 [--conversations 3] [--workers 4]

It starts its own primary and replica (tests/sqld_cluster.py). Device d of agent a talks to the primary or the
replica, alternately. Each agent's first device creates the key and pushes a small memory; the others restore
from their node with that key. Then the burst: every device holds a few small conversations (facts stored, a
hot event, push, pull). Then every device pulls until all devices of each agent are identical (hot, warm, tree
and cold ids), and a few agents are restored on a new device from the replica and compared. Worker processes
play the devices one at a time (each its own home, key and connection); count and time are bounded.
Ends with one line:
  fleet: agents N devices M lost L diverged D converge_s X push_p95_ms Y push_bytes_median B change_bytes_median C
"""
from __future__ import annotations

import argparse
import multiprocessing
import os
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PATHS = [str(ROOT / "tests"), str(ROOT / "bench")]
sys.path[:0] = [p for p in PATHS if p not in sys.path]

from fleet_device import DeviceSpec, homes, main_of_worker  # noqa: E402
from sqld_cluster import SqldCluster  # noqa: E402


def pct(values: list[float], p: float) -> float:
    if not values:
        return 0.0
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


class Workers:
    """W spawned worker processes; device g (agent × M + index) always goes to worker g mod W."""

    def __init__(self, count: int) -> None:
        ctx = multiprocessing.get_context("spawn")  # no fork of a process holding client threads
        self.conns, self.procs = [], []
        for _ in range(count):
            mine, theirs = ctx.Pipe()
            proc = ctx.Process(target=main_of_worker, args=(theirs, PATHS), daemon=True)
            proc.start()
            self.conns.append(mine)
            self.procs.append(proc)

    def run(self, name: str, payloads: list[Any]) -> list[Any]:
        """Send each worker its payload at once, then gather the answers (in worker order)."""
        for conn, payload in zip(self.conns, payloads):
            conn.send((name, payload))
        answers = [conn.recv() for conn in self.conns]
        for status, value in answers:
            if status != "ok":
                raise RuntimeError(f"a fleet worker failed during {name}: {value}")
        return [value for _, value in answers]

    def stop(self) -> None:
        for conn, proc in zip(self.conns, self.procs):
            try:
                conn.send(("stop", None))
                conn.recv()
            except (OSError, EOFError):
                pass
            proc.join(10)
            if proc.is_alive():
                proc.kill()


class Fleet:
    """The devices, their plan of conversations (tickets) and what each phase measured."""

    def __init__(self, root: Path, cluster: SqldCluster, args: argparse.Namespace) -> None:
        self.args, self.cluster, self.root = args, cluster, root
        nodes = (cluster.primary.http_url, cluster.replica.http_url)
        self.specs = [DeviceSpec(a, d, nodes[(a + d) % 2], homes(root, a, d))
                      for a in range(args.agents) for d in range(args.devices)]
        self.workers = Workers(args.workers)
        self.keys: dict[int, str] = {}
        self.expected: dict[int, set[int]] = defaultdict(set)  # agent → tickets stored on some device
        counter = iter(range(1_000_000, 10 ** 9))
        self.seed_tickets = {a: [next(counter), next(counter)] for a in range(args.agents)}
        self.plan = {s.name: [[next(counter) for _ in range(args.facts)] for _ in range(args.conversations)]
                     for s in self.specs}

    def split(self, specs: list[DeviceSpec]) -> list[list[DeviceSpec]]:
        parts: list[list[DeviceSpec]] = [[] for _ in self.workers.conns]
        for s in specs:
            parts[(s.agent * self.args.devices + s.index) % len(parts)].append(s)
        return parts

    def enrol(self) -> list[float]:
        """First devices seed and push; after replication the others restore. Restore times (ms)."""
        firsts = [s for s in self.specs if s.index == 0]
        for answers in self.workers.run("seed", [[(s, self.seed_tickets[s.agent][0]) for s in part]
                                                 for part in self.split(firsts)]):
            for r in answers:
                self.keys[r["agent"]] = r["key"]
                self.expected[r["agent"]].update(r["tickets"])
        self.cluster.wait_caught_up()
        rest = [s for s in self.specs if s.index > 0]
        answers = self.workers.run("restore", [[(s, self.keys[s.agent]) for s in part] for part in self.split(rest)])
        return [r["ms"] for part in answers for r in part]

    def burst(self) -> tuple[list[dict], float]:
        """Every device's conversations, all workers at once; (results, seconds)."""
        deadline = time.time() + self.args.time_limit
        payloads = [{"specs": part, "plan": {s.name: self.plan[s.name] for s in part}, "deadline": deadline,
                     "seed": self.args.seed + i} for i, part in enumerate(self.split(self.specs))]
        t0 = time.perf_counter()
        results = [r for part in self.workers.run("burst", payloads) for r in part]
        wall = time.perf_counter() - t0
        for r in results:
            self.expected[r["agent"]].update(r["tickets"])
        return results, wall

    def converge(self, started: float) -> dict[str, Any]:
        """Pull rounds over the agents not yet identical on every device, until none is left or the deadline.
        converge_s: from the burst's end to the end of the last pull of the round after which every device of
        every agent is identical (the digests, taken after the round's pulls, say so); verified_s: to the moment
        the bench had compared them."""
        pending = set(range(self.args.agents))
        last: dict[str, dict] = {}
        rounds, pulls, cpu, queued, done_at, verified_at = 0, [], [], 0, started, started
        deadline = started + self.args.converge_limit
        while pending and (rounds == 0 or time.monotonic() < deadline):
            rounds += 1
            specs = [s for s in self.specs if s.agent in pending]
            for part in self.workers.run("pull", self.split(specs)):
                for r in part:
                    last[r["device"]] = r
                    pulls.append(r["ms"])
                    cpu.append(r["cpu_ms"])
                    queued += r["status"] == "queued"
                    done_at = max(done_at, r["done"])
            for agent in sorted(pending):
                if len({last[s.name]["digest"] for s in self.specs if s.agent == agent}) == 1:
                    pending.discard(agent)
            verified_at = time.monotonic()
        return {"pending": pending, "rounds": rounds, "pulls": pulls, "cpu": cpu, "queued": queued, "last": last,
                "converge_s": done_at - started, "verified_s": verified_at - started}

    def lost(self, last: dict[str, dict]) -> int:
        """Stored tickets missing from at least one device of their agent."""
        missing = 0
        for agent, tickets in self.expected.items():
            held = [set(last[s.name]["tickets"]) for s in self.specs if s.agent == agent]
            missing += sum(1 for t in tickets if not all(t in h for h in held))
        return missing

    def fresh_restores(self, last: dict[str, dict]) -> tuple[list[float], int]:
        """A new device of the first agents restores from the replica: (ms each, how many differ)."""
        agents = list(range(min(self.args.restores, self.args.agents)))
        self.cluster.wait_caught_up()
        specs = [DeviceSpec(a, self.args.devices, self.cluster.replica.http_url, homes(self.root, a, self.args.devices))
                 for a in agents]
        parts = self.split(specs)
        ms = [r["ms"] for part in self.workers.run("restore", [[(s, self.keys[s.agent]) for s in p] for p in parts])
              for r in part]
        differ = 0
        for part in self.workers.run("pull", parts):  # a pull (nothing to fetch) then the digest
            for r in part:
                differ += r["digest"] != last[self.specs[r["agent"] * self.args.devices].name]["digest"]
        return ms, differ


def report(args: argparse.Namespace, fleet: Fleet, measured: dict[str, Any]) -> str:
    burst, wall, conv = measured["burst"], measured["burst_s"], measured["converge"]
    print(f"machine: {os.cpu_count()} cores, load average {measured['load'][0]:.1f} at the start, "
          f"{os.getloadavg()[0]:.1f} at the end")
    push = [r["push_ms"] for r in burst]
    pull = [r["pull_ms"] for r in burst]
    retries = sum((r["push_status"] == "queued") + (r["pull_status"] == "queued") for r in burst) + conv["queued"]
    print(f"devices: {len(fleet.specs)} ({args.agents} agents × {args.devices}), half on the replica; "
          f"{len(burst)} conversations of {args.facts} facts in {wall:.1f} s with {args.workers} worker processes")
    print(f"enrolment (workers started, first pushes, restores) {measured['enrol_s']:.1f} s; "
          f"restores: {len(measured['restores'])}, p50 {pct(measured['restores'], 50):.0f} ms, "
          f"p95 {pct(measured['restores'], 95):.0f} ms")
    print(f"burst: {len(push) / wall:.1f} pushes/s, {len(pull) / wall:.1f} pulls/s; push p50 {pct(push, 50):.1f} ms "
          f"p95 {pct(push, 95):.1f} ms; pull p50 {pct(pull, 50):.1f} ms p95 {pct(pull, 95):.1f} ms")
    print(f"conflicts: {sum(r['conflicts'] for r in burst)} (merged and re-sent), retries (queued syncs): {retries}")
    b = [r["push_bytes"] for r in burst]
    c = [r["change_bytes"] for r in burst]
    extra = [r["pull_bytes"] for r in burst]
    print(f"bytes per conversation: push median {statistics.median(b):.0f} (p95 {pct(b, 95):.0f}), "
          f"sealed change median {statistics.median(c):.0f}, merge re-sends on pull mean {statistics.mean(extra):.0f}")
    memories = sum(len(t) for t in fleet.expected.values())
    parts = ", ".join(f"{k.replace('_', ' ')} {v / 1e6:.1f} MB" for k, v in measured["data_parts"].items())
    print(f"server: primary data dir {measured['data_bytes'] / 1e6:.1f} MB ({parts}) for {memories} memories "
          f"= {measured['data_bytes'] / max(1, memories):.0f} bytes per memory")
    print(f"convergence: {conv['rounds']} pull rounds ({len(conv['pulls'])} pulls, p50 {pct(conv['pulls'], 50):.0f} ms "
          f"p95 {pct(conv['pulls'], 95):.0f} ms; the device process's CPU per pull p50 {pct(conv['cpu'], 50):.1f} ms), "
          f"the last one done {conv['converge_s']:.1f} s after the burst (digests compared at "
          f"{conv['verified_s']:.1f} s); agents not identical: {len(conv['pending'])}")
    r_ms = measured["fresh_restore_ms"]
    print(f"fresh restores from the replica: {len(r_ms)}, p50 {pct(r_ms, 50):.0f} ms, differing {measured['differ']}")
    for name, (before, after) in measured["sqld"].items():
        print(f"sqld {name}: {after.cpu_s - before.cpu_s:.1f} CPU s during burst and convergence, "
              f"RSS {after.rss_mb:.0f} MB (peak {after.peak_rss_mb:.0f} MB)")
    cpu = [r["cpu_ms"] for r in burst]
    print(f"one device: CPU per conversation (store, push, pull) median {statistics.median(cpu):.0f} ms; "
          f"peak RSS of a worker process playing devices one at a time {measured['worker_rss']:.0f} MB")
    diverged = len(conv["pending"]) + measured["differ"]
    return (f"fleet: agents {args.agents} devices {args.devices} lost {measured['lost']} diverged {diverged} "
            f"converge_s {conv['converge_s']:.1f} push_p95_ms {pct(push, 95):.1f} "
            f"push_bytes_median {statistics.median(b):.0f} change_bytes_median {statistics.median(c):.0f}")


def progress(text: str) -> None:
    """A phase done (stderr: stdout is the report)."""
    print(f"bench_fleet: {text}", file=sys.stderr, flush=True)


def run(args: argparse.Namespace, root: Path) -> str:
    load = os.getloadavg()
    cluster = SqldCluster(root / "cluster")
    cluster.start()
    fleet = None
    try:
        t0 = time.perf_counter()
        fleet = Fleet(root, cluster, args)
        measured: dict[str, Any] = {"restores": fleet.enrol(), "load": load}
        measured["enrol_s"] = time.perf_counter() - t0
        progress(f"{len(fleet.specs)} devices enrolled in {measured['enrol_s']:.1f} s")
        before = cluster.usage()
        measured["burst"], measured["burst_s"] = fleet.burst()
        progress(f"burst of {len(measured['burst'])} conversations done in {measured['burst_s']:.1f} s")
        conv = fleet.converge(time.monotonic())
        measured["converge"] = conv
        progress(f"convergence: {conv['rounds']} rounds, {conv['converge_s']:.1f} s")
        measured["sqld"] = {n: (before[n], u) for n, u in cluster.usage().items() if n in before}
        measured["lost"] = fleet.lost(conv["last"])
        measured["fresh_restore_ms"], measured["differ"] = fleet.fresh_restores(conv["last"])
        measured["data_bytes"] = cluster.data_bytes()
        measured["data_parts"] = cluster.data_breakdown()
        measured["worker_rss"] = max(u["peak_rss_mb"] for u in fleet.workers.run("usage", [None] * args.workers))
        return report(args, fleet, measured)
    finally:
        if fleet is not None:
            fleet.workers.stop()
        cluster.stop()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--agents", type=int, default=10)
    ap.add_argument("--devices", type=int, default=3)
    ap.add_argument("--conversations", type=int, default=3, help="per device")
    ap.add_argument("--facts", type=int, default=3, help="facts stored per conversation")
    ap.add_argument("--workers", type=int, default=2 * (os.cpu_count() or 1), help="processes playing the devices")
    ap.add_argument("--restores", type=int, default=5, help="agents restored on a new device after convergence")
    ap.add_argument("--time-limit", type=float, default=600, help="seconds the burst may last")
    ap.add_argument("--converge-limit", type=float, default=300, help="seconds convergence may take")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--tmp", help="where the run's directory (sqld data, device homes) goes (default: the system's)")
    args = ap.parse_args()
    for name in ("agents", "devices", "conversations", "facts", "workers"):
        if getattr(args, name) < 1:
            print(f"bench_fleet: --{name} must be at least 1", file=sys.stderr)
            sys.exit(2)
    with tempfile.TemporaryDirectory(prefix="memoryd-fleet-", dir=args.tmp) as tmp:
        line = run(args, Path(tmp))
    print(line)


if __name__ == "__main__":
    main()
