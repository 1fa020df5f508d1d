"""The fault suite's workload: devices doing stores, hot and tree edits, forgets, consolidations,
syncs, daily-note ingests, restores and daemon runs through real `memoryd` commands, any of which
may be killed with SIGKILL at a random moment."""
from __future__ import annotations

import os
import random
import signal
import threading
import time
from pathlib import Path
from typing import Any

from faultlib import Ledger, Op, Run, Zygote, base_env

WORDS = ["deploy", "server", "tea", "alice", "bug", "python", "backup", "北京", "会议", "docs", "nginx", "port"]
CATEGORIES = ["notes", "people/ada", "ops/deploy"]
EARLY = 0.012  # kills this soon after the fork land in start-up (config, locks, imports already done)


class Device:
    """One MEMORYD_HOME (a device) with its own zygote; every command goes into the shared ledger."""

    def __init__(self, name: str, root: Path, url: str, ledger: Ledger, rng: random.Random,
                 kill_rate: float, note_date: str) -> None:
        self.name, self.ledger, self.rng, self.kill_rate = name, ledger, rng, kill_rate
        self.home = root / name
        self.workspace = root / f"{name}-ws"
        (self.workspace / "memory").mkdir(parents=True, exist_ok=True)
        self.env = base_env(self.home, url, self.workspace)
        self.zygote = Zygote(root / f"{name}-scratch", self.env)
        self.typical: dict[str, float] = {}  # seconds a command of each kind usually takes here
        self.daemon: tuple[int, Path] | None = None
        self.daemon_errs: list[str] = []
        self.n = 0
        self.note = self.workspace / "memory" / f"{note_date}.md"
        self.note_date = note_date
        self.tokens: list[str] = []

    # -- running commands ------------------------------------------------------------------
    def cli(self, kind: str, argv: list[str], target: Any = None, value: Any = None, kill: bool = True) -> Op:
        kill_after = None
        if kill and self.rng.random() < self.kill_rate:
            typical = self.typical.get(kind, 0.15)
            kill_after = self.rng.uniform(0, EARLY) if self.rng.random() < 0.15 else self.rng.uniform(0, typical * 1.3)
        daemon_kill = None
        if kill and kill_after is None and self.daemon is not None and self.rng.random() < 0.2:
            # the daemon dies instead, maybe in the middle of this very request
            delay = self.rng.uniform(0, self.typical.get(kind, 0.15) * 1.3)
            daemon_kill = threading.Timer(delay, os.kill, (self.daemon[0], signal.SIGKILL))
            daemon_kill.start()
        run = self.zygote.run(argv, self.env, kill_after)
        if daemon_kill is not None:
            daemon_kill.join()
            self.stop_daemon()  # reaps it (a zombie until then: its pid cannot be reused)
        if not run.killed and not run.hung:
            self.typical[kind] = 0.7 * self.typical.get(kind, run.seconds) + 0.3 * run.seconds
        return self.ledger.add(Op(self.name, kind, run, target, value))

    def settle_run(self, argv: list[str]) -> Run:
        """A command in the final round: never killed, recorded like any other."""
        return self.cli(argv[0], argv, kill=False).run

    def toggle_daemon(self) -> None:
        if self.daemon is None:
            self.daemon = self.zygote.start_bg(["daemon"], self.env)
            return
        self.stop_daemon()

    def stop_daemon(self) -> None:
        if self.daemon is None:
            return
        pid, err = self.daemon
        self.daemon = None
        code = self.zygote.kill_bg(pid)
        if code == -9:
            self.ledger.count_kill("daemon")
        text = err.read_text(encoding="utf-8", errors="replace") if err.exists() else ""
        if "Traceback" in text or code not in (-9, 0, 1):
            self.daemon_errs.append(f"daemon exit {code}: {text[-1500:]}")
        err.unlink(missing_ok=True)

    def close(self) -> None:
        self.stop_daemon()
        self.zygote.close()

    # -- the operations ----------------------------------------------------------------------
    def step(self) -> None:
        self.n += 1
        roll = self.rng.random()
        for upto, action in ((0.30, self.store), (0.46, self.hot), (0.51, self.tree), (0.56, self.forget),
                             (0.63, self.consolidate), (0.86, self.sync), (0.92, self.ingest)):
            if roll < upto:
                action()
                return
        self.toggle_daemon()

    def store(self) -> None:
        rng = self.rng
        text = f"{self.name}{self.n} fact: " + " ".join(rng.choices(WORDS, k=rng.randint(2, 8))) + " x" * rng.randint(0, 300)
        op = self.cli("store", ["store", text, "--category", rng.choice(CATEGORIES),
                                "--importance", f"{rng.uniform(0.02, 0.6):.3f}", "--json"], value=text)
        result = op.run.json() if op.acked else None
        op.target = result.get("id") if isinstance(result, dict) else None

    def hot(self) -> None:
        rng, d, n = self.rng, self.name, self.n
        kind = rng.choice(["identity", "profile", "project", "event", "task", "lesson"])
        k = rng.randint(0, 2)
        if kind in ("identity", "profile"):
            key = f"{d}_{kind[:2]}{k}"
            self.cli("hot", ["hot", kind, key, f"v{n}", "--json"], (kind, key), f"v{n}")
        elif kind == "project":
            name, value = f"{d}-proj{k % 2}", (f"desc {n}", rng.choice(["active", "paused"]))
            self.cli("hot", ["hot", "project", name, "--description", value[0], "--status", value[1], "--json"],
                     ("project", name), value)
        elif kind == "task":
            text, status = f"{d} task {k % 2}", rng.choice(["pending", "done", "blocked"])
            self.cli("hot", ["hot", "task", text, "--status", status, "--json"], ("task", text), status)
        elif kind == "event":
            self.cli("event", ["hot", "event", f"{d} event {n}", "--json"])
        else:
            text = f"{d} lesson {k}: check the backups twice"
            self.cli("lesson", ["hot", "lesson", text, "--importance", "0.9", "--json"], text)

    def tree(self) -> None:
        path = f"t-{self.name}/k{self.rng.randint(0, 2)}"
        if self.rng.random() < 0.6:
            self.cli("tree", ["tree", "add", path, f"d{self.n}", "--json"], ("tree", path), f"d{self.n}")
        else:
            self.cli("tree", ["tree", "remove", path, "--json"], ("tree", path), None)

    def forget(self) -> None:
        ids = self.ledger.acked_store_ids()
        if ids:
            mid = self.rng.choice(ids)
            self.cli("forget", ["forget", mid, "--json"], mid)

    def consolidate(self) -> None:
        self.cli("consolidate", ["consolidate", "--mode", self.rng.choice(["quick", "daily", "full"]), "--json"])

    def sync(self) -> None:
        self.cli("sync", ["sync", "--json"])

    def ingest(self) -> None:
        lines = []
        for i in range(self.rng.randint(1, 3)):
            token = f"{self.name}-note-{self.n}-{i}:"
            self.tokens.append(token)
            lines.append(f"- {token} the {self.rng.choice(WORDS)} job on host h{i} finished\n")
        head = "" if self.note.exists() else f"# {self.note_date}\n\n## Log\n"
        fd = os.open(self.note, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.write(fd, (head + "".join(lines)).encode("utf-8"))  # one write: the watcher never sees half a line
        finally:
            os.close(fd)
        self.cli("ingest", ["ingest-daily", "--date", self.note_date, "--json"], list(self.tokens))


class Restorer(Device):
    """A fourth device that only restores (killed often), syncs and reads its status."""

    def step(self) -> None:
        self.n += 1
        roll = self.rng.random()
        if roll < 0.45:
            self.cli("restore", ["restore", "--force", "--json"])
        elif roll < 0.9:
            self.sync()
        else:
            self.cli("status", ["status", "--json"])


def drive(devices: list[Device], steps: int, stop_at: float) -> list[BaseException]:
    """Every device takes `steps` steps in its own thread (devices race each other); errors returned."""
    errors: list[BaseException] = []

    def loop(dev: Device) -> None:
        try:
            for _ in range(steps):
                if time.monotonic() > stop_at:
                    return
                dev.step()
        except BaseException as exc:  # noqa: BLE001 - reported by the caller
            errors.append(exc)

    threads = [threading.Thread(target=loop, args=(d,), name=f"device-{d.name}") for d in devices]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return errors

