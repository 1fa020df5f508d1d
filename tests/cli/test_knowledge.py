"""`memoryd entity | reflect | digest` through the real console script: notes in, pages and a digest out, on a fixed clock."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

MEMORYD = shutil.which("memoryd", path=str(Path(sys.executable).parent)) or "memoryd"


def run(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run([MEMORYD, *args], capture_output=True, text=True, timeout=120, env=env)


def _note(ws: Path, day: str) -> None:
    lines = [f"# {day}", "", "09:00 Standup"] + [f"- Call {i} with Peter about warelay v1.4.{i}" for i in range(6)]
    lines += ["", "## Retain"] + [f"- W @Peter: fact {i} about the launch plan" for i in range(5)]
    lines += ["- O(c=0.9) @Peter: Prefers concise replies on WhatsApp",
              "- W @老王: 老王说预算是300元", "- W: We decided to move the launch to 2026-06-01"]
    (ws / "memory" / f"{day}.md").write_text("\n".join(lines) + "\n")


def test_entities_reflect_and_digest_from_notes(home: Path, tmp_path: Path) -> None:
    ws = Path(os.environ["MEMORYD_WORKSPACE"])
    clock_file = tmp_path / "clock"
    now = time.time()
    clock_file.write_text(str(now))
    env = dict(os.environ, MEMORYD_CLOCK_FILE=str(clock_file))
    day = time.strftime("%Y-%m-%d", time.gmtime(now))
    _note(ws, day)
    assert run("ingest-daily", "--date", day, env=env).returncode == 0

    listed = json.loads(run("entity", "list", "--json", env=env).stdout)
    by_name = {e["name"]: e for e in listed["entities"]}
    assert by_name["Peter"]["mentions"] == 12 and by_name["Peter"]["state"] == "active"
    assert listed["entities"][0]["name"] == "Peter" and "老王" in by_name
    text = run("entity", "list", env=env).stdout
    assert text.splitlines()[1].split()[-1] == "Peter"

    shown = json.loads(run("entity", "show", "@peter", "--json", env=env).stdout)
    assert shown["opinions"][0]["confidence"] == 0.9 and shown["timeline"][0]["date"] == day
    assert len(shown["facts"]) >= 11
    bad = run("entity", "show", "Nobody", env=env)
    assert bad.returncode == 2 and bad.stdout == "" and len(bad.stderr.strip().splitlines()) == 1

    reflected = json.loads(run("reflect", "--since", "7d", "--json", env=env).stdout)
    assert [e["name"] for e in reflected["entities"]] == ["Peter"]
    page = ws / "bank" / "entities" / "Peter.md"
    assert "Prefers concise replies" in page.read_text()
    opinions = (ws / "bank" / "opinions.md").read_text()
    assert "(c=0.90) " in opinions and "Prefers concise replies on WhatsApp" in opinions
    assert (home / "agents" / "default" / "bank" / "entities" / "Peter.md").is_file()
    assert run("reflect", "--since", "soon", env=env).returncode == 2

    first = json.loads(run("digest", "--json", env=env).stdout)
    assert first["date"] == day and first["stored"] and first["memories"] >= 14
    assert any("2026-06-01" in d for d in first["decided"]) and first["entities"][0]["name"] == "Peter"
    second = json.loads(run("digest", "--date", day, "--json", env=env).stdout)
    assert second["id"] == first["id"]
    found = json.loads(run("retrieve", "Daily digest", "--json", "--limit", "20", env=env).stdout)["results"]
    assert len([r for r in found if r["id"] == first["id"]]) == 1
    clock_file.write_text(str(now + 86400))  # tomorrow: "yesterday" is the day of the notes
    assert json.loads(run("digest", "--date", "yesterday", "--json", env=env).stdout)["id"] == first["id"]
    empty = run("digest", env=env)
    assert empty.returncode == 0 and "no digest" in empty.stdout
    assert run("digest", "--date", "2026-02-30", env=env).returncode == 2


def test_digest_reaches_render_targets_bounded(home: Path) -> None:
    ws = Path(os.environ["MEMORYD_WORKSPACE"])
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text('[render]\ntargets = ["openclaw"]\n')
    env = dict(os.environ)
    assert run("store", "We decided to ship warelay with Alice", "--category", "work", env=env).returncode == 0
    assert run("digest", env=env).returncode == 0
    rendered = (ws / "MEMORY.md").read_text()
    assert "### Daily digest" in rendered and "We decided to ship warelay" in rendered
    assert len(rendered.encode("utf-8")) <= 5 * 1024


def test_unknown_agent_is_a_usage_error(home: Path) -> None:
    out = run("entity", "list", "--agent-id", "ghost", "--json", env=dict(os.environ))
    assert out.returncode == 2 and json.loads(out.stdout)["error"]
