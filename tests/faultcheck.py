"""The fault suite's run and its figures: after the chaos, a final sync round, then what was
acknowledged, what of it was lost, torn files, whether the devices are identical, and duplicates."""
from __future__ import annotations

import json
import random
import sqlite3
import time
from pathlib import Path
from typing import Any

from faultlib import AGENT, Ledger, Op, Outages
from faultwork import Device, Restorer, drive

ABSENT = None
MCP_NOTE = "no MCP server on this branch ('memoryd mcp' is not a command): MCP kills skipped"


def mcp_note() -> str | None:
    from memoryd.cli.main import COMMANDS

    return None if "mcp" in COMMANDS else MCP_NOTE


def make_devices(root: Path, url: str, ledger: Ledger, seed: int, kill_rate: float) -> list[Device]:
    """Three working devices and a restorer sharing one agent key (a, the first, made it)."""
    from memoryd.sync.crypto.keys import ensure_key, import_key
    from memoryd.tiers.memory.agent import AgentMemory
    from memoryd.tiers.base.config import load_config

    date = time.strftime("%Y-%m-%d")
    devices: list[Device] = []
    key = None
    for i, name in enumerate("abcr"):
        cls = Restorer if name == "r" else Device
        dev = cls(name, root, url, ledger, random.Random(seed * 10 + i), kill_rate, date)
        config = load_config({"MEMORYD_HOME": str(dev.home), "MEMORYD_DB_URL": url})
        if key is None:
            key = ensure_key(config, AGENT)
        else:
            import_key(config, AGENT, key)
        if name != "r":
            AgentMemory(config, AGENT).init()
        dev.config = config  # type: ignore[attr-defined]
        devices.append(dev)
    return devices


def settle(devices: list[Device], rounds: int = 8) -> int:
    """Stop daemons, finish any interrupted restore, then sync round-robin until a whole round moved nothing."""
    for dev in devices:
        dev.stop_daemon()
    for dev in devices:
        if isinstance(dev, Restorer):
            run = dev.settle_run(["restore", "--force", "--json"])
            assert run.code == 0, run.err
    for n in range(1, rounds + 1):
        quiet = True
        for dev in devices:
            run = dev.settle_run(["sync", "--json"])
            result = run.json() or {}
            cold = result.get("cold") or {}
            if run.code != 0 or result.get("status") != "current" or cold.get("uploaded") or \
                    (cold.get("pulled") or {}).get("rows"):
                quiet = False
        if quiet:
            return n
    return -1


# -- what each device holds ---------------------------------------------------------------------
def snapshot(dev: Device) -> dict[str, Any]:
    from memoryd.tiers.cold.source import open_index
    from memoryd.tiers.memory.agent import AgentMemory

    config = dev.config  # type: ignore[attr-defined]
    state = AgentMemory(config, AGENT).read_state()
    with open_index(config) as ix:
        cold = {e["id"]: e for e in ix.iter_entries(AGENT)}
        dup = ix.read("SELECT COUNT(*) FROM (SELECT 1 FROM memories WHERE agent_id = ? GROUP BY text, category "
                      "HAVING COUNT(*) > 1)", [AGENT])[0][0]
    return {"state": state, "cold": cold, "dup": dup}


def _index_view(cold: dict[str, Any]) -> dict[str, tuple]:
    return {i: (e["text"], e["category"], e["importance"], e["created_at"], json.dumps(e["metadata"], sort_keys=True))
            for i, e in cold.items()}


DERIVED = ("score", "tier")  # recomputed from importance, age and accesses whenever a device rescores


def _canonical(state: dict[str, Any]) -> dict[str, Any]:
    """Warm is a set of entries (its order on disk is the last local write's eviction order), and an
    entry's score and tier are a cache each device recomputes when it rescores (merged by max, not synced)."""
    entries = [{k: v for k, v in e.items() if k not in DERIVED} for e in state["warm"]["entries"]]
    return dict(state, warm=dict(state["warm"], entries=sorted(entries, key=lambda e: e["id"])))


