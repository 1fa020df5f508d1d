"""The kinds on the command line and through MCP: store --kind/--confidence/--basis, retrieve --kind/--history with
kind, confidence and superseded_by in --json, export/import lines with kind and confidence, bad input exit 2."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from clihelp import snapshot
from memoryd.cli.main import cli


def run(*args: str, code: int = 0) -> dict:
    res = CliRunner().invoke(cli, [*args, "--json"])
    assert res.exit_code == code, res.output
    return json.loads(res.stdout) if code == 0 else {"stderr": res.stderr}


@pytest.fixture(autouse=True)
def _home(home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("MEMORYD_RETRIEVAL_MODE", "keyword")
    return home


def test_store_and_retrieve_by_kind_with_confidence() -> None:
    op = run("store", "Tabs beat spaces for Go code", "--category", "opinions", "--kind", "opinion",
             "--confidence", "0.7")
    belief = run("store", "The printer on floor 2 is broken", "--category", "office", "--kind", "belief",
                 "--basis", "Sam said so")
    assert op["metadata"]["memory_kind"] == "opinion" and belief["metadata"]["basis"] == "Sam said so"
    found = run("retrieve", "--kind", "opinion")["results"]
    assert [(r["id"], r["kind"], r["confidence"]) for r in found] == [(op["id"], "opinion", 0.7)]
    found = run("retrieve", "printer", "--kind", "belief")["results"]
    assert [(r["id"], r["kind"], r["confidence"]) for r in found] == [(belief["id"], "belief", 0.5)]
    assert run("retrieve", "printer", "--kind", "fact")["results"] == []
    plain = CliRunner().invoke(cli, ["retrieve", "tabs"])
    assert "opinion c=0.70" in plain.stdout


@pytest.mark.parametrize("args,message", [
    (["--kind", "rumour"], "unknown kind 'rumour'"), (["--confidence", "0.4"], "need --kind belief"),
    (["--kind", "fact", "--confidence", "0.4"], "a fact has no confidence"),
    (["--kind", "belief", "--confidence", "1.5"], "confidence must be a number from 0 to 1"),
    (["--kind", "opinion", "--basis", "x"], "only a belief does")])
def test_a_bad_kind_is_one_line_and_exit_2_with_nothing_written(home: Path, args: list[str], message: str) -> None:
    run("store", "a fact", "--category", "x")
    before = snapshot(home)
    res = CliRunner().invoke(cli, ["store", "another fact", "--category", "x", *args])
    assert res.exit_code == 2 and message in res.stderr and len(res.stderr.strip().splitlines()) == 1
    assert snapshot(home) == before
    assert CliRunner().invoke(cli, ["retrieve", "x", "--kind", "gossip"]).exit_code == 2


def test_a_replaced_value_keeps_its_place_under_the_current_one() -> None:
    old = run("store", "Our wifi password is hunter-blue-7", "--category", "home")
    new = run("store", "We changed the wifi password from hunter-blue-7 to otter-green-2", "--category", "home")
    current = run("retrieve", "wifi password")["results"]
    ids = [r["id"] for r in current]
    assert ids[:2] == [new["id"], old["id"]] and current[1]["superseded_by"] == new["id"]  # found, never dropped
    assert "superseded_by" not in current[0]
    assert [(st["stage"], st["did"], st["current_of"]) for st in current[0]["stages"]] == [
        ("current", "placed above", old["id"])]
    past = run("retrieve", "wifi password", "--history")["results"]
    assert {r["id"] for r in past} == {new["id"], old["id"]} and "stages" not in past[0]  # as the words found
    again = run("store", "Remember: we changed the wifi password from hunter-blue-7 to otter-green-2",
                "--category", "notes")
    assert again["id"] == new["id"] and again["merged"]


def test_export_lines_carry_kind_and_import_reads_a_top_level_kind(tmp_path: Path) -> None:
    run("store", "I guess the train is late", "--category", "travel")
    out = tmp_path / "out.jsonl"
    run("export", str(out))
    [line] = [json.loads(x) for x in out.read_text().splitlines() if '"warm"' in x]
    assert (line["kind"], line["confidence"]) == ("belief", 0.4)
    src = tmp_path / "in.jsonl"
    src.write_text(json.dumps({"format": "memoryd-export", "version": 1, "agent_id": "x"}) + "\n" + json.dumps(
        {"type": "cold", "kind": "opinion", "confidence": 0.8, "entry": {
            "id": "abc0000000000001", "text": "trains beat planes", "category": "travel", "importance": 0.5,
            "created_at": 1700000000}}) + "\n")
    run("import", str(src), "--agent-id", "other")
    [r] = run("retrieve", "trains planes", "--agent-id", "other")["results"]
    assert (r["kind"], r["confidence"], r["tier"]) == ("opinion", 0.8, "cold")
    bad = tmp_path / "bad.jsonl"
    bad.write_text(src.read_text().replace('"opinion"', '"hunch"'))
    res = CliRunner().invoke(cli, ["import", str(bad), "--agent-id", "third"])
    assert res.exit_code == 2 and "line 2: unknown kind 'hunch'" in res.stderr
    assert CliRunner().invoke(cli, ["retrieve", "trains", "--agent-id", "third", "--json"]).stdout.count('"id"') == 0


def test_mcp_tools_take_kind_and_confidence(config) -> None:
    from memoryd.daemon.api import in_process
    from memoryd.daemon.mcp_tools import BY_NAME, Tools
    from memoryd.tiers.base.errors import UsageError

    assert BY_NAME["memory_store"].input_schema["properties"]["kind"]["enum"][3] == "opinion"
    tools = Tools(in_process(config), "default")
    stored = tools.call("memory_store", {"text": "Rust is worth the compile times", "kind": "opinion",
                                         "confidence": 0.65})
    assert stored["entry"]["metadata"]["confidence"] == 0.65
    found = tools.call("memory_search", {"kind": "opinion"})["results"]
    assert [(r["kind"], r["confidence"]) for r in found] == [("opinion", 0.65)]
    with pytest.raises(UsageError, match="must be one of"):
        tools.call("memory_search", {"query": "rust", "kind": "guess"})
