"""Benchmark: a year of daily notes through `ingest-daily`, beside the plain-SQLite floor for the same facts.

Prints the whole-year time against plain sqlite3 + FTS5 (a transaction per note; SQLite's defaults, and
WAL mode beside it) in the same run, the per-note cost in the first and last month (flat is the goal),
and retrieve/status afterwards.
Run: python bench/bench_ingest.py [--days 365] [--facts-per-note 30] [--split]
--split also prints the per-fact rules' time over the same facts (distill, redact, importance, fact rules).
"""
from __future__ import annotations

import argparse
import datetime as dt
import os
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

TOPICS = ["API design", "deploy", "standup", "user prefs", "bug triage", "planning", "部署", "会议", "代码评审"]
BODIES = [
    "Discussed REST vs GraphQL for project {n}. Decision: use REST to keep it simple.",
    "Deployed v{n}.{m}.0 to https://prod.example.com/app{n} with `make deploy`. No issues reported.",
    "Fixed the crash in src/worker_{n}.py; root cause was a missing timeout on the HTTP client.",
    "User mentioned preferring TypeScript over JavaScript for dashboard {n}.",
    "Call with {who} about the {what} budget: agreed on {n}k for Q{m}.",
    "{who} asked to move the {what} review to Thursday {m} pm.",
    "Benchmarked the {what} service: p95 {n} ms after the cache change.",
    "讨论了第 {n} 个迭代的排期，决定周五前完成接口联调。",
    "部署 v{n}.{m} 到生产环境，运行 kubectl rollout status deploy/api-{n} 确认无问题。",
]
WHO = ["Peter", "Alice", "Bao", "Carmen", "Dmitri", "Emma"]
WHAT = ["search", "billing", "onboarding", "mobile", "analytics", "storage"]
RETAIN = [
    "- W @Peter: Working from the Lisbon office during sprint {n}.",
    "- B @warelay: I migrated the queue {n} to the new broker without downtime.",
    "- O(c=0.{m}) @Peter: Prefers short status updates in thread {n}.",
    "- S Week {n} was mostly about reliability work.",
]


def synth_note(day: dt.date, rng: random.Random, per_note: int) -> str:
    lines = [f"# {day.isoformat()}", ""]
    sections = max(1, per_note // 4)
    for s in range(sections):
        hour = 8 + (s * 10) // sections
        lines.append(f"## {hour % 12 or 12}:{rng.choice(['00', '15', '30', '45'])} {'AM' if hour < 12 else 'PM'} - "
                     f"{rng.choice(TOPICS)}")
        for _ in range(3):
            lines.append("- " + rng.choice(BODIES).format(n=rng.randint(1, 999), m=rng.randint(1, 9),
                                                          who=rng.choice(WHO), what=rng.choice(WHAT)))
        lines.append("")
    lines += ["## Retain"] + [r.format(n=rng.randint(1, 99), m=rng.randint(1, 9)) for r in rng.sample(RETAIN, 3)]
    return "\n".join(lines) + "\n"


def plain_floor(db_path: Path, notes: list[list[str]], wal: bool) -> float:
    """The same facts into plain sqlite3 + FTS5 (porter), durable, one transaction per note.

    wal=False: SQLite's defaults (rollback journal, synchronous=FULL), the floor the issue measured
    (0.69 s for its year of 10,964 facts; FACTS.md: a year of ~11k facts ≈ 0.7 s on this machine).
    wal=True: WAL + synchronous=FULL, as memoryd's own index runs: a floor ~3x lower."""
    conn = sqlite3.connect(db_path, isolation_level=None)
    if wal:
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=FULL")
    conn.execute("CREATE TABLE m (id INTEGER PRIMARY KEY, text TEXT)")
    conn.execute("CREATE VIRTUAL TABLE f USING fts5(text, content='m', content_rowid='id', tokenize='porter unicode61')")
    t0 = time.perf_counter()
    for facts in notes:
        conn.execute("BEGIN")
        for text in facts:
            rowid = conn.execute("INSERT INTO m (text) VALUES (?)", [text]).lastrowid
            conn.execute("INSERT INTO f (rowid, text) VALUES (?, ?)", [rowid, text])
        conn.execute("COMMIT")
    elapsed = time.perf_counter() - t0
    conn.close()
    return elapsed


def cli_year(tmp: Path, ws: Path) -> float:
    """`memoryd ingest-daily --all --json` as a user runs it, into a home of its own."""
    import subprocess

    env = dict(os.environ, MEMORYD_HOME=str(tmp / "cli-home"), MEMORYD_WORKSPACE=str(ws))
    cmd = [sys.executable, "-c", "from memoryd.cli.main import main; main()"]
    subprocess.run(cmd + ["init", "--json"], env=env, check=True, capture_output=True)
    t0 = time.perf_counter()
    out = subprocess.run(cmd + ["ingest-daily", "--all", "--json"], env=env, check=True, capture_output=True, text=True)
    elapsed = time.perf_counter() - t0
    assert '"stored"' in out.stdout, out.stdout[:200]
    return elapsed


def timed(fn, n: int = 20) -> tuple[float, float]:
    samples = []
    for _ in range(n):
        t0 = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - t0) * 1000)
    samples.sort()
    return statistics.median(samples), samples[int(0.95 * (len(samples) - 1))]


