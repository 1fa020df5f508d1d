"""pytest plugin: a real libSQL cluster on loopback, one sqld primary and one replica.

The primary listens for its replicas on `--grpc-listen-addr`; the replica follows it with `--primary-grpc-url`,
serves reads from its own copy and forwards writes to the primary. Both are SqldServer processes (tests/
sqld_server.py), so the replica can be stopped, killed (SIGKILL) and restarted on its port and data dir.

Fixtures:
  sqld_cluster  per test: a private primary + replica (.primary .replica .wait_caught_up() .usage())
"""
from __future__ import annotations

import json
import os
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import pytest

from sqld_server import SqldServer, free_port, sqld_binary

PAGE = os.sysconf("SC_PAGE_SIZE")
TICKS = os.sysconf("SC_CLK_TCK")


@dataclass(frozen=True)
class Usage:
    """What one sqld process has used so far: CPU seconds (user + system), resident and peak memory."""

    cpu_s: float
    rss_mb: float
    peak_rss_mb: float


def process_usage(pid: int) -> Usage:
    """CPU and memory of a live process from /proc (Linux)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    cpu = (int(fields[11]) + int(fields[12])) / TICKS  # utime, stime (fields 14 and 15 of stat)
    status = dict(line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines() if ":" in line)
    kb = lambda name: int(status.get(name, "0 kB").split()[0])  # noqa: E731 - a two-use local reader
    return Usage(cpu, kb("VmRSS") / 1024, kb("VmHWM") / 1024)


def replication_index(server: SqldServer, timeout: float = 5.0) -> int:
    """The last replication frame the node has applied (every Hrana result carries it)."""
    body = {"requests": [{"type": "execute", "stmt": {"sql": "SELECT 1"}}, {"type": "close"}]}
    req = urllib.request.Request(f"{server.http_url}/v2/pipeline", data=json.dumps(body).encode(),
                                 headers={"content-type": "application/json"})
    with urllib.request.urlopen(req, timeout=timeout) as resp:
        out = json.load(resp)
    return int(out["results"][0]["response"]["result"].get("replication_index") or 0)


def dir_bytes(path: Path) -> int:
    """Bytes of every file under a data dir (the database, its WAL, the replication log, the meta store)."""
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def dir_breakdown(path: Path) -> dict[str, int]:
    """A data dir's bytes by what they hold, over every namespace: the databases (file, WAL, shared memory),
    the replication log replicas follow (wallog, snapshots), and the rest (meta store, stats)."""
    out = {"database": 0, "replication_log": 0, "other": 0}
    for p in path.rglob("*"):
        if not p.is_file():
            continue
        if p.name in ("data", "data-wal", "data-shm"):
            out["database"] += p.stat().st_size
        elif p.name == "wallog" or "snapshots" in p.parts or "to_compact" in p.parts:
            out["replication_log"] += p.stat().st_size
        else:
            out["other"] += p.stat().st_size
    return out


class SqldCluster:
    """A primary and one replica of it; each can be stopped and started alone (ports and data dirs kept)."""

    def __init__(self, root: Path, binary: Path | None = None, extra: list[str] | None = None) -> None:
        """`extra`: flags both nodes take (--enable-namespaces, --auth-jwt-key-file …)."""
        binary = binary or sqld_binary()
        self.grpc_port = free_port()
        for name in ("primary", "replica"):
            (root / name).mkdir(parents=True, exist_ok=True)
        self.primary = SqldServer(binary, root / "primary",
                                  ["--grpc-listen-addr", f"127.0.0.1:{self.grpc_port}", *(extra or [])])
        self.replica = SqldServer(binary, root / "replica",
                                  ["--primary-grpc-url", f"http://127.0.0.1:{self.grpc_port}", *(extra or [])])

    def start(self, timeout: float = 30.0) -> None:
        self.primary.start(timeout)
        self.replica.start(timeout)
        self.wait_caught_up(timeout)

    def stop(self) -> None:
        self.replica.stop()
        self.primary.stop()

    def restart_replica(self, timeout: float = 30.0) -> None:
        """Start the replica again (after stop or kill) and wait until it holds what the primary holds."""
        self.replica.start(timeout)
        self.wait_caught_up(timeout)

    def wait_caught_up(self, timeout: float = 30.0) -> int:
        """Wait until the replica has applied every frame the primary had when asked; returns that index.
        The replica's first answers may fail while it handshakes with the primary: asked again until the deadline."""
        deadline = time.monotonic() + timeout
        target = replication_index(self.primary)
        while True:
            try:
                if replication_index(self.replica) >= target:
                    return target
            except (OSError, ValueError):  # refused, or an empty body while it handshakes (seen once under load)
                pass
            if time.monotonic() > deadline:
                raise TimeoutError(f"replica did not reach replication index {target} within {timeout:g}s")
            time.sleep(0.02)

    def usage(self) -> dict[str, Usage]:
        """CPU and memory of each running node."""
        return {name: process_usage(node.proc.pid) for name, node in (("primary", self.primary),
                                                                       ("replica", self.replica))
                if node.proc is not None and node.running}

    def data_bytes(self) -> int:
        """What the primary stores on disk."""
        return dir_bytes(self.primary.data_dir)

    def data_breakdown(self) -> dict[str, int]:
        return dir_breakdown(self.primary.data_dir)


@pytest.fixture
def sqld_cluster(tmp_path: Path) -> Iterator[SqldCluster]:
    """A private primary + replica for one test (its replica may be killed and restarted freely)."""
    cluster = SqldCluster(tmp_path / "cluster")
    cluster.start()
    try:
        yield cluster
    finally:
        cluster.stop()
