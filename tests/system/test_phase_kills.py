"""A kill inside each consolidation phase: the real `memoryd consolidate --mode monthly` in a subprocess, stopped
by SIGKILL at a named point (MEMORYD_TEST_HALT, tiers/knowledge/phases.py), then run again: it resumes from the
phase it was in and ends where an uninterrupted run ends — no memory lost, none twice, no log row twice."""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import time
from collections import Counter
from pathlib import Path

import pytest

from clihelp import MEMORYD
from memhelp import AgentMemory
from memoryd.tiers.base.config import load_config
from memoryd.tiers.cold.source import open_index
from memoryd.tiers.knowledge.phases import PLAN
from memoryd.tiers.memory.model import DAY

AGENT = "phased"
POINTS = ["collect", "filter:archived", "filter", "extract", "merge", "verify", "summarise:logged", "summarise",
          "entities", "decay", "restructure:cold-moved", "restructure", "index", "snapshot"]


def _prepare(home: Path) -> None:
    """Warm facts due for cold and one due for hot; two old sessions to seal; a full node to split."""
    home.mkdir(parents=True)
    (home / "config.toml").write_text("[knowledge]\nsplit_over = 20\nseal_budget = 100\n")
    config = load_config({"MEMORYD_HOME": str(home)})
    now = time.time()
    index = open_index(config)
    try:
        past = AgentMemory(config, AGENT, archive=index, clock=lambda: now - 45 * DAY)
        past.change(lambda s, t: s["tree"]["nodes"].update({"work": ["Work", int(t // DAY)],
                                                             "work/misc": ["", int(t // DAY)]}), "test")
        for i in range(6):
            past.store(f"old warm note {i} about the garden hose", "notes", 0.1)
        AgentMemory(config, AGENT, archive=index, clock=lambda: now).store(
            "Always run the migrations before deploying the billing service", "lessons/ops", 1.0)
        rows = []
        for s in range(2):
            rows += [{"id": f"turn{s}-{i:02d}", "category": "chats", "created_at": now - 60 * DAY + i * 60,
                      "importance": 0.3, "metadata": {"session_id": f"sess-{s}"},
                      "text": f"Session {s}: Bob asked about invoice {1000 + i} on 2024-05-{i + 1:02d}."}
                     for i in range(12)]
        topics = ["deploy the server with ansible", "invoice the customer each quarter", "boil the kettle for tea"]
        rows += [{"id": f"misc{t}-{i:02d}", "category": "work/misc", "created_at": now - 10 * DAY,
                  "importance": 0.5, "text": f"{topics[t]} (note {i})"} for t in range(3) for i in range(9)]
        index.put(AGENT, rows)
    finally:
        index.close()


def _run(home: Path, halt: str | None = None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMORYD_")}
    env["MEMORYD_HOME"] = str(home)
    if halt:
        env["MEMORYD_TEST_HALT"] = halt
    return subprocess.run([MEMORYD, "consolidate", "--mode", "monthly", "--agent-id", AGENT, "--json"],
                          capture_output=True, text=True, timeout=120, env=env)


def _outcome(home: Path) -> dict:
    """Where every memory ended (tier, category, summary it is sealed in), the tree, and the logs' rows."""
    config = load_config({"MEMORYD_HOME": str(home)})
    index = open_index(config)
    try:
        mem = AgentMemory(config, AGENT, archive=index)
        state = mem.read_state()
        where = {e["id"]: ("cold", e["category"], e["metadata"].get("sealed_in")) for e in index.iter_entries(AGENT)}
        warm = {e["id"]: ("warm", e["category"], None) for e in state["warm"]["entries"]}
        twice = set(where) & set(warm)
        where.update(warm)
        knowledge = Counter((r["kind"], r["id"], r.get("action", "")) for r in mem.knowledge_rows())
        evictions = Counter((r["kind"], r["id"], r["tier"]) for r in mem.eviction_rows())
        journal = json.loads((mem.dir / "consolidation.json").read_text())
        return {"where": where, "twice": twice, "tree": state["tree"], "knowledge": knowledge,
                "evictions": evictions, "journal": journal, "lessons": [x["text"] for x in state["hot"]["critical_lessons"]]}
    finally:
        index.close()


@pytest.fixture(scope="module")
def prepared(tmp_path_factory) -> tuple[Path, dict]:
    base = tmp_path_factory.mktemp("phases")
    _prepare(base / "seed")
    shutil.copytree(base / "seed", base / "reference")
    done = _run(base / "reference")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["counts"]["summaries"] == 2 and report["counts"]["to_cold"] == 6
    assert report["counts"]["promoted"] == 1 and report["counts"]["restructured"] >= 1
    return base, _outcome(base / "reference")


@pytest.mark.parametrize("point", POINTS)
def test_a_kill_inside_a_phase_resumes_without_loss_or_duplicate(prepared, point):
    base, reference = prepared
    home = base / point.replace(":", "-")
    shutil.copytree(base / "seed", home)
    killed = _run(home, halt=point)
    assert killed.returncode == -signal.SIGKILL, (killed.returncode, killed.stderr)
    phase = point.split(":")[0]
    journal = json.loads((home / "agents" / AGENT / "consolidation.json").read_text())["monthly"]
    assert phase not in journal["done"]  # the journal never says done for a phase a kill cut short
    again = _run(home)
    assert again.returncode == 0, again.stderr
    report = json.loads(again.stdout)
    order = PLAN["monthly"]
    assert report["resumed"] is True and report["skipped"] == list(order[:order.index(phase)])
    assert report["phases"] == list(order[order.index(phase):])
    got = _outcome(home)
    assert got["twice"] == set()                       # no memory in warm and cold at once
    assert got["where"] == reference["where"]          # none lost, none extra, each where it belongs
    assert got["tree"]["nodes"].keys() == reference["tree"]["nodes"].keys()
    assert got["lessons"] == reference["lessons"]      # promoted once
    assert max(got["knowledge"].values()) == 1         # no knowledge row twice
    assert got["knowledge"].keys() == reference["knowledge"].keys()
    seals = {k: n for k, n in got["evictions"].items() if k[0] == "seal"}
    assert seals == {k: n for k, n in reference["evictions"].items() if k[0] == "seal"} and max(seals.values()) == 1
    assert got["journal"] == {}                        # the run finished: nothing left to resume