def _differences(name_a: str, a: dict[str, Any], name_b: str, b: dict[str, Any]) -> list[str]:
    """What two devices hold differently: items of the critical state (by sync key) and index rows."""
    from memoryd.sync.merge.replica import explode

    out = []
    if _canonical(a["state"]) != _canonical(b["state"]):
        ea, eb = explode(_canonical(a["state"])), explode(_canonical(b["state"]))
        out += [f"{name_a}/{name_b} {k}: {ea.get(k)!r:.150} vs {eb.get(k)!r:.150}"
                for k in sorted(set(ea) | set(eb)) if ea.get(k) != eb.get(k)] or [f"{name_a}/{name_b}: order"]
    ia, ib = _index_view(a["cold"]), _index_view(b["cold"])
    out += [f"{name_a}/{name_b} index {k}: {ia.get(k)!r:.150} vs {ib.get(k)!r:.150}"
            for k in sorted(set(ia) | set(ib)) if ia.get(k) != ib.get(k)]
    return out


def _texts(snap: dict[str, Any]) -> list[str]:
    return [e["text"] for e in snap["state"]["warm"]["entries"]] + [e["text"] for e in snap["cold"].values()]


def _held_ids(snap: dict[str, Any]) -> set[str]:
    return {e["id"] for e in snap["state"]["warm"]["entries"]} | set(snap["cold"])


def _register(state: dict[str, Any], key: tuple[str, str]) -> Any:
    kind, name = key
    hot = state["hot"]
    if kind == "identity":
        return hot["identity"].get(name)
    if kind == "profile":
        return hot["owner_profile"].get(name)
    if kind == "project":
        p = next((p for p in hot["active_context"]["projects"] if p["name"] == name), None)
        return None if p is None else (p["description"], p["status"])
    if kind == "task":
        t = next((t for t in hot["active_context"]["tasks"] if t["text"] == name), None)
        return None if t is None else t["status"]
    node = state["tree"]["nodes"].get(name)
    return None if node is None else node[0]


# -- the figures ----------------------------------------------------------------------------------
def lost_ops(ledger: Ledger, snaps: dict[str, dict[str, Any]], cloud_puts: dict[str, int], key: bytes) -> list[str]:
    """Acknowledged operations whose effect is missing from some device (or, for forgets, still anywhere)."""
    from memoryd.sync.cloudlog import ref_of

    ops = ledger.ops
    forgot_maybe = {o.target for o in ops if o.kind == "forget" and not o.refused}
    lost: list[str] = []
    for name, snap in snaps.items():
        held, texts = _held_ids(snap), "\n".join(_texts(snap))
        sources = {les.get("source_id") for les in snap["state"]["hot"]["critical_lessons"]}
        for o in ops:
            if o.kind == "store" and o.acked and o.target not in held and o.target not in forgot_maybe:
                lost.append(f"{name}: store {o.target} ({o.device}) missing")
            elif o.kind == "forget" and o.acked and (o.target in held or o.target in sources):
                lost.append(f"{name}: forgotten {o.target} is back")
            elif o.kind == "ingest" and o.acked:
                lost += [f"{name}: note line {t} missing" for t in o.target if t not in texts]
            elif o.kind == "lesson" and o.acked and not any(x["text"] == o.target for x in
                                                           snap["state"]["hot"]["critical_lessons"]):
                lost.append(f"{name}: lesson {o.target!r} missing")
        lost += _lost_registers(ops, snap["state"], name)
        lost += _lost_events(ops, snap["state"], name)
    lost += [f"cloud log: forgotten {o.target} still stored" for o in ops if o.kind == "forget" and o.acked
             and cloud_puts.get(ref_of(key, AGENT, o.target))]
    return sorted(set(lost))


def _lost_registers(ops: list[Op], state: dict[str, Any], name: str) -> list[str]:
    """A value set by an acknowledged command must be the final one, unless a later unacknowledged
    (killed or failed) command of the same key may have replaced it. Each key belongs to one device."""
    history: dict[tuple[str, str], list[Op]] = {}
    for o in ops:
        if isinstance(o.target, tuple) and not o.refused:
            history.setdefault(o.target, []).append(o)
    lost = []
    for key, seq in history.items():
        last = max((i for i, o in enumerate(seq) if o.acked), default=None)
        allowed = [ABSENT] if last is None else [seq[last].value]
        allowed += [o.value for o in seq[(last or 0):] if o.maybe]
        final = _register(state, key)
        if final not in allowed:
            story = ", ".join(f"{o.value!r}:{'killed' if o.run.killed else o.run.code}" for o in seq[-6:])
            lost.append(f"{name}: {key[0]} {key[1]} is {final!r}, acknowledged {allowed[0]!r} (last commands: {story})")
    return lost


