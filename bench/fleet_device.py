"""One worker of the fleet benchmark: a process that plays some devices, one at a time, on command.

Each device is its own MEMORYD_HOME with its own key file and talks to the node (primary or replica) it was
given, through the public sync API (push_now, pull_now, restore) with a fresh connection per sync, as
`memoryd sync` does. Devices share nothing but the server; the worker only saves process start-up.
Commands arrive on a pipe as (name, payload); each answers with one picklable result.
"""
from __future__ import annotations

import hashlib
import random
import re
import resource
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

AGENT_FMT = "fleet{:04d}"
TICKET = re.compile(r"\bticket (\d+)\b")  # every stored fact carries a unique ticket number
PEOPLE = ["Ada", "Bruno", "Chen", "Dara", "Emeka", "Farah", "Goran", "Hana", "Ivo", "Juno"]
SERVICES = ["billing", "search", "gateway", "ledger", "mailer", "scheduler", "uploads", "metrics"]
ACTIONS = ["a certificate renewal", "a schema migration", "a memory bump", "a dependency upgrade",
           "a log rotation fix", "a failover drill"]
DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"]


@dataclass(frozen=True)
class DeviceSpec:
    agent: int
    index: int
    url: str
    home: str

    @property
    def agent_id(self) -> str:
        return AGENT_FMT.format(self.agent)

    @property
    def name(self) -> str:
        return f"{self.agent_id}/d{self.index}"


def config_of(spec: DeviceSpec) -> Any:
    from memoryd.tiers.base.config import load_config

    # Keyword retrieval: hybrid would embed every row archived to cold, which is not what this measures.
    return load_config({"MEMORYD_HOME": spec.home, "MEMORYD_DB_URL": spec.url, "MEMORYD_RETRIEVAL_MODE": "keyword"})


def memory(config: Any, agent_id: str) -> Any:
    from memoryd.tiers.cold.source import LazyIndex
    from memoryd.tiers.memory.agent import AgentMemory

    return AgentMemory(config, agent_id, archive=LazyIndex(config))


def fact(rng: random.Random, ticket: int) -> tuple[str, str]:
    """A small, concrete fact (distinct words and a unique number, so no two restate each other)."""
    who, svc = rng.choice(PEOPLE), rng.choice(SERVICES)
    text = (f"{who} says ticket {ticket}: the {svc} service on host h{ticket % 97} needs "
            f"{rng.choice(ACTIONS)} before {rng.choice(DAYS)}")
    return text, f"ops/{svc}"


def seed(spec: DeviceSpec, ticket0: int) -> dict[str, Any]:
    """The agent's first device: a key, a small memory (identity, a project, two facts), the first push."""
    from memoryd.sync.critical import push_now
    from memoryd.sync.crypto.keys import ensure_key
    from memoryd.tiers.memory import hot

    config = config_of(spec)
    key = ensure_key(config, spec.agent_id)
    mem = memory(config, spec.agent_id)
    mem.init()

    def first(state: dict, now: float) -> None:
        hot.set_identity(state["hot"], "name", f"Agent {spec.agent}")
        hot.upsert_project(state["hot"], "fleet", "the fleet benchmark's project", "active", now)

    mem.change(first, "bench")
    rng = random.Random(spec.agent)
    tickets = []
    for k in range(2):
        text, category = fact(rng, ticket0 + k)
        mem.store(text, category)
        tickets.append(ticket0 + k)
    result = push_now(config, spec.agent_id)
    return {"key": key.hex(), "tickets": tickets, "status": result["status"]}


def restore_device(spec: DeviceSpec, key_hex: str) -> dict[str, Any]:
    """A new device of the agent restores from its node with the agent key, as a restore with a key file does."""
    from memoryd.sync.restore import restore

    t0 = time.perf_counter()
    restore(config_of(spec), spec.agent_id, key=bytes.fromhex(key_hex))
    return {"ms": 1000 * (time.perf_counter() - t0)}


def _sealed_change(config: Any, agent_id: str, before: dict, after: dict) -> int:
    """Sealed bytes of what a conversation changed: the items that differ (removed ones as null), as one
    envelope under the agent's key (compressed and encrypted as a push seals its state)."""
    from memoryd.sync.crypto.keys import read_key_file
    from memoryd.sync.crypto.seal import seal_text
    from memoryd.sync.merge.replica import explode
    from memoryd.tiers.base.atomic import dumps

    old, new = explode(before), explode(after)
    change = {k: v for k, v in new.items() if old.get(k) != v}
    change.update({k: None for k in old if k not in new})
    key = read_key_file(config.key_path(agent_id))
    return len(seal_text(key, dumps(change), agent_id=agent_id, kind="fleet-change", version=0))


