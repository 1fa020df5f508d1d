"""Shredding forget: time and bytes uploaded for `forget --shred` beside a plain forget and the first upload of
the same archive; the other device's share (its sync that drops the old epoch, replaces its key pair and
scrubs its index) beside its unchanged sync.

Run: .venv/bin/python bench/bench_shred.py [--url http://127.0.0.1:8080] [--rows 10000,100000]
Without --url it starts a private sqld (the test fixture's binary) on loopback.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "bench"))
from sqld_url import database_url  # noqa: E402

from bench_keys import device, fill  # noqa: E402
from memoryd.daemon.engine import Engine  # noqa: E402
from memoryd.daemon.ops_core import forget  # noqa: E402
from memoryd.daemon.ops_sync import sync  # noqa: E402
from memoryd.sync.critical import pull_now, push_now  # noqa: E402
from memoryd.sync.crypto.keys import ensure_key  # noqa: E402


def timed(fn: Any) -> tuple[float, Any]:
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def bench_shred(root: Path, url: str, n: int) -> None:
    agent = f"shred{n}"
    a = device(root, f"a{n}", url, agent=agent)
    key = ensure_key(a, agent)
    b = device(root, f"b{n}", url, key, agent=agent)
    fill(a, n, agent)
    upload, _ = timed(lambda: push_now(a, agent))
    pull_now(b, agent)
    engine_a, engine_b = Engine(a), Engine(b)
    try:
        t_plain, plain = timed(lambda: forget(engine_a, {"agent_id": agent, "id": "m0000001"}))
        t_shred, shred = timed(lambda: forget(engine_a, {"agent_id": agent, "id": "m0000002", "shred": True}))
        t_same, _ = timed(lambda: sync(engine_b, {"agent_id": agent}))  # b: new epoch, drop, rekey, scrub
        t_unchanged, _ = timed(lambda: sync(engine_b, {"agent_id": agent}))
    finally:
        engine_a.indexes.close()
        engine_b.indexes.close()
    s = shred["shred"]
    sent = int((s.get("forget") or {}).get("bytes_sent") or 0) + int(s["reseal"].get("bytes_sent") or 0)
    print(f"forget --shred, {n:>7} memories: {t_shred:7.2f} s, {sent / 1e6:7.1f} MB uploaded "
          f"({s['reseal'].get('uploaded')} rows resealed, reseal {s['reseal'].get('seconds')} s); "
          f"plain forget {t_plain * 1e3:7.0f} ms ({int(plain['sync'].get('bytes_sent') or 0) / 1e3:.1f} kB); "
          f"first upload of the archive {upload:6.2f} s (shred/upload {t_shred / upload:4.2f})")
    print(f"  the other device's next sync: {t_same:6.2f} s (pulls {n} resealed rows, new key pair, scrub); "
          f"its unchanged sync after: {t_unchanged * 1e3:.0f} ms")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--url", help="libSQL URL (default: a private sqld on loopback)")
    ap.add_argument("--rows", default="10000,100000", help="archive sizes")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        with database_url(root, args.url) as url:
            for n in [int(x) for x in args.rows.split(",") if x]:
                bench_shred(root, url, n)


if __name__ == "__main__":
    main()
