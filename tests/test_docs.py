"""The docs a new reader relies on stay true: README within its size, every module in the architecture's map."""
from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_readme_is_short_and_starts_with_the_two_commands():
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 250
    commands = [line for line in lines[:8] if line.startswith("python3 -m venv")]
    assert len(commands) == 2 and "pytest" in commands[1]


def test_every_module_is_in_the_architecture_module_map():
    text = (ROOT / "docs" / "ARCHITECTURE.md").read_text(encoding="utf-8")
    section = text[text.index("## Module map"):]
    section = section[: section.index("\n## ", 5)]
    listed: set[str] = set()
    package = ""
    for line in section.splitlines():
        head = re.match(r"\*\*([a-z_/]+)/\*\*", line)
        if head:
            package = head.group(1)
        item = re.match(r"- `([a-z_0-9]+)`", line)
        if item and package:
            listed.add(f"{package}/{item.group(1)}")
    modules = {p.relative_to(ROOT).with_suffix("").as_posix() for d in ("tiers", "sync", "daemon", "cli")
               for p in (ROOT / d).rglob("*.py") if p.name != "__init__.py"}
    assert sorted(modules - listed) == []
    assert sorted(listed - modules) == []
