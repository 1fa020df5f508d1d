"""Benchmark: daily-note ingestion throughput (lines/s) over a year of synthetic notes."""
from __future__ import annotations

import datetime as dt
import os
import random
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
    "讨论了第 {n} 个迭代的排期，决定周五前完成接口联调。",
    "部署 v{n}.{m} 到生产环境，运行 kubectl rollout status deploy/api-{n} 确认无问题。",
]
RETAIN = [
    "- W @Peter: Working from the Lisbon office during sprint {n}.",
    "- B @warelay: I migrated the queue {n} to the new broker without downtime.",
    "- O(c=0.{m}) @Peter: Prefers short status updates in thread {n}.",
    "- S Week {n} was mostly about reliability work.",
]


def synth_note(day: dt.date, rng: random.Random) -> str:
    lines = [f"# {day.isoformat()}", ""]
    for hour in sorted(rng.sample(range(8, 19), rng.randint(3, 6))):
        n, m = rng.randint(1, 999), rng.randint(1, 9)
        lines += [f"## {hour % 12 or 12}:{rng.choice(['00', '15', '30', '45'])} {'AM' if hour < 12 else 'PM'} - "
                  f"{rng.choice(TOPICS)}", rng.choice(BODIES).format(n=n, m=m), "", ]
    lines += ["## Retain"] + [r.format(n=rng.randint(1, 99), m=rng.randint(1, 9)) for r in rng.sample(RETAIN, 3)]
    return "\n".join(lines) + "\n"


def main() -> None:
    rng = random.Random(42)
    with tempfile.TemporaryDirectory() as tmp:
        ws = Path(tmp) / "ws"
        (ws / "memory").mkdir(parents=True)
        os.environ["MEMORYD_HOME"] = str(Path(tmp) / "home")
        start_day = dt.date(2025, 1, 1)
        total_lines = 0
        for i in range(365):
            day = start_day + dt.timedelta(days=i)
            text = synth_note(day, rng)
            total_lines += text.count("\n")
            (ws / "memory" / f"{day.isoformat()}.md").write_text(text, encoding="utf-8")

        from memoryd.tiers.agent import AgentMemory
        from memoryd.tiers.config import load_config
        from memoryd.tiers.dailynotes import ingest, note_files, parse_note

        t0 = time.perf_counter()
        facts = sum(len(parse_note(p, d)[0]) for d, p in note_files(ws, all_=True))
        parse_s = time.perf_counter() - t0
        print(f"year of notes: 365 files, {total_lines} lines, {facts} facts")
        print(f"parse only        {total_lines / parse_s:10.0f} lines/s   ({parse_s * 1000:.0f} ms)")

        mem = AgentMemory(load_config(), "bench")
        mem.init()
        t0 = time.perf_counter()
        report = ingest(mem, ws, all_=True)
        full_s = time.perf_counter() - t0
        print(f"ingest (store)    {total_lines / full_s:10.0f} lines/s   ({full_s:.1f} s, {report['stored']} stored, "
              f"{full_s / max(report['stored'], 1) * 1000:.1f} ms/fact)")
        t0 = time.perf_counter()
        again = ingest(mem, ws, all_=True)
        noop_s = time.perf_counter() - t0
        print(f"re-ingest (no-op) {total_lines / noop_s:10.0f} lines/s   ({noop_s * 1000:.0f} ms, {again['stored']} stored)")


if __name__ == "__main__":
    main()
