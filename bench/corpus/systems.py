"""The systems the corpus asks: memoryd (knowledge layer on or off) through its public API, and plain FTS5 BM25.

memoryd lives each conversation date by date in a fresh MEMORYD_HOME: the date's OpenClaw sessions are written
and taken in by `openclaw_sync`, its store calls go through `store` (with the date as their `date` metadata),
its note through `ingest_daily`, and `consolidate --mode daily` runs every CONSOLIDATE_EVERY dates and at the
end, as the daemon's daily job would, on a driven clock (MEMORYD_CLOCK_FILE) set to the end of the date being
lived: decay, expiry and sealing count the conversation's days, so a figure does not move with the calendar. Then every topic's question is asked through `retrieve` (keyword mode),
and the state is exported (every memory with its metadata), with hot memory and the entity list.
"""
from __future__ import annotations

import datetime as dt
import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..recall.baseline import TOKENIZERS, Bm25
from .parse import Conversation
from .truth import Truth
from .write import AGENT_ID, Install, by_date, write_note, write_transcripts

LIMIT = 10
CONSOLIDATE_EVERY = 7


@dataclass
class Run:
    """What one system gave for one conversation."""

    ranked: dict[str, list[dict[str, Any]]] = field(default_factory=dict)   # question id → results
    memories: list[dict[str, Any]] = field(default_factory=list)            # the export, every tier
    hot: dict[str, Any] = field(default_factory=dict)
    entities: list[str] = field(default_factory=list)
    questions: list[dict[str, Any]] = field(default_factory=list)          # open review questions at the end
    sources: dict[str, str] = field(default_factory=dict)                   # source → turn id
    ingest_s: float = 0.0
    consolidate_s: float = 0.0
    warnings: list[str] = field(default_factory=list)


def _end_of(date: str) -> float:
    return (dt.datetime.fromisoformat(date) + dt.timedelta(days=1, seconds=-1)).replace(
        tzinfo=dt.timezone.utc).timestamp()


def run_memoryd(conv: Conversation, root: Path, knowledge: bool = True, mode: str = "keyword") -> Run:
    from memoryd.daemon.api import in_process
    from memoryd.tiers.base.config import load_config

    install = Install(root)
    clock = root / "clock"  # the conversation's own days, not the day the benchmark runs: figures that hold
    clock.write_text(str(time.time()), encoding="utf-8")
    env = install.env() | {"MEMORYD_RETRIEVAL_MODE": mode, "MEMORYD_KNOWLEDGE": "on" if knowledge else "off",
                           "MEMORYD_CLOCK_FILE": str(clock)}
    api = in_process(load_config(env), shared=True)
    run = Run()
    try:
        api.init(agent_id=AGENT_ID)
        for n, (date, turns) in enumerate(sorted(by_date(conv).items()), 1):
            clock.write_text(str(_end_of(date)), encoding="utf-8")  # the daily job runs as that day ends
            t0 = time.perf_counter()
            run.sources.update(write_transcripts(turns, install))
            if any(t.section == "chat-openclaw" for t in turns):
                report = api.openclaw_sync(openclaw_agent=AGENT_ID)
                run.warnings += [w for a in report.get("agents", []) for w in a.get("errors", [])]
            for t in turns:
                if t.section == "store":
                    api.store(agent_id=AGENT_ID, text=t.text, category="notes", metadata={"date": date})
            found = write_note(conv, date, turns, install)
            if found:
                run.sources.update(found)
                run.warnings += api.ingest_daily(agent_id=AGENT_ID, date=date).get("warnings", [])
            run.ingest_s += time.perf_counter() - t0
            if n % CONSOLIDATE_EVERY == 0:
                t0 = time.perf_counter()
                api.consolidate(agent_id=AGENT_ID, mode="daily")
                run.consolidate_s += time.perf_counter() - t0
        t0 = time.perf_counter()
        api.consolidate(agent_id=AGENT_ID, mode="daily")
        run.consolidate_s += time.perf_counter() - t0
        for q in Truth(conv).questions():
            run.ranked[q.id] = api.retrieve(agent_id=AGENT_ID, query=q.text, limit=LIMIT)["results"]
        out = root / "export.jsonl"
        api.export_to(agent_id=AGENT_ID, file=str(out))
        lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines() if line.strip()]
        run.memories = [x["entry"] for x in lines if x.get("type") in ("warm", "cold")]
        run.hot = dict(api.hot_show(agent_id=AGENT_ID).get("hot") or {})  # {"agent_id", "hot", "markdown"}
        run.questions = list(api.review_list(agent_id=AGENT_ID).get("questions") or [])
        listed = api.entity_list(agent_id=AGENT_ID)
        run.entities = [str(e.get("name")) for e in listed.get("entities", [])]
    finally:
        api.close()
    return run


def run_bm25(conv: Conversation) -> Run:
    """Plain FTS5 BM25 (porter) over every text given, asked the same questions."""
    texts = {t.id: t.text for t in conv.turns}
    index = Bm25(TOKENIZERS["bm25-porter"], list(texts.items()))
    run = Run(sources={tid: tid for tid in texts})
    try:
        for q in Truth(conv).questions():
            run.ranked[q.id] = [{"id": i, "text": texts[i], "metadata": {"source": i}}
                                for i in index.search(q.text, LIMIT)]
    finally:
        index.close()
    return run