def rule_split(facts: list[str]) -> None:
    """Each per-fact rule run once over every fact (cold caches): where the time of a year goes."""
    from memoryd.tiers.distillation import distill, fact_rules, importance, redact

    ref = dt.date(2025, 6, 1)
    rules = {"distill (stored keys)": distill._distill_meta.__wrapped__, "redact": redact._redact,
             "importance": lambda t: importance.rule_importance(t, "notes"),
             "classify + find_date": lambda t: (fact_rules.classify(t, False), fact_rules.find_date(t, ref))}
    for name, rule in rules.items():
        t0 = time.perf_counter()
        for text in facts:
            rule(text)
        print(f"  {name:<22s} {time.perf_counter() - t0:7.2f} s over {len(facts)} facts")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--days", type=int, default=365)
    ap.add_argument("--facts-per-note", type=int, default=30)
    ap.add_argument("--split", action="store_true", help="also time each per-fact rule over the same facts")
    args = ap.parse_args()
    rng = random.Random(42)
    with tempfile.TemporaryDirectory() as tmp:
        ws = Path(tmp) / "ws"
        (ws / "memory").mkdir(parents=True)
        os.environ.update(MEMORYD_HOME=str(Path(tmp) / "home"), MEMORYD_WORKSPACE=str(ws))
        days = [dt.date(2025, 1, 1) + dt.timedelta(days=i) for i in range(args.days)]
        total_lines = 0
        for day in days:
            text = synth_note(day, rng, args.facts_per_note)
            total_lines += text.count("\n")
            (ws / "memory" / f"{day.isoformat()}.md").write_text(text, encoding="utf-8")

        from memoryd.daemon.api import MemoryApi
        from memoryd.daemon.engine import Engine
        from memoryd.daemon.transport import InProcessTransport
        from memoryd.tiers.base.config import load_config
        from memoryd.tiers.ingest.dailynotes import note_files, parse_note

        parsed = [[f.text for f in parse_note(p, d)[0]] for d, p in note_files(ws, all_=True)]
        facts = sum(len(p) for p in parsed)
        print(f"year of notes: {len(days)} files, {total_lines} lines, {facts} facts")
        floor = plain_floor(Path(tmp) / "plain.db", parsed, wal=False)
        wal_floor = plain_floor(Path(tmp) / "plain-wal.db", parsed, wal=True)
        print(f"plain sqlite3 + FTS5 floor       {floor:7.2f} s   (SQLite's defaults, as the issue measured it)")
        print(f"  the same in WAL mode           {wal_floor:7.2f} s   (as memoryd's index runs)")
        if args.split:
            rule_split([text for note in parsed for text in note])

        config = load_config()
        engine = Engine(config, shared=True)  # as in the daemon: one connection for the whole run
        api = MemoryApi(InProcessTransport(engine))
        api.call("init", {"agent_id": "bench"})
        fresh_retrieve = timed(lambda: api.call("retrieve", {"agent_id": "bench", "query": "REST decision"}))
        stamps = [time.perf_counter()]

        class Clocked:  # the progress reporter: when each note was done
            def start(self, label: str, total: int | None):
                return lambda n=1: stamps.extend([time.perf_counter()] * n)

        from memoryd.tiers.ingest.dailynotes import ingest

        with engine.memory("bench") as mem:
            ingest(mem, ws, all_=True, progress=Clocked())
        total = stamps[-1] - stamps[0]
        print(f"memoryd ingest-daily --all        {total:7.2f} s   = {total / floor:.1f}x the floor "
              f"({total / wal_floor:.1f}x the WAL floor)")
        per_note = [b - a for a, b in zip(stamps, stamps[1:])]
        first, last = per_note[:31], per_note[-31:]
        print(f"per note: first month {statistics.mean(first) * 1000:.1f} ms, last month {statistics.mean(last) * 1000:.1f} ms")
        print(f"the same year through the console script, end to end: {cli_year(Path(tmp), ws):.2f} s "
              "(a fresh agent; Python's start and the CLI's included)")
        late = []  # the daemon's way: one new note at a time, after the year
        for i in range(10):
            day = days[-1] + dt.timedelta(days=i + 1)
            (ws / "memory" / f"{day.isoformat()}.md").write_text(synth_note(day, rng, args.facts_per_note), encoding="utf-8")
            t0 = time.perf_counter()
            api.call("ingest_daily", {"agent_id": "bench", "date": day.isoformat()})
            late.append(time.perf_counter() - t0)
        print(f"one new note after the year (the daemon's case): {statistics.median(late) * 1000:.1f} ms")
        again = time.perf_counter()
        report = api.call("ingest_daily", {"agent_id": "bench", "all": True})
        print(f"re-ingest --all (nothing new)    {time.perf_counter() - again:7.2f} s ({report.get('stored', 0)} stored)")
        after = timed(lambda: api.call("retrieve", {"agent_id": "bench", "query": "REST decision"}))
        status = timed(lambda: api.call("status", {"agent_id": "bench"}))
        print(f"retrieve p50/p95: fresh agent {fresh_retrieve[0]:.1f}/{fresh_retrieve[1]:.1f} ms, "
              f"after the year {after[0]:.1f}/{after[1]:.1f} ms")
        print(f"status p50/p95 after the year {status[0]:.1f}/{status[1]:.1f} ms")


if __name__ == "__main__":
    main()
