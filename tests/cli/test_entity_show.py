"""`memoryd entity show` through the real console script: a name as a person writes it, and an ambiguous one."""
from __future__ import annotations

import json
import os
from pathlib import Path

from test_knowledge import run


def test_show_by_the_name_people_write_and_ambiguity(home: Path) -> None:
    env = dict(os.environ)
    for text in ("We kicked off project Atlas today", "Notes from the sam-lee project", "Dinner with Sam Lee."):
        assert run("store", text, "--category", "work", env=env).returncode == 0
    shown = run("entity", "show", "Project Atlas", "--json", env=env)
    assert shown.returncode == 0 and json.loads(shown.stdout)["key"] == "project:atlas"
    assert json.loads(run("entity", "show", "ATLAS项目", "--json", env=env).stdout)["key"] == "project:atlas"
    both = run("entity", "show", "SAM_LEE", env=env)
    assert both.returncode == 2 and both.stdout == ""
    assert len(both.stderr.strip().splitlines()) == 1
    assert "person:sam lee" in both.stderr and "project:sam-lee" in both.stderr
