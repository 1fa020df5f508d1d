"""The systems asked: memoryd through its public surface, and plain FTS5 BM25 over every text it was given.

memoryd lives the weeks day by day in a fresh MEMORYD_HOME, through the MemoryApi operations the CLI calls
(in this process): each day's chat sessions are written as OpenClaw transcripts and taken in by
`openclaw_sync`, the day's store calls go through `store` (with the day as their `date` metadata, the key
notes and conversations set: the weeks pass in seconds of wall time), the day's note through
`ingest_daily`, and every `every` days `consolidate --mode daily` runs (timed, as the daemon's daily job
would). The questions are
asked through `retrieve` in keyword mode. Entity pages come from the console script (`memoryd entity show
NAME --json`) when the installed memoryd has that command. The baseline is bench/recall's BM25 class.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..recall.baseline import TOKENIZERS, Bm25
from .model import STORE, Dataset
from .resolve import Hit, Resolver
from .write import AGENT_ID, Install, write_note, write_sessions

REPO = Path(__file__).resolve().parents[2]
LIMIT = 10  # results asked for per question; the measures look at the top 5 and at the rank of the current value


@dataclass
class MemorydRun:
    ranked: dict[str, list[Hit]] = field(default_factory=dict)
    ingest_s: float = 0.0
    created: int = 0                  # memories held when nothing had been consolidated (the sum of each run's new)
    kept: int = 0                     # memories held at the end (warm entries + local-index rows)
    consolidations: list[dict[str, Any]] = field(default_factory=list)
    pages: dict[str, str] | None = None   # entity name → `entity show --json` output (None: no such command)
    entity_list: str | None = None
    warnings: list[str] = field(default_factory=list)
    module: str = ""                  # which memoryd answered (its package path)


def _kept(api: Any) -> int:
    """What the agent holds: warm entries and local-index (cold) rows, from `status`."""
    agent = api.status(agent_id=AGENT_ID)["agents"][0]
    return int(agent["warm"]["entries"]) + int(agent["cold"]["count"] or 0)


def _live_day(api: Any, ds: Dataset, day: int, install: Install, sources: dict[str, str], run: MemorydRun) -> None:
    sources.update(write_sessions(ds, day, install))
    report = api.openclaw_sync(openclaw_agent=AGENT_ID)
    run.warnings += [w for a in report.get("agents", []) for w in a.get("errors", []) + a.get("warnings", [])]
    for item in ds.on(day):
        if item.channel == STORE:
            # the day it was said, as notes and conversations carry theirs: the weeks are lived in seconds
            api.store(agent_id=AGENT_ID, text=item.text, category=item.category or "notes",
                      metadata={"date": ds.date(day)})
    found = write_note(ds, day, install)
    if found:
        sources.update(found)
        run.warnings += api.ingest_daily(agent_id=AGENT_ID, date=ds.date(day)).get("warnings", [])


def run_memoryd(ds: Dataset, root: Path, every: int = 7, pages: bool = True) -> MemorydRun:
    """Live the dataset's days through memoryd under `root`, then ask every question."""
    from memoryd.daemon import api as api_module
    from memoryd.daemon.api import in_process
    from memoryd.tiers.base.config import load_config

    install = Install(root)
    run = MemorydRun(module=str(Path(str(api_module.__file__)).resolve().parents[1]))  # the checkout it runs from
    api = in_process(load_config(install.env() | {"MEMORYD_RETRIEVAL_MODE": "keyword"}), shared=True)
    sources: dict[str, str] = {}
    try:
        api.init(agent_id=AGENT_ID)
        held = _kept(api)
        run.created = held
        for day in range(ds.days):
            t0 = time.perf_counter()
            _live_day(api, ds, day, install, sources, run)
            run.ingest_s += time.perf_counter() - t0
            if (day + 1) % every == 0 or day == ds.days - 1:
                before = _kept(api)
                t0 = time.perf_counter()
                api.consolidate(agent_id=AGENT_ID, mode="daily")
                seconds = time.perf_counter() - t0
                held, new = _kept(api), before - held
                run.created += new
                run.consolidations.append({"day": day, "new": new, "before": before, "after": held,
                                           "seconds": round(seconds, 4)})
        run.kept = held
        resolver = Resolver(ds, sources)
        for q in ds.questions:
            answer = api.retrieve(agent_id=AGENT_ID, query=q.text, limit=LIMIT)
            run.ranked[q.id] = resolver.hits(answer["results"])
            run.warnings += answer.get("warnings", [])
    finally:
        api.close()
    if pages:
        run.pages, run.entity_list = entity_pages(ds, install)
    return run


def _console() -> str | None:
    exe = Path(sys.executable).with_name("memoryd")
    return str(exe) if exe.exists() else shutil.which("memoryd")


def _cli(args: list[str], install: Install) -> subprocess.CompletedProcess[str] | None:
    command = _console()
    if command is None:
        return None
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MEMORYD_", "OPENCLAW_"))}
    env |= install.env() | {"MEMORYD_RETRIEVAL_MODE": "keyword"}
    return subprocess.run([command, *args], env=env, capture_output=True, text=True, timeout=120)


def entity_pages(ds: Dataset, install: Install) -> tuple[dict[str, str] | None, str | None]:
    """Each asked entity's `memoryd entity show NAME --json` (its page, facts, timeline), and `entity list
    --json`; (None, None) when the installed memoryd has no `entity` command."""
    probe = _cli(["entity", "--help"], install)
    if probe is None or probe.returncode != 0:
        return None, None
    listed = _cli(["entity", "list", "--agent-id", AGENT_ID, "--json"], install)
    pages: dict[str, str] = {}
    for q in ds.questions:
        if q.kind == "entity":
            shown = _cli(["entity", "show", q.about, "--agent-id", AGENT_ID, "--json"], install)
            pages[q.about] = shown.stdout if shown is not None and shown.returncode == 0 else ""
    return pages, listed.stdout if listed is not None and listed.returncode == 0 else None


def run_baseline(ds: Dataset) -> tuple[dict[str, list[Hit]], float]:
    """Plain FTS5 BM25 (porter) over every text given, asked the same questions; (rankings, build seconds)."""
    resolver = Resolver(ds, {})
    t0 = time.perf_counter()
    index = Bm25(TOKENIZERS["bm25-porter"], [(i.id, i.text) for i in ds.inputs])
    built = time.perf_counter() - t0
    try:
        return {q.id: [resolver.of_input(i) for i in index.search(q.text, LIMIT)] for q in ds.questions}, built
    finally:
        index.close()


def run_recall(today: str) -> dict[str, Any]:
    """`python -m bench.recall --small --json` (its memoryd row is keyword mode), with this interpreter."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MEMORYD_", "OPENCLAW_"))}
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "bench.recall", "--small", "--json", "--today", today],
                          cwd=REPO, env=env, capture_output=True, text=True, timeout=900)
    if proc.returncode != 0:
        return {"error": (proc.stderr.strip().splitlines() or ["exit %d" % proc.returncode])[-1][:300]}
    out = json.loads(proc.stdout)
    return {"questions": out["corpus"]["questions"], "memoryd_r5": out["scores"]["memoryd"]["all"]["r5"],
            "bm25_porter_r5": out["scores"]["bm25-porter"]["all"]["r5"], "seconds": round(time.perf_counter() - t0, 2)}
