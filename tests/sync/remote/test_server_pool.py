"""The socket server serves connections from a fixed pool: a burst of clients queues, it does not grow the daemon."""
from __future__ import annotations

import json
import socket
import threading
from pathlib import Path

from memoryd.daemon import server as srv
from waiting import eventually


def _ask(path: Path, op: str) -> dict:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.connect(str(path))
        s.sendall(json.dumps({"op": op, "params": {}}).encode() + b"\n")
        return json.loads(s.makefile("rb").readline())


def test_connections_share_a_fixed_pool(tmp_path: Path) -> None:
    gate = threading.Event()
    lock = threading.Lock()
    inside = [0, 0]  # handlers running now, most ever at once

    def handler(op: str, params: dict) -> dict:
        if op == "slow":
            with lock:
                inside[0] += 1
                inside[1] = max(inside)
            gate.wait(10)
            with lock:
                inside[0] -= 1
        return {"op": op}

    server = srv.SocketServer(tmp_path / "s.sock", handler)
    server.start()
    try:
        before = threading.active_count()
        holders = [threading.Thread(target=_ask, args=(tmp_path / "s.sock", "slow")) for _ in range(12)]
        for t in holders:
            t.start()
        eventually(lambda: inside[0] == srv.WORKERS, what="every pool worker busy with a slow request")
        assert threading.active_count() - before <= 12 + srv.WORKERS  # the 12 client threads + the pool, no more
        gate.set()
        for t in holders:
            t.join(10)
        assert not any(t.is_alive() for t in holders)  # the queued ones were served too
        assert inside[1] == srv.WORKERS  # never more at once than the pool
        assert _ask(tmp_path / "s.sock", "quick") == {"ok": True, "result": {"op": "quick"}}
        pool_threads = [t for t in threading.enumerate() if t.name.startswith("memoryd-conn")]
        assert 1 <= len(pool_threads) <= srv.WORKERS
    finally:
        server.stop()
