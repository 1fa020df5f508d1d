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
    rng: random.Random = field(init=False)
    acked: dict[str, tuple[str, str]] = field(default_factory=dict)  # hot id → (kind, text)
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

    def run(self, argv: list[str], kill: bool = True) -> Any:
        after = self.rng.uniform(0, self.kill_ms / 1000) if kill else None
        r = self.zygote.run(argv, self.env, after)
        self.commands += 1
        self.kills += r.killed
        return r

    def hot(self, n: int) -> None:
        kind = self.rng.choice(["lesson", "task", "event"])
        text = f"storm {kind} {n} keep the backups verified"
        argv = ["hot", kind, text, "--json"] + (["--importance", "0.9"] if kind == "lesson" else [])
        r = self.run(argv)
        if r.code == 0:
            self.acked[r.json()["id"]] = (kind, text)

    def step(self, n: int) -> None:
        roll = self.rng.random()
        if roll < 0.40:
            self.hot(n)
        elif roll < 0.55:
            self.run(["store", f"storm fact {n}: the deploy of build {n} went fine", "--category", "notes"])
        elif roll < 0.62:
            self.run(["tree", "add", f"storm/k{n % 3}", f"d{n}"])
        elif roll < 0.72:
            self.run(["consolidate", "--mode", "quick"])
        elif roll < 0.92:
            self.run(["sync"])
        elif self.export.exists():
            self.run(["import", str(self.export)])
        if n % 10 == 9:  # a clean one every 10 rounds
            self.run(["sync"] if self.rng.random() < 0.5 else ["consolidate", "--mode", "quick"], kill=False)
        if n == 5:
            self.run(["export", str(self.export)], kill=False)

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


def storm(root: Path, url: str, rounds: int, seed: int = 1) -> dict[str, Any]:
    s = Storm(root, url, seed)
    s.run(["init"], kill=False)
    for n in range(rounds):
        s.step(n)
    return s.finish()


def main() -> int:
    import argparse
    import shutil

    from sqld_server import SqldServer, sqld_binary

    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--keep", action="store_true")
    args = ap.parse_args()
    root = Path(tempfile.mkdtemp(prefix="memoryd-hotstorm-"))
    server = SqldServer(sqld_binary(), root / "sqld")
    (root / "sqld").mkdir()
    server.start()
    try:
        fig = storm(root / "dev", server.http_url, args.rounds, args.seed)
    finally:
        server.stop()
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)
    print(json.dumps(fig, indent=1, default=str))
    return 1 if fig["missing"] else 0


if __name__ == "__main__":
    sys.exit(main())
