"""Three weeks of ordinary daily notes through the real console script: a person named with a cue once and bare
after that is one entity whose later mentions count, so they reach a page; a word the cues never named does not."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

MEMORYD = shutil.which("memoryd", path=str(Path(sys.executable).parent)) or "memoryd"
DAY = 86400

BARE = ["The revised quote from Marisol is still pending.", "Forwarded the tile samples to Marisol.",
        "Marisol prefers a call over email for anything urgent.", "Still waiting on Marisol for the invoice."]


def run(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run([MEMORYD, *args], capture_output=True, text=True, timeout=120, env=env)


def _note(ws: Path, day: str, lines: list[str]) -> None:
    (ws / "memory" / f"{day}.md").write_text("\n".join([f"# {day}", "", "## 09:00"] + [f"- {x}" for x in lines]) + "\n")


def test_three_weeks_of_notes_give_a_person_named_once_a_page(home: Path, tmp_path: Path) -> None:
    ws = Path(os.environ["MEMORYD_WORKSPACE"])
    (ws / "memory").mkdir(exist_ok=True)
    clock_file = tmp_path / "clock"
    start = time.time() - 21 * DAY
    env = dict(os.environ, MEMORYD_CLOCK_FILE=str(clock_file))
    for n in range(0, 21, 3):  # a note every third day, as people keep them
        day = time.strftime("%Y-%m-%d", time.gmtime(start + n * DAY))
        clock_file.write_text(str(start + n * DAY + 3600))
        first = ["Lunch with Marisol Quintero, she takes over the supplier contracts."] if n == 0 else []
        _note(ws, day, first + [BARE[n % len(BARE)], f"Watered the Ficus, day {n}."])
        assert run("ingest-daily", "--date", day, env=env).returncode == 0
    clock_file.write_text(str(start + 21 * DAY))

    listed = {e["name"]: e for e in json.loads(run("entity", "list", "--json", env=env).stdout)["entities"]}
    assert listed["Marisol Quintero"]["mentions"] >= 5 and "Marisol" not in listed  # one person, every note
    assert "Ficus" not in listed  # no cue ever named it: an echo never makes an entity

    reflected = json.loads(run("reflect", "--since", "30d", "--json", env=env).stdout)
    assert [e["name"] for e in reflected["entities"]] == ["Marisol Quintero"]
    page = (ws / "bank" / "entities" / "Marisol-Quintero.md").read_text()
    assert "supplier contracts" in page and "invoice" in page