def _lost_events(ops: list[Op], state: dict[str, Any], name: str) -> list[str]:
    """Hot keeps the 10 newest events: an acknowledged event newer than the oldest kept one must be kept."""
    kept = state["hot"]["active_context"]["events"]
    ids = {e["id"] for e in kept}
    floor = min(((e["timestamp"], e["id"]) for e in kept), default=(0, "")) if len(kept) >= 10 else (0, "")
    out = []
    for o in ops:
        item = o.run.json() if o.kind == "event" and o.acked else None
        if isinstance(item, dict) and item.get("id") not in ids and (item["timestamp"], item["id"]) > floor:
            out.append(f"{name}: event {item['text']!r} missing")
    return out


def torn_files(devices: list[Device]) -> tuple[list[str], int]:
    """JSON state files that do not parse and local indexes failing integrity_check; and torn log lines."""
    torn, torn_lines = [], 0
    for dev in devices:
        for path in dev.home.rglob("*"):
            if not path.is_file():
                continue
            if path.name.endswith((".json", ".json.bak")) or ".json.bak" in path.name:
                try:
                    json.loads(path.read_bytes().decode("utf-8"))
                except ValueError:
                    torn.append(str(path))
            elif path.name.endswith(".jsonl"):
                for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
                    try:
                        json.loads(line)
                    except ValueError:
                        torn_lines += 1
            elif ".corrupt-" in path.name:
                torn.append(f"{path} (quarantined at start)")
        db = dev.home / "cold.db"
        if db.exists():
            conn = sqlite3.connect(db)
            try:
                if conn.execute("PRAGMA integrity_check").fetchone()[0] != "ok":
                    torn.append(str(db))
            finally:
                conn.close()
    return torn, torn_lines


def cloud_log(url: str) -> tuple[dict[str, int], int]:
    """Put rows per ref in the cloud log, and how many refs have more than one."""
    from memoryd.sync.remote.db import connect
    from memoryd.tiers.base.config import Config

    db = connect(Config(home=Path("/nonexistent"), db_url=url))
    try:
        rows = db.execute("SELECT ref, COUNT(*) FROM memory_log WHERE agent_id = ? AND kind = 'put' GROUP BY ref",
                          [AGENT]).rows
    finally:
        db.close()
    puts = {str(r[0]): int(r[1]) for r in rows}
    return puts, sum(1 for n in puts.values() if n > 1)


def figures(devices: list[Device], ledger: Ledger, url: str, rounds: int) -> dict[str, Any]:
    from memoryd.sync.crypto.keys import read_key_file

    key = read_key_file(devices[0].config.key_path(AGENT))  # type: ignore[attr-defined]
    snaps = {d.name: snapshot(d) for d in devices}
    puts, cloud_dups = cloud_log(url)
    first_name, first = next(iter(snaps.items()))
    differences = [d for name, s in snaps.items() for d in _differences(first_name, first, name, s)]
    identical = not differences
    warm_and_cold = {n: len({e["id"] for e in s["state"]["warm"]["entries"]} & set(s["cold"])) for n, s in snaps.items()}
    warm_dups = {n: len(s["state"]["warm"]["entries"]) - len({e["id"] for e in s["state"]["warm"]["entries"]})
                 for n, s in snaps.items()}
    torn, torn_lines = torn_files(devices)
    lost = lost_ops(ledger, snaps, puts, key)
    runs = [o.run for o in ledger.ops]
    odd = [f"{' '.join(r.argv[:2])} → {r.code}" for r in runs if not r.killed and r.code not in (0, 1, 2)]
    tracebacks = [r.err[-800:] for r in runs if "Traceback" in r.err]
    tracebacks += [e for d in devices for e in d.daemon_errs]
    codes: dict[str, int] = {}
    failures: dict[str, int] = {}  # why commands that ran to their end failed (exit 1) or refused (exit 2)
    for o in ledger.ops:
        label = f"{o.kind}:{'killed' if o.run.killed else o.run.code}"
        codes[label] = codes.get(label, 0) + 1
        if o.run.code in (1, 2):
            why = f"{label} {_reason(o.run)}"
            failures[why] = failures.get(why, 0) + 1
    return {
        "kills": sum(ledger.kills.values()), "kills_by_kind": dict(sorted(ledger.kills.items())),
        "operations": len(ledger.ops), "acknowledged": sum(1 for o in ledger.ops if o.acked),
        "lost": len(lost), "lost_examples": lost[:10],
        "torn": len(torn), "torn_examples": torn[:5], "torn_log_lines": torn_lines,
        "identical": identical, "differences": differences[:10], "settle_rounds": rounds,
        "duplicates": sum(s["dup"] for s in snaps.values()) + cloud_dups + sum(warm_dups.values()),
        "in_warm_and_index": sum(warm_and_cold.values()),
        "tracebacks": len(tracebacks), "traceback_examples": tracebacks[:3],
        "odd_exit_codes": len(odd), "odd_examples": odd[:5], "hung": sum(1 for r in runs if r.hung),
        "memories": {n: {"warm": len(s["state"]["warm"]["entries"]), "index": len(s["cold"])} for n, s in snaps.items()},
        "cloud_log_puts": len(puts), "exit_codes": dict(sorted(codes.items())),
        "failures": dict(sorted(failures.items(), key=lambda kv: -kv[1])),
    }


