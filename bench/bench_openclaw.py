"""Benchmark: `openclaw sync` over a 10,000-event session store, an incremental sync after 10 new events,
and conversation distillation per turn — beside a plain SQLite read of the same rows (baseline)."""
from __future__ import annotations

import json
import os
import shutil
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

TEMPLATE = ROOT / "tests" / "fixtures" / "openclaw" / "state" / "agents" / "main" / "agent" / "openclaw-agent.sqlite"
# 50 x 200 = 10,000 events; BENCH_OPENCLAW_SESSIONS makes a small store (the smoke test runs the bench that way)
SESSIONS, PER_SESSION = int(os.environ.get("BENCH_OPENCLAW_SESSIONS", "50")), 200


def build_store(db: Path) -> int:
    """A store with OpenClaw's own transcript_events table (DDL from the real fixture), 10,000 events."""
    from conversation_gen import generate

    shutil.copyfile(TEMPLATE, db)  # OpenClaw's own schema; this SQLite cannot CREATE it (octet_length())
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA ignore_check_constraints = ON")  # the CHECKs use octet_length(): newer SQLite
    with conn:
        conn.execute("DELETE FROM transcript_events")
    n = 0
    with conn:
        for s in range(SESSIONS):
            events = generate(300, seed=s).events[:PER_SESSION]
            for seq, ev in enumerate(events):
                if seq and seq % 90 == 0:
                    ev = {"type": "reset", "reason": "new"}
                raw = json.dumps(ev, ensure_ascii=False)
                conn.execute("INSERT INTO transcript_events (session_id, seq, event_json, created_at, event_utf8_bytes) "
                             "VALUES (?, ?, ?, ?, ?)", (f"session-{s:03d}", seq, raw, 1_795_000_000_000 + seq, len(raw)))
                n += 1
    conn.close()
    return n


def baseline(db: Path) -> float:
    t = time.perf_counter()
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    rows = [json.loads(r[0]) for r in conn.execute("SELECT event_json FROM transcript_events ORDER BY session_id, seq")]
    conn.close()
    assert len(rows) == SESSIONS * PER_SESSION
    return time.perf_counter() - t


def sync_once() -> tuple[float, dict]:
    from memoryd.daemon.api import in_process
    from memoryd.tiers.base.config import load_config

    t = time.perf_counter()
    report = in_process(load_config()).call("openclaw_sync", {"close_open": True})
    return time.perf_counter() - t, report["agents"][0]


def append(db: Path, n: int) -> None:
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA ignore_check_constraints = ON")
    sid = f"session-{min(7, SESSIONS - 1):03d}"
    top = conn.execute("SELECT MAX(seq) FROM transcript_events WHERE session_id = ?", (sid,)).fetchone()[0]
    tag = top  # distinct texts per call
    with conn:
        for i in range(1, n + 1):
            ev = {"type": "message", "message": {"role": "user" if i % 2 else "assistant",
                                                 "content": f"Decision: item {tag}-{i} goes to the backlog review."}}
            raw = json.dumps(ev)
            conn.execute("INSERT INTO transcript_events (session_id, seq, event_json, created_at, event_utf8_bytes) "
                         "VALUES (?, ?, ?, ?, ?)", (sid, top + i, raw, 1_796_000_000_000 + i, len(raw)))
    conn.close()


def distill_per_turn() -> tuple[float, float]:
    """µs per turn: rule distillation alone, and a whole segment (cold entries + warm + hot) on a fresh agent."""
    from conversation_gen import generate
    from memoryd.tiers.cold.source import open_index
    from memoryd.tiers.memory.agent import AgentMemory
    from memoryd.tiers.base.config import load_config
    from memoryd.tiers.ingest.conversation import distill_segment, rule_facts
    from memoryd.tiers.ingest.openclaw.events import EventParser, Parsed

    p, out = EventParser("bench"), Parsed()
    for i, e in enumerate(generate(200, seed=99).events):
        p.feed(e, i, 0.0, out)
    turns = out.turns
    t = time.perf_counter()
    for _ in range(20):
        rule_facts(turns)
    rule = (time.perf_counter() - t) / (20 * len(turns)) * 1e6
    config = load_config()
    archive = open_index(config)
    try:
        mem = AgentMemory(config, "distill-bench", archive=archive)
        t = time.perf_counter()
        distill_segment(mem, turns)
        whole = (time.perf_counter() - t) / len(turns) * 1e6
    finally:
        archive.close()
    return rule, whole


def main() -> None:
    tmp = Path(tempfile.mkdtemp(prefix="bench-openclaw-"))
    try:
        state = tmp / "openclaw"
        db = state / "agents" / "main" / "agent" / "openclaw-agent.sqlite"
        db.parent.mkdir(parents=True)
        os.environ.update({"MEMORYD_HOME": str(tmp / "home"), "OPENCLAW_STATE_DIR": str(state)})
        os.environ.pop("MEMORYD_WORKSPACE", None)
        os.environ.pop("MEMORYD_SESSIONS_DIR", None)
        events = build_store(db)
        base = baseline(db)
        full, report = sync_once()
        noop, _ = sync_once()
        append(db, 10)
        incr, inc_report = sync_once()
        append(db, 100)
        incr100, _ = sync_once()
        rule_us, whole_us = distill_per_turn()
        from memoryd.tiers.base.config import load_config

        mode = load_config().section("retrieval").get("mode", "hybrid")
        print(f"store: {events} events in {SESSIONS} sessions ({db.stat().st_size // 1024} KB); retrieval mode {mode}"
              + (" (a put of up to 200 new turns embeds them at once; bigger ones go to the backfill)"
                 if mode == "hybrid" else ""))
        print(f"baseline  plain SQLite read + json.loads of every row: {base * 1000:8.1f} ms")
        print(f"openclaw sync, full:      {full * 1000:8.1f} ms  ({full / events * 1e6:.0f} µs/event; "
              f"{report['turns']} turns to cold, {report['warm']} warm facts, {report['segments']} segments)")
        print(f"openclaw sync, nothing new: {noop * 1000:6.1f} ms")
        print(f"openclaw sync, +10 events: {incr * 1000:7.1f} ms  ({inc_report['turns']} turns, "
              f"{inc_report['warm']} warm)  ratio to full: {incr / full:.3f}")
        per = (incr100 - incr) / 90
        print(f"openclaw sync, +100 events: {incr100 * 1000:6.1f} ms  → ≈ {per * 1000:.2f} ms per new event above a fixed "
              f"≈ {(incr - 10 * per) * 1000:.0f} ms per run with new turns (one warm/hot write, state file, one push)")
        print(f"distillation per turn: rule only {rule_us:.0f} µs; whole segment (cold + warm + hot) {whole_us:.0f} µs")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
