"""validate: deployments/links/commands without URL or command, missing next steps; exit 0 with warnings."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from memoryd.tiers.base.errors import UsageError
from memoryd.tiers.distillation.validate import validate_file, validate_note

INCOMPLETE = """# 2026-02-18

## 2:15 PM - Afternoon
Deployed v2.3.0 to production. No issues reported.

## 3:00 PM - Docs
See the docs for the new API.

## 4:00 PM - Maintenance
Ran the migration script on the database.
"""

COMPLETE = """# 2026-02-18

## 2:15 PM - Release
Deployed v2.3.0 to https://prod.example.com with `make deploy`.

## 3:00 PM - Docs
The docs are at https://docs.example.com/api.

## Next steps
- [ ] monitor error rates
"""


def kinds(warnings: list[dict]) -> list[tuple[str, int | None]]:
    return [(w["kind"], w["line"]) for w in warnings]


def test_incomplete_note_gets_each_warning() -> None:
    ws = validate_note(INCOMPLETE)
    assert kinds(ws) == [("deployment_without_url", 4), ("link_without_url", 6),
                         ("command_without_command", 10), ("missing_next_steps", None)]
    assert ws[0]["section"] == "2:15 PM - Afternoon" and ws[0]["mention"] == "Deployed"
    assert all(w["message"] and w["suggestion"] for w in ws)


def test_complete_note_has_no_warnings() -> None:
    assert validate_note(COMPLETE) == []


def test_chinese_note() -> None:
    note = "## 部署\n今天部署了新版本。\n\n## 文档\n文档已经更新。\n\n## 维护\n运行了迁移脚本。\n"
    assert kinds(validate_note(note)) == [("deployment_without_url", 1), ("link_without_url", 4),
                                          ("command_without_command", 8), ("missing_next_steps", None)]
    fixed = ("## 部署\n今天部署了新版本 https://prod.example.cn 。\n\n## 维护\n运行了 `python migrate.py`。\n\n"
             "## 下一步\n明天检查日志。\n")
    assert validate_note(fixed) == []


def test_one_missing_url_gives_one_warning_per_section() -> None:
    ws = validate_note("## Release\nDeployed the dashboard, link in chat.\nNext: watch it.\n")
    assert kinds(ws) == [("deployment_without_url", 1)]


def test_commands_in_fences_and_prompts_count() -> None:
    note = "## Ops\nRan this:\n```\nsystemctl --user restart memoryd\n```\nNext steps: none.\n"
    assert validate_note(note) == []
    assert validate_note("## Ops\nRestarted it with $ systemctl restart nginx\nWill check tomorrow.\n") == []


def test_negated_mentions_and_empty_notes() -> None:
    assert validate_note("## Plan\nWe did not deploy anything today. Next: deploy tomorrow.\n") == []
    assert validate_note("") == []
    assert validate_note("# 2026-02-18\n") == []


def test_validate_file_errors(tmp_path: Path) -> None:
    with pytest.raises(UsageError):
        validate_file(tmp_path / "missing.md")
    with pytest.raises(UsageError):
        validate_file(tmp_path)
    bad = tmp_path / "bin.md"
    bad.write_bytes(b"\xff\xfe\xfa")
    with pytest.raises(UsageError):
        validate_file(bad)


def test_cli_validate(home: Path, tmp_path: Path) -> None:
    from memoryd.cli.main import cli

    note = tmp_path / "2026-02-18.md"
    note.write_text(INCOMPLETE, encoding="utf-8")
    res = CliRunner().invoke(cli, ["validate", str(note)])
    assert res.exit_code == 0
    assert f"{note}:4: warning: mentions a deployment" in res.stdout
    assert res.stdout.count("warning:") == 4
    res = CliRunner().invoke(cli, ["validate", str(note), "--json"])
    doc = json.loads(res.stdout)
    assert res.exit_code == 0 and doc["ok"] is False and len(doc["warnings"]) == 4
    good = tmp_path / "good.md"
    good.write_text(COMPLETE, encoding="utf-8")
    res = CliRunner().invoke(cli, ["validate", str(good), "--json"])
    assert res.exit_code == 0 and json.loads(res.stdout) == {"schema": 1, "file": str(good), "ok": True, "warnings": []}
    res = CliRunner().invoke(cli, ["validate", str(tmp_path / "missing.md")])
    assert res.exit_code == 2 and "cannot read" in res.stderr and res.stdout == ""