def _reason(run: Any) -> str:
    """A failure's message with ids and numbers blanked, so alike failures count together."""
    import re

    data = run.json()
    msg = (data.get("error") or {}).get("message", "") if isinstance(data, dict) else ""
    msg = msg or (run.err.strip().splitlines() or [""])[-1]
    return re.sub(r"[0-9a-f]{16}|\d+(\.\d+)?", "#", msg)[:120]


def run_faults(root: Path, server: Any, *, seed: int, steps: int, kill_rate: float, budget: float,
               outage_every: tuple[int, int] = (60, 150)) -> dict[str, Any]:
    """The whole run: devices race for `steps` steps each (or `budget` seconds) with outages, then settle."""
    ledger = Ledger()
    started = time.monotonic()
    devices = make_devices(root, server.http_url, ledger, seed, kill_rate)
    outages = Outages(server, random.Random(seed), ledger, outage_every)
    try:
        outages.start()
        errors = drive(devices, steps, started + budget)
        outages.stop()
        if errors:
            raise errors[0]
        chaos = time.monotonic() - started
        rounds = settle(devices)
        out = figures(devices, ledger, server.http_url, rounds)
    finally:
        outages.stop()
        for dev in devices:
            dev.close()
    out.update(outages=outages.count, chaos_seconds=round(chaos, 1), seconds=round(time.monotonic() - started, 1))
    note = mcp_note()
    if note:
        out["note"] = note
    return out


def print_figures(fig: dict[str, Any]) -> None:
    if fig.get("note"):
        print(f"note: {fig['note']}")
    print(f"kills: {fig['kills']} {fig['kills_by_kind']}; server outages: {fig['outages']}; "
          f"{fig['operations']} commands in {fig['chaos_seconds']} s, settled in {fig['settle_rounds']} round(s)")
    print(f"operations acknowledged: {fig['acknowledged']}")
    print(f"acknowledged operations lost: {fig['lost']} {fig['lost_examples']}")
    print(f"torn files: {fig['torn']} {fig['torn_examples']} (torn log lines: {fig['torn_log_lines']})")
    print(f"devices identical: {'yes' if fig['identical'] else 'NO'} {fig['differences']}")
    print(f"duplicates: {fig['duplicates']} (memories in both warm and the index: {fig['in_warm_and_index']})")
    print(f"tracebacks: {fig['tracebacks']}; exit codes outside 0/1/2: {fig['odd_exit_codes']}; hung: {fig['hung']}")
    print(f"memories per device: {fig['memories']}; cloud log puts: {fig['cloud_log_puts']}")
    print("commands that failed (1) or were refused (2), by reason:")
    for why, n in list(fig["failures"].items())[:12]:
        print(f"  {n:5d}  {why}")