def conversation(spec: DeviceSpec, tickets: list[int], rng: random.Random) -> dict[str, Any]:
    """A few facts and a hot event, then a push (latency, bytes, conflicts) and a pull."""
    from memoryd.sync.critical import pull_now, push_now
    from memoryd.tiers.memory import hot

    cpu0 = time.process_time()
    config = config_of(spec)
    mem = memory(config, spec.agent_id)
    before = mem.read_state()
    for ticket in tickets:
        mem.store(*fact(rng, ticket))
    mem.change(lambda s, now: hot.add_event(s["hot"], f"conversation ticket {tickets[0]} ended", now), "bench")
    change = _sealed_change(config, spec.agent_id, before, mem.read_state())
    t0 = time.perf_counter()
    pushed = push_now(config, spec.agent_id)
    t1 = time.perf_counter()
    pulled = pull_now(config, spec.agent_id)
    t2 = time.perf_counter()
    return {"push_ms": 1000 * (t1 - t0), "pull_ms": 1000 * (t2 - t1), "push_status": pushed["status"],
            "pull_status": pulled["status"], "push_bytes": pushed["bytes_sent"], "pull_bytes": pulled["bytes_sent"],
            "conflicts": pushed["conflicts"] + pulled["conflicts"], "change_bytes": change,
            "cpu_ms": 1000 * (time.process_time() - cpu0), "tickets": tickets}


def digest(spec: DeviceSpec) -> tuple[str, list[int]]:
    """(hash of hot, warm, tree and the cold ids, every ticket the device holds in warm or cold)."""
    from memoryd.tiers.base.atomic import dumps
    from memoryd.tiers.cold.source import open_index

    config = config_of(spec)
    state = memory(config, spec.agent_id).read_state()
    with open_index(config) as ix:
        cold = sorted((e["id"], e["text"]) for e in ix.iter_entries(spec.agent_id))
    texts = [e["text"] for e in state["warm"]["entries"]] + [text for _, text in cold]
    h = hashlib.sha256(dumps({"hot": state["hot"], "warm": state["warm"], "tree": state["tree"]}))
    h.update(dumps([i for i, _ in cold]))
    return h.hexdigest(), sorted({int(m) for t in texts for m in TICKET.findall(t)})


def pull_digest(spec: DeviceSpec) -> dict[str, Any]:
    from memoryd.sync.critical import pull_now

    t0 = time.perf_counter()
    status = pull_now(config_of(spec), spec.agent_id)["status"]
    ms = 1000 * (time.perf_counter() - t0)
    h, tickets = digest(spec)
    return {"status": status, "ms": ms, "digest": h, "tickets": tickets}


def pull_round(specs: list[DeviceSpec]) -> list[dict[str, Any]]:
    """Each device pulls, one after another, then each one's digest is taken. `done`: when its pull ended
    (time.monotonic, one clock for every process of the machine). The digests come after every pull: they are
    the bench's look at the devices, not part of converging, and would otherwise delay the pulls after them."""
    from memoryd.sync.critical import pull_now

    pulled = []
    for spec in specs:
        t0, cpu0 = time.perf_counter(), time.process_time()
        status = pull_now(config_of(spec), spec.agent_id)["status"]
        pulled.append((spec, status, 1000 * (time.perf_counter() - t0), 1000 * (time.process_time() - cpu0),
                       time.monotonic()))
    out = []
    for spec, status, ms, cpu_ms, done in pulled:
        h, tickets = digest(spec)
        out.append({"status": status, "ms": ms, "cpu_ms": cpu_ms, "done": done, "digest": h, "tickets": tickets,
                    "device": spec.name, "agent": spec.agent})
    return out


def burst(specs: list[DeviceSpec], plan: dict[str, list[list[int]]], deadline: float, seed_: int) -> list[dict]:
    """Every device's conversations, round by round in a shuffled order, until done or past the deadline."""
    rng = random.Random(seed_)
    out: list[dict] = []
    rounds = max((len(v) for v in plan.values()), default=0)
    for r in range(rounds):
        order = [s for s in specs if r < len(plan[s.name])]
        rng.shuffle(order)
        for spec in order:
            if time.time() > deadline:
                return out
            out.append(dict(conversation(spec, plan[spec.name][r], rng), device=spec.name, agent=spec.agent))
    return out


def serve(conn: Any) -> None:
    """The worker's loop: run each command on its devices, answer, until told to stop."""
    handlers = {
        "seed": lambda p: [dict(seed(s, t), device=s.name, agent=s.agent) for s, t in p],
        "restore": lambda p: [dict(restore_device(s, k), device=s.name, agent=s.agent) for s, k in p],
        "burst": lambda p: burst(p["specs"], p["plan"], p["deadline"], p["seed"]),
        "pull": pull_round,
        "usage": lambda p: {"cpu_s": time.process_time(),
                            "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024},
    }
    while True:
        name, payload = conn.recv()
        if name == "stop":
            conn.send(None)
            return
        try:
            conn.send(("ok", handlers[name](payload)))
        except Exception as exc:  # noqa: BLE001 - reported to the bench, which stops with it
            import traceback

            conn.send(("error", f"{type(exc).__name__}: {exc}\n{traceback.format_exc()[-2000:]}"))


def main_of_worker(conn: Any, paths: list[str]) -> None:
    """Process entry (spawned): the bench dir on sys.path, then serve."""
    import sys

    sys.path[:0] = paths
    serve(conn)


def homes(root: Path, agent: int, index: int) -> str:
    return str(root / "devices" / f"a{agent:04d}" / f"d{index}")
