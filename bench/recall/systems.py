"""The systems under test, over the same turns: memoryd (real ingest and retrieve), its console script, BM25 baselines.

A scope is what one memory holds: one conversation per agent (the default), or every conversation in one
agent (`shared`). memoryd ingests a scope's daily notes with `ingest_daily` (all=True), exactly what
`memoryd ingest-daily --all` runs, and answers through the `retrieve` operation the CLI calls; its access
counting (reinforcement) stays on, as in use. "memoryd" is keyword mode (`[retrieval] mode = "keyword"`);
hybrid mode, the default where the extra is installed, is `--hybrid` (bench/recall/hybrid.py).
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

from .baseline import TOKENIZERS, Bm25
from .model import Corpus, Question, Turn
from .notes import ranked_turns, write_notes


@dataclass
class Scope:
    agent: str
    turns: list[Turn]
    questions: list[Question]


@dataclass
class Run:
    """What one system returned: ranked turn ids per question, and what it cost."""

    rankings: dict[str, list[str]] = field(default_factory=dict)
    setup_s: float = 0.0                     # ingest (memoryd) or index build (baselines)
    latencies_ms: list[float] = field(default_factory=list)
    warnings: dict[str, int] = field(default_factory=dict)

    def warn(self, messages: list[str]) -> None:
        for m in messages:
            self.warnings[m] = self.warnings.get(m, 0) + 1


def scopes(corpus: Corpus, shared: bool) -> list[Scope]:
    if shared:
        return [Scope("bench", corpus.turns, corpus.questions)]
    return [Scope(c.id, c.turns, [q for q in corpus.questions if q.conv == c.id]) for c in corpus.conversations]


def run_baselines(parts: list[Scope], limit: int = 10) -> dict[str, Run]:
    runs = {}
    for name, tokenizer in TOKENIZERS.items():
        run = Run()
        for scope in parts:
            t0 = time.perf_counter()
            index = Bm25(tokenizer, [(t.id, t.line) for t in scope.turns])
            run.setup_s += time.perf_counter() - t0
            for q in scope.questions:
                t0 = time.perf_counter()
                run.rankings[q.id] = index.search(q.text, limit)
                run.latencies_ms.append((time.perf_counter() - t0) * 1000)
            index.close()
        runs[name] = run
    return runs


def _env(root: Path, scope: Scope, home: Path | None = None) -> dict[str, str]:
    return {"MEMORYD_HOME": str(home or root / "home"), "MEMORYD_WORKSPACE": str(root / "workspaces" / scope.agent)}


def results_of(answer: Any) -> list[dict[str, Any]]:
    """The results of a retrieve answer: {"results": [...], ...} (with or without a "schema" key) or a bare list."""
    if isinstance(answer, dict):
        answer = answer.get("results", [])
    if not isinstance(answer, list):
        raise TypeError(f"unexpected retrieve answer: {type(answer).__name__}")
    return answer


def api(config: Any, now: float | None = None) -> Any:
    """`in_process(config)` (the CLI's own path when no daemon runs), its clock at `now` when given: the
    corpus's day, so that "yesterday" or "last week" in a question means what it meant when it was written."""
    from memoryd.daemon.api import MemoryApi, in_process
    from memoryd.daemon.engine import Engine
    from memoryd.daemon.transport import InProcessTransport

    if now is None:
        return in_process(config)

    class AskedOn(Engine):
        def memory(self, agent_id: str, clock: Any = None) -> Any:  # type: ignore[override]
            return super().memory(agent_id, clock or (lambda: now))

    return MemoryApi(InProcessTransport(AskedOn(config)))


class Memoryd:
    """memoryd in this process, through `api(config).call` (the CLI's own path when no daemon runs)."""

    def __init__(self, root: Path, home: Path | None = None, retrieval: dict[str, Any] | None = None,
                 now: float | None = None) -> None:
        self.root, self.home = root, home or root / "home"
        self.retrieval = retrieval or {}  # [retrieval] settings over the config's (hybrid mode, fusion)
        self.now = now  # the clock of every call (None: the real one)
        self.sources: dict[str, dict[str, str]] = {}
        self.by_text: dict[str, dict[str, str]] = {}

    def ingest(self, scope: Scope) -> dict[str, Any]:
        env = _env(self.root, scope, self.home)
        self.sources[scope.agent] = write_notes(scope.turns, Path(env["MEMORYD_WORKSPACE"]))
        self.by_text[scope.agent] = {}
        for t in scope.turns:
            self.by_text[scope.agent].setdefault(t.line, t.id)
        return api(self.config(scope), self.now).call("ingest_daily", {"agent_id": scope.agent, "all": True})

    def embed(self, scope: Scope) -> dict[str, Any]:
        """Vectors for what has none yet, warm and hot included (the `embed` operation)."""
        return api(self.config(scope), self.now).call("embed", {"agent_id": scope.agent})

    def config(self, scope: Scope) -> Any:
        from memoryd.tiers.base.config import load_config

        config = load_config(_env(self.root, scope, self.home))
        if not self.retrieval:
            return config
        return config.with_(sections={**config.sections, "retrieval": {**config.section("retrieval"), **self.retrieval}})

    def ask(self, scope: Scope, question: str, limit: int = 10) -> tuple[list[str], list[str]]:
        answer = api(self.config(scope), self.now).call("retrieve",
                          {"agent_id": scope.agent, "query": question, "limit": limit})
        warnings = answer.get("warnings", []) if isinstance(answer, dict) else []
        return ranked_turns(results_of(answer), self.sources[scope.agent], self.by_text[scope.agent]), warnings

    def ask_cli(self, scope: Scope, question: str, limit: int = 10) -> list[str]:
        """The same question through the installed `memoryd retrieve --json` console script."""
        exe = Path(sys.executable).with_name("memoryd")
        command = str(exe) if exe.exists() else shutil.which("memoryd")
        if command is None:
            raise RuntimeError("the memoryd console script is not installed (pip install -e .)")
        env = {k: v for k, v in os.environ.items() if not k.startswith("MEMORYD_")} | _env(self.root, scope, self.home)
        if "mode" in self.retrieval:
            env["MEMORYD_RETRIEVAL_MODE"] = self.retrieval["mode"]
        proc = subprocess.run([command, "retrieve", "--agent-id", scope.agent, "--limit", str(limit), "--json",
                               "--", question], env=env, capture_output=True, text=True, timeout=60)
        if proc.returncode != 0:
            raise RuntimeError(f"memoryd retrieve exited {proc.returncode}: {proc.stderr.strip()[:300]}")
        return ranked_turns(results_of(json.loads(proc.stdout)), self.sources[scope.agent], self.by_text[scope.agent])


def run_memoryd(parts: list[Scope], root: Path, limit: int = 10, now: float | None = None) -> tuple[Run, Memoryd]:
    mem, run = Memoryd(root, retrieval={"mode": "keyword"}, now=now), Run()  # hybrid: bench/recall/hybrid.py
    for scope in parts:
        t0 = time.perf_counter()
        report = mem.ingest(scope)
        run.setup_s += time.perf_counter() - t0
        run.warn([f"ingest: {w}" for w in report.get("warnings", [])])
    for scope in parts:
        for q in scope.questions:
            t0 = time.perf_counter()
            run.rankings[q.id], warnings = mem.ask(scope, q.text, limit)
            run.latencies_ms.append((time.perf_counter() - t0) * 1000)
            run.warn(warnings)
    return run, mem


def run_cli(mem: Memoryd, parts: list[Scope], sample: int, limit: int = 10) -> Run:
    """Every k-th question (k chosen so about `sample` are asked) through the console script."""
    asked = [(s, q) for s in parts for q in s.questions]
    step = max(1, len(asked) // max(sample, 1))
    run = Run()
    for scope, q in asked[::step][:sample]:
        t0 = time.perf_counter()
        run.rankings[q.id] = mem.ask_cli(scope, q.text, limit)
        run.latencies_ms.append((time.perf_counter() - t0) * 1000)
    return run
