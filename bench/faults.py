"""The long fault run: real `memoryd` commands on four devices (three working, one restoring) killed
with SIGKILL at random moments until at least --kills kills, the server stopped now and then, then a
final sync round; prints operations acknowledged, acknowledged operations lost, torn files, whether
the devices are identical, and duplicates (tests/system/test_faults.py is the short run CI does).

Run: .venv/bin/python bench/faults.py [--kills 1000] [--seed 1] [--kill-rate 0.65] [--keep]
It starts a private sqld (the test fixture's binary) on loopback.
"""
from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from faultcheck import print_figures, run_faults  # noqa: E402
from sqld_server import SqldServer, sqld_binary  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kills", type=int, default=1000, help="keep going until at least this many kills")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--kill-rate", type=float, default=0.65, help="share of commands sent a SIGKILL")
    ap.add_argument("--steps", type=int, default=0, help="steps per device per run (default: from --kills)")
    ap.add_argument("--keep", action="store_true", help="keep the devices' homes for inspection")
    ap.add_argument("--json", action="store_true", help="also print every figure as JSON")
    args = ap.parse_args()
    root = Path(tempfile.mkdtemp(prefix="memoryd-faults-"))
    # About 0.45 kills per device step at the default rate; one long run, so state grows large.
    steps = args.steps or int(args.kills / (4 * 0.45 * args.kill_rate / 0.65)) + 20
    started = time.monotonic()
    total, runs, bad = 0, 0, False
    try:
        while total < args.kills:
            runs += 1
            (root / f"sqld{runs}").mkdir()
            server = SqldServer(sqld_binary(), root / f"sqld{runs}")  # each run starts from an empty server
            server.start()
            try:
                fig = run_faults(root / f"run{runs}", server, seed=args.seed + runs, steps=steps,
                                 kill_rate=args.kill_rate, budget=3600)
            finally:
                server.stop()
            total += fig["kills"]
            print(f"== run {runs} (seed {args.seed + runs}, {steps} steps per device)")
            print_figures(fig)
            if args.json:
                print(json.dumps(fig, default=str))
            bad = bad or bool(fig["lost"] or fig["torn"] or not fig["identical"] or fig["duplicates"]
                              or fig["tracebacks"] or fig["odd_exit_codes"] or fig["hung"])
    finally:
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)
    print(f"== total: {total} kills in {runs} run(s), {time.monotonic() - started:.0f} s"
          + (f"; homes kept in {root}" if args.keep else ""))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
