"""`memoryd tree restructure [--dry-run] [--undo] [--json]` and `memoryd unseal ID` through click: output,
JSON, exit codes, and nothing changed by a dry run or a bad call."""
from __future__ import annotations

import json
import time

from click.testing import CliRunner

from clihelp import snapshot
from memhelp import AgentMemory
from memoryd.cli.main import cli
from memoryd.tiers.cold.source import open_index
from memoryd.tiers.knowledge.kinds import SEALED_IN_KEY
from memoryd.tiers.knowledge.seal import seal
from memoryd.tiers.memory.model import DAY

AGENT = "shaped"
TOPICS = ["deploy the server with ansible", "invoice the customer each quarter", "boil the kettle for tea"]


def invoke(*args: str):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def _full_node(config) -> None:
    config.home.mkdir(parents=True, exist_ok=True)
    (config.home / "config.toml").write_text("[knowledge]\nsplit_over = 20\n")
    index = open_index(config)
    try:
        mem = AgentMemory(config, AGENT, archive=index)
        mem.change(lambda s, t: s["tree"]["nodes"].update({"work": ["Work", int(t // DAY)]}), "test")
        index.put(AGENT, [{"id": f"m{t}{i:02d}", "category": "work", "created_at": time.time() - DAY,
                           "importance": 0.4, "text": f"{TOPICS[t]} ({i})"} for t in range(3) for i in range(9)])
    finally:
        index.close()


def test_dry_run_then_apply_then_undo(config, home):
    _full_node(config)
    before = snapshot(home / "agents" / AGENT)
    dry = invoke("tree", "restructure", "--dry-run", "--agent-id", AGENT, "--json")
    assert dry.exit_code == 0
    proposal = json.loads(dry.output)
    assert proposal["dry_run"] is True and proposal["actions"][0]["op"] == "split"
    assert snapshot(home / "agents" / AGENT) == before  # a dry run changes nothing
    human = invoke("tree", "restructure", "--dry-run", "--agent-id", AGENT)
    assert human.output.startswith("would change") and "split work into" in human.output
    done = invoke("tree", "restructure", "--agent-id", AGENT, "--json")
    applied = json.loads(done.output)
    assert done.exit_code == 0 and applied["tree"] == proposal["tree"] and applied["moved"] == 27
    shown = json.loads(invoke("tree", "show", "--agent-id", AGENT, "--json").output)
    assert set(shown["nodes"]) == set(applied["tree"]["nodes"])
    assert invoke("tree", "restructure", "--agent-id", AGENT).output.strip() == "the tree needs no restructure"
    undone = invoke("tree", "restructure", "--undo", "--agent-id", AGENT)
    assert undone.exit_code == 0 and "27 memories moved back" in undone.output
    shown = json.loads(invoke("tree", "show", "--agent-id", AGENT, "--json").output)
    assert set(shown["nodes"]) == {"work"}


def test_bad_calls_exit_2_and_change_nothing(config, home):
    _full_node(config)
    before = snapshot(home)
    both = invoke("tree", "restructure", "--dry-run", "--undo", "--agent-id", AGENT)
    assert both.exit_code == 2 and "do not go together" in both.output
    nothing = invoke("tree", "restructure", "--undo", "--agent-id", AGENT)
    assert nothing.exit_code == 2 and "no restructure to undo" in nothing.output
    unknown = invoke("tree", "restructure", "--agent-id", "nobody")
    assert unknown.exit_code == 2 and "no memories" in unknown.output
    assert invoke("unseal", "abc", "--agent-id", AGENT).exit_code == 2
    assert invoke("unseal", "abc", "--agent-id", "../x").exit_code == 2
    assert snapshot(home) == before


def test_unseal_command(config):
    index = open_index(config)
    try:
        mem = AgentMemory(config, AGENT, archive=index)
        mem.init()
        index.put(AGENT, [{"id": f"t{i:02d}", "category": "chats", "created_at": time.time() - 40 * DAY,
                           "importance": 0.3, "metadata": {"session_id": "s"}, "text": f"turn {i} about tea"}
                          for i in range(10)])
        seal(mem, time.time())
        sid = index.get(AGENT, ["t00"])[0]["metadata"][SEALED_IN_KEY]
    finally:
        index.close()
    out = invoke("unseal", sid, "--agent-id", AGENT, "--json")
    assert out.exit_code == 0
    result = json.loads(out.output)
    assert result["id"] == sid and len(result["unsealed"]) == 10
    again = invoke("unseal", sid, "--agent-id", AGENT)
    assert again.exit_code == 2 and "no sealed summary" in again.output
