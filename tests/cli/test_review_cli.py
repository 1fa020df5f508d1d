"""`memoryd store --supersedes` and `memoryd review [resolve|undo]` through the real console script: --json shapes,
the knowledge log, undo, and bad input as one line on stderr with exit 2 and nothing written."""
from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from clihelp import MEMORYD, snapshot
from memoryd.daemon.engine import Engine
from memoryd.tiers.base.config import load_config
from memoryd.tiers.knowledge.maintain import maintain

DAY = 86400.0
T0 = 1_790_000_000.0


@pytest.fixture
def env(home: Path) -> dict[str, str]:
    e = dict(os.environ, MEMORYD_RETRIEVAL_MODE="keyword")
    e.pop("MEMORYD_SOCKET", None)
    run(e, "init")
    return e


def run(env: dict[str, str], *args: str, code: int = 0) -> dict:
    res = subprocess.run([MEMORYD, *args, "--json"], env=env, capture_output=True, text=True, timeout=60)
    assert res.returncode == code, res.stderr
    return json.loads(res.stdout) if code == 0 else {"stderr": res.stderr}


def _store_at(env: dict[str, str], text: str, at: float) -> str:
    with Engine(load_config(env)).memory("default", clock=lambda: at) as mem:
        return mem.store(text, "notes", 0.5)["id"]


def test_store_supersedes_marks_the_old_one_and_logs_it(env: dict[str, str], home: Path) -> None:
    old = run(env, "store", "The boat club meets in the red shed", "--category", "club")["id"]
    other = run(env, "store", "The boat club dues are paid in March", "--category", "club")["id"]
    new = run(env, "store", "The boat club meets at the lock keeper's cottage", "--category", "club",
              "--supersedes", old, "--supersedes", other)
    assert new["superseded"] == [old, other] and new["metadata"]["supersedes"] == sorted([old, other])
    found = {r["id"]: r for r in run(env, "retrieve", "boat club meets", "--history")["results"]}
    assert found[old]["superseded_by"] == new["id"] and found[new["id"]].get("superseded_by") is None
    rows = [json.loads(line) for line in (home / "agents" / "default" / "knowledge.jsonl").read_text().splitlines()]
    assert {(r["id"], r["by"], r["how"]) for r in rows if r["kind"] == "supersede"} == {
        (old, new["id"], "agent"), (other, new["id"], "agent")}


def test_an_unknown_superseded_id_stores_nothing(env: dict[str, str], home: Path) -> None:
    old = run(env, "store", "The boat club meets in the red shed", "--category", "club")["id"]
    before = snapshot(home)
    res = subprocess.run([MEMORYD, "store", "The club meets elsewhere", "--category", "club", "--supersedes", old,
                          "--supersedes", "0000dead"], env=env, capture_output=True, text=True, timeout=60)
    assert res.returncode == 2 and res.stdout == ""
    assert res.stderr.strip().splitlines() == ["memoryd: --supersedes: no memory with id '0000dead' (memoryd "
                                               "retrieve --history shows ids)"]
    assert snapshot(home) == before


def test_review_lists_resolves_and_undoes(env: dict[str, str], home: Path) -> None:
    old = _store_at(env, "The night bus to Orrin leaves from stop 12", T0)
    new = _store_at(env, "The night bus to Orrin now leaves from the station forecourt", T0 + DAY)
    assert run(env, "review")["questions"] == []
    with Engine(load_config(env)).memory("default") as mem:
        maintain(mem)
    (q,) = run(env, "review")["questions"]
    assert (q["kind"], [m["id"] for m in q["members"]]) == ("same_thing", [old, new])
    human = subprocess.run([MEMORYD, "review"], env=env, capture_output=True, text=True, timeout=60).stdout
    assert q["id"] in human and "now leaves from the station forecourt" in human
    done = run(env, "review", "resolve", q["id"], "current")
    assert done == {"schema": 1, "id": q["id"], "action": "current", "changed": sorted([old, new]),
                    "members": [old, new]}
    assert run(env, "review")["questions"] == []
    ranked = run(env, "retrieve", "night bus Orrin", "--history")["results"]
    assert [r["id"] for r in ranked][:2] == [new, old] and ranked[1]["superseded_by"] == new
    assert run(env, "review", "undo", q["id"])["undone"] == "current"
    assert [x["id"] for x in run(env, "review")["questions"]] == [q["id"]]
    assert not any(r.get("superseded_by") for r in run(env, "retrieve", "night bus Orrin")["results"])


@pytest.mark.parametrize("args,message", [
    (["resolve", "abc", "maybe"], "'maybe' is not one of 'current', 'both', 'merge', 'dismiss'"),
    (["resolve", "abc", "both"], "no open review question 'abc'"),
    (["undo", "abc"], "no answered review question 'abc'")])
def test_bad_review_input_is_exit_2_and_changes_nothing(env: dict[str, str], home: Path, args: list[str],
                                                        message: str) -> None:
    before = snapshot(home)
    res = subprocess.run([MEMORYD, "review", *args], env=env, capture_output=True, text=True, timeout=60)
    assert res.returncode == 2 and message in res.stderr
    assert snapshot(home) == before
