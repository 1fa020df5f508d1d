"""A kill -9 storm on hot state: one device on a real sqld running stores, hot lessons/tasks/events, tree
adds, quick consolidations, syncs and imports, each SIGKILLed after 0–300 ms, a clean sync or consolidation
every 10 rounds; then every hot item a command acknowledged (exit 0) must be in the final export or named
in evictions.jsonl (hot's limits). Used by tests/system/test_hot_storm.py; run alone to look further:

    .venv/bin/python tests/hotstorm.py [--rounds 200] [--seed 1] [--keep]
"""
from __future__ import annotations

import json
import random
import sys
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from faultlib import Zygote, base_env  # noqa: E402


@dataclass
class Storm:
    root: Path
    url: str
    seed: int = 1
    kill_ms: float = 300.0
    pad: int = 0  # characters added to each hot text: long ones bring hot to its 5 KB limit sooner
    hot_share: float = 0.40  # of the main stream's steps
    pull_kills: float = 0.7  # share of the second stream's commands killed
    rng: random.Random = field(init=False)
    acked: dict[str, tuple[str, str]] = field(default_factory=dict)  # hot id → (kind, text)
    lock: threading.Lock = field(default_factory=threading.Lock)
    kills: int = 0
    commands: int = 0

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)
        home, ws = self.root / "home", self.root / "ws"
        (ws / "memory").mkdir(parents=True, exist_ok=True)
        self.home = home
        self.env = base_env(home, self.url, ws)
        self.zygote = Zygote(self.root / "scratch", self.env)
        self.export = self.root / "seed-export.jsonl"

    typical: dict[str, float] = field(default_factory=dict)  # seconds a command of each kind takes here

    kill_share: float = 1.0  # of the main stream's commands sent a SIGKILL

    def kill_after(self, rng: random.Random, kind: str, share: float) -> float | None:
        """0–300 ms, within the time the command usually takes (most kills land mid-way, not after the end)."""
        if rng.random() >= share:
            return None
        return rng.uniform(0, min(self.kill_ms / 1000, 1.2 * self.typical.get(kind, self.kill_ms / 1000)))

    def run(self, argv: list[str], kill: bool = True, zygote: Zygote | None = None,
            rng: random.Random | None = None, share: float | None = None) -> Any:
        after = self.kill_after(rng or self.rng, argv[0], self.kill_share if share is None else share) if kill else None
        r = (zygote or self.zygote).run(argv, self.env, after)
        with self.lock:
            self.commands += 1
            self.kills += r.killed
            if r.code == 0:
                self.typical[argv[0]] = 0.7 * self.typical.get(argv[0], r.seconds) + 0.3 * r.seconds
        return r

    def hot(self, n: int) -> None:
        kind = self.rng.choice(["lesson", "task", "event"])
        text = f"storm {kind} {n} keep the backups verified" + " and the restores tested" * (self.pad // 24)
        argv = ["hot", kind, text, "--json"] + (["--importance", "0.9"] if kind == "lesson" else [])
        r = self.run(argv)
        if r.code == 0:
            self.acked[r.json()["id"]] = (kind, text)

    def step(self, n: int) -> None:
        roll = self.rng.random()
        if roll < self.hot_share:
            self.hot(n)
        else:
            self.other(n, 0.40 + 0.60 * (roll - self.hot_share) / (1 - self.hot_share))  # the held-out's mix
        if n % 10 == 9:  # a clean one every 10 rounds
            self.run(["sync"] if self.rng.random() < 0.5 else ["consolidate", "--mode", "quick"], kill=False)
        if n == 5:
            self.run(["export", str(self.export)], kill=False)

    def other(self, n: int, roll: float) -> None:
        if roll < 0.55:
            self.run(["store", f"storm fact {n}: the deploy of build {n} went fine", "--category", "notes"])
        elif roll < 0.62:
            self.run(["tree", "add", f"storm/k{n % 3}", f"d{n}"])
        elif roll < 0.72:
            self.run(["consolidate", "--mode", "quick"])
        elif roll < 0.92:
            self.run(["sync"])
        elif self.export.exists():
            self.run(["import", str(self.export)])

    def finish(self) -> dict[str, Any]:
        """A clean sync and export; what of the acknowledged hot items is neither there nor explained."""
        sync = self.run(["sync"], kill=False)
        out = self.root / "final.jsonl"
        self.run(["export", str(out)], kill=False)
        hot = next(json.loads(line)["data"] for line in out.read_text().splitlines()[1:]
                   if json.loads(line).get("type") == "hot")
        present = {i["id"] for i in hot["critical_lessons"]} | {
            i["id"] for k in ("events", "tasks", "projects") for i in hot["active_context"][k]}
        log = self.home / "agents" / "default" / "evictions.jsonl"
        rows = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
        explained = {r.get("id"): r for r in rows if r.get("tier") == "hot"}
        missing = {i: v for i, v in self.acked.items() if i not in present and i not in explained}
        evicted = {i: explained[i].get("why") for i in self.acked if i not in present and i in explained}
        self.zygote.close()
        return {"acked": len(self.acked), "present": len(set(self.acked) & present), "evicted": evicted,
                "missing": missing, "kills": self.kills, "commands": self.commands, "final_sync": sync.code}


def _puller(s: Storm, stop: threading.Event, seed: int) -> None:
    """Syncs and quick consolidations in a second process stream, killed like the rest, while hot is written."""
    rng = random.Random(seed + 1000)
    zygote = Zygote(s.root / "scratch-pull", s.env)
    try:
        while not stop.is_set():
            argv = ["sync"] if rng.random() < 0.6 else ["consolidate", "--mode", "quick"]
            s.run(argv, True, zygote, rng, s.pull_kills)
    finally:
        zygote.close()


def storm(root: Path, url: str, rounds: int, seed: int = 1, concurrent: bool = False,
          pad: int = 0, **mix: float) -> dict[str, Any]:
    s = Storm(root, url, seed, pad=pad, **mix)
    s.run(["init"], kill=False)
    stop = threading.Event()
    puller = threading.Thread(target=_puller, args=(s, stop, seed), daemon=True) if concurrent else None
    if puller is not None:
        puller.start()
    try:
        for n in range(rounds):
            s.step(n)
    finally:
        stop.set()
        if puller is not None:
            puller.join(60)
    return s.finish()


def main() -> int:
    import argparse
    import shutil

    from sqld_server import SqldServer, sqld_binary

    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--pad", type=int, default=0, help="characters added to each hot text")
    ap.add_argument("--concurrent", action="store_true", help="syncs and consolidations in a second stream")
    args = ap.parse_args()
    root = Path(tempfile.mkdtemp(prefix="memoryd-hotstorm-"))
    server = SqldServer(sqld_binary(), root / "sqld")
    (root / "sqld").mkdir()
    server.start()
    try:
        fig = storm(root / "dev", server.http_url, args.rounds, args.seed, args.concurrent, args.pad)
    finally:
        server.stop()
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)
    print(json.dumps(fig, indent=1, default=str))
    return 1 if fig["missing"] else 0


if __name__ == "__main__":
    sys.exit(main())
