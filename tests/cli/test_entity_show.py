"""`memoryd entity show` through the real console script: a name as a person writes it, and an ambiguous one."""
from __future__ import annotations

import json
import os
import sqlite3
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


def test_a_first_name_and_the_full_name_are_one_entity_until_a_second_full_name(home: Path) -> None:
    env = dict(os.environ)
    for text in ("Lunch with Jonas Vogt about the van", "Jonas said the van is fixed",
                 "Told Jonas the keys are on the hook"):
        assert run("store", text, "--category", "people", env=env).returncode == 0
    listed = {e["name"]: e for e in json.loads(run("entity", "list", "--json", env=env).stdout)["entities"]}
    assert "Jonas" not in listed and listed["Jonas Vogt"]["mentions"] == 3
    shown = json.loads(run("entity", "show", "Jonas", "--json", env=env).stdout)
    assert shown["key"] == "person:jonas vogt" and len(shown["facts"]) == 3
    # the near miss: a second Jonas with another surname, and the first name alone no longer says which
    assert run("store", "Dinner with Jonas Hemmerle on Friday", "--category", "people", env=env).returncode == 0
    listed = {e["name"]: e for e in json.loads(run("entity", "list", "--json", env=env).stdout)["entities"]}
    assert listed["Jonas"]["mentions"] == 2 and listed["Jonas Vogt"]["mentions"] == 1 and "Jonas Hemmerle" in listed


def test_an_unknown_name_is_refused_and_changes_nothing(home: Path) -> None:
    env = dict(os.environ)
    assert run("store", "Dinner with Sam Lee at the harbour", "--category", "social", env=env).returncode == 0
    def dump() -> str:
        conn = sqlite3.connect(home / "cold.db")   # rows, WAL included: the file alone may not show a write
        try:
            return "\n".join(conn.iterdump())
        finally:
            conn.close()

    before = dump()
    refused = run("entity", "show", "8fa36681593e7afa", "--json", env=env)
    assert refused.returncode == 2 and dump() == before   # nothing read, nothing written
    assert run("entity", "show", "Sam Lee", "--json", env=env).returncode == 0  # a name a memory says: read, found
