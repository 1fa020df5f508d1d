"""Valid time through the real console script: a year of old daily notes imported today lands where its age puts
it (warm holds what is recent by its said date, the rest is in the local index); retrieve --since/--until, the
digest of a past day and a "now" question go by when things were said; consolidate on MEMORYD_CLOCK_FILE
decays and seals by said age."""
from __future__ import annotations

import datetime as dt
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

MEMORYD = shutil.which("memoryd", path=str(Path(sys.executable).parent)) or "memoryd"
DAY = 86400.0
OFFICES = {300: "Lisbon", 100: "Porto", 2: "Faro"}  # days ago → where Ana worked as said that day
PROJECTS = ["billing", "search", "mobile", "storage"]


def run(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    out = subprocess.run([MEMORYD, *args], capture_output=True, text=True, timeout=180, env=env)
    assert out.returncode == 0, out.stderr
    return out


def as_json(*args: str, env: dict[str, str]) -> Any:
    return json.loads(run(*args, "--json", env=env).stdout)


def write_year(memory_dir: Path, today: dt.date) -> dict[str, list[str]]:
    """365 daily notes, the last one yesterday, a few lines each; returns each day's lines."""
    lines_of: dict[str, list[str]] = {}
    for back in range(1, 366):
        day = today - dt.timedelta(days=back)
        n = 366 - back
        lines = [f"Reviewed pull request {n} of the {PROJECTS[n % 4]} service with Carmen",
                 f"Benchmark run {n} of the {PROJECTS[(n + 1) % 4]} cache took {100 + n} ms",
                 f"Planned sprint item {n} for the {PROJECTS[(n + 2) % 4]} backlog"]
        if back in OFFICES:
            lines.append(f"Ana works at the {OFFICES[back]} office")
        lines_of[day.isoformat()] = lines
        body = [f"# {day.isoformat()}", "", "## 09:30 Work"] + [f"- {text}" for text in lines]
        (memory_dir / f"{day.isoformat()}.md").write_text("\n".join(body) + "\n")
    return lines_of


def warm_entries(home: Path) -> list[dict[str, Any]]:
    return json.loads((home / "agents" / "default" / "warm-memory.json").read_text())["entries"]


def index_rows(home: Path, sql: str) -> list[tuple]:
    conn = sqlite3.connect(f"file:{home / 'cold.db'}?mode=ro", uri=True)
    try:
        return conn.execute(sql).fetchall()
    finally:
        conn.close()


def summaries(home: Path) -> list[dict[str, Any]]:
    rows = index_rows(home, "SELECT metadata FROM memories WHERE metadata LIKE '%\"summarises\"%'")
    return [m for m in (json.loads(r[0]) for r in rows) if m.get("source") == "seal"]


def test_a_year_of_old_notes_lands_where_its_age_puts_it(home: Path, tmp_path: Path) -> None:
    now = time.time()
    today = dt.datetime.fromtimestamp(now, dt.timezone.utc).date()
    ws = Path(os.environ["MEMORYD_WORKSPACE"])
    lines_of = write_year(ws / "memory", today)
    clock_file = tmp_path / "clock"
    clock_file.write_text(str(now))
    home.mkdir(parents=True, exist_ok=True)  # keyword mode: hybrid would embed each archived batch inline (~30 s)
    (home / "config.toml").write_text('[retrieval]\nmode = "keyword"\n')
    env = dict(os.environ, MEMORYD_CLOCK_FILE=str(clock_file))
    run("init", env=env)
    # the newest office first: stored before the older ones, in the opposite order to when it was said
    run("ingest-daily", "--date", (today - dt.timedelta(days=min(OFFICES))).isoformat(), env=env)
    started = time.perf_counter()
    report = as_json("ingest-daily", "--all", env=env)
    took = time.perf_counter() - started
    print(f"\nyear of notes through the CLI: {report['stored']} stored in {took:.2f} s")
    assert report["files"] == 365 and took < 30

    # warm: only what is recent by its said date; everything else is in the local index at its age
    warm = warm_entries(home)
    said = [e["metadata"]["date"] for e in warm if e["metadata"].get("date")]
    assert said and min(said) >= (today - dt.timedelta(days=31)).isoformat()
    assert all(e["score"] < 0.5 for e in warm if e["metadata"].get("date", "") < (today - dt.timedelta(days=3)).isoformat())
    status = as_json("status", env=env)
    agent = status["agents"][0] if "agents" in status else status
    total = sum(len(v) for v in lines_of.values())
    cold = index_rows(home, "SELECT COUNT(*) FROM memories WHERE agent_id = 'default'")[0][0]
    assert cold >= total - len(warm) - 5 and len(warm) <= 31 * 4, (cold, len(warm), agent)

    # --since/--until by the said day, in warm and the local index alike
    past = (today - dt.timedelta(days=200)).isoformat()
    found = as_json("retrieve", "", "--since", past, "--until", past, "--limit", "20", env=env)["results"]
    assert sorted(r["text"] for r in found) == sorted(lines_of[past])
    week = as_json("retrieve", "sprint item", "--since", (today - dt.timedelta(days=7)).isoformat(), "--limit", "20",
                   env=env)["results"]
    assert len(week) == 7 and all(r["tier"] == "warm" for r in week)

    # the digest of a past day lists what was said that day
    digest = as_json("digest", "--date", past, env=env)
    assert digest["date"] == past and digest["memories"] == 3
    assert sorted(digest["learned"] + digest["decided"]) == sorted(lines_of[past]), digest["text"]

    # a "now" question prefers the latest said, though it was stored first
    asked = as_json("retrieve", "where does Ana work now", "--limit", "3", env=env)["results"]
    assert "Faro" in asked[0]["text"], [r["text"] for r in asked]

    # consolidation on the test clock: sealing groups only what was said more than seal_after_days ago
    as_json("consolidate", "--mode", "daily", env=env)
    first = summaries(home)
    cutoff = (today - dt.timedelta(days=30)).isoformat()
    assert first and all(s["span"][1] < cutoff for s in first)
    assert min(s["span"][0] for s in first) < (today - dt.timedelta(days=300)).isoformat()

    # two months on (the clock file): what was recent decays out of warm and becomes sealable
    clock_file.write_text(str(now + 60 * DAY))
    ran = as_json("consolidate", "--mode", "daily", env=env)
    assert ran["start"] == now + 60 * DAY and ran["counts"]["archived"] > 0
    assert not [e for e in warm_entries(home) if e["metadata"].get("date")]
    later = summaries(home)
    assert len(later) > len(first) and max(s["span"][1] for s in later) >= cutoff
