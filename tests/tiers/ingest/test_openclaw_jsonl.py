"""Older OpenClaw JSONL layouts: live files, `.reset.` renames in the quiet window, `.zst` archives, bad lines, flush."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from conversation_gen import generate, to_jsonl
from memoryd.cli.main import cli
from memoryd.tiers.memory.agent import AgentMemory
from memoryd.tiers.ingest.openclaw.install import Install
from memoryd.tiers.ingest.openclaw.agent_sync import AgentSync


def _line(role: str, text: str, **extra) -> str:
    return json.dumps({"type": "message", "timestamp": "2026-11-20T10:00:00Z",
                       "message": {"role": role, "content": [{"type": "text", "text": text}], **extra}}) + "\n"


@pytest.fixture
def oc(config, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    state = tmp_path / "openclaw"
    (state / "agents" / "main" / "sessions").mkdir(parents=True)
    monkeypatch.setenv("OPENCLAW_STATE_DIR", str(state))
    monkeypatch.delenv("MEMORYD_SESSIONS_DIR", raising=False)
    return state


def _sync(config, archive, close_open: bool = True) -> dict:
    agent = Install(config).agent("main")
    return AgentSync(AgentMemory(config, "main", archive=archive), agent, close_open=close_open).run(("jsonl",))


def _cold_texts(archive) -> list[str]:
    return [e["text"] for e in archive.iter_entries("main")]


def test_reset_rename_inside_quiet_window_is_read_to_its_end(config, archive, oc: Path) -> None:
    live = oc / "agents" / "main" / "sessions" / "abc.jsonl"
    live.write_text(_line("user", "We decided to use Grafana for dashboards.") + _line("assistant", "Noted."))
    first = _sync(config, archive)
    assert first["turns"] == 2 and first["warm"] == 1
    with open(live, "a") as fh:  # the conversation goes on, then OpenClaw renames it on /new
        fh.write(_line("user", "Remind me to renew the TLS certificate by 2026-12-03."))
        fh.write(_line("assistant", "[[reply_to_current]] I will remind you.")[:-1])  # final line, no newline
    live.rename(live.with_name("abc.jsonl.reset.2026-11-20T10-05-00.000Z"))
    second = _sync(config, archive)
    assert second["turns"] == 2  # only the new turns, the last line included (a renamed file is final)
    assert "I will remind you." in _cold_texts(archive)
    hot = AgentMemory(config, "main").read_state()["hot"]
    assert any("TLS certificate" in t["text"] for t in hot["active_context"]["tasks"])
    assert _sync(config, archive)["turns"] == 0


def test_zst_archive_and_live_line_being_written(config, archive, oc: Path) -> None:
    import zstandard

    sessions = oc / "agents" / "main" / "sessions"
    conv = generate(40, seed=11)
    raw = to_jsonl(conv.events).encode()
    (sessions / "old.jsonl.deleted.2026-11-01T00-00-00.000Z.9f3a.zst").write_bytes(zstandard.compress(raw))
    (sessions / "live.jsonl").write_text(_line("user", "I prefer tea over coffee in the morning.")
                                         + '{"type": "message", "message": {"role": "user", "content": "half wri')
    report = _sync(config, archive)
    assert report["turns"] == conv.turns + 1 and not report["errors"]
    assert "half wri" not in " ".join(_cold_texts(archive))  # a live file's torn last line waits


def test_binary_and_huge_lines_are_skipped(config, archive, oc: Path) -> None:
    path = oc / "agents" / "main" / "sessions" / "bad.jsonl"
    with open(path, "wb") as fh:
        fh.write(os.urandom(3000).replace(b"\n", b"x") + b"\n")
        fh.write(b'{"type": "message", "message": {"role": "user", "content": "' + b"A" * (10 * 1024 * 1024) + b'"}}\n')
        fh.write(_line("user", "Lesson learned: keep the runbook next to the alert.").encode())
    report = _sync(config, archive)
    assert report["turns"] == 1 and report["skipped"] == {"unreadable line": 1, "line over 4 MB": 1}
    assert max(len(t) for t in _cold_texts(archive)) < 5000


def test_flush_command_is_idempotent_with_the_sync(config, archive, oc: Path) -> None:
    path = oc / "agents" / "main" / "sessions" / "s9.jsonl"
    path.write_text(_line("user", "Decision: the offsite is in Porto this year.")
                    + _line("user", "[OpenClaw heartbeat poll]", provenance={"kind": "internal_system"})
                    + _line("assistant", "HEARTBEAT_OK"))
    runner = CliRunner()
    first = runner.invoke(cli, ["flush", "--session", str(path), "--json"])
    assert first.exit_code == 0, first.output
    report = json.loads(first.output)
    assert (report["agent_id"], report["turns"], report["warm"]) == ("main", 1, 1)  # the owner of the file
    again = runner.invoke(cli, ["flush", "--session", str(path), "--json"])
    assert json.loads(again.output)["turns"] == 0
    assert _sync(config, archive)["turns"] == 0
    missing = runner.invoke(cli, ["flush", "--session", str(path.with_name("nope.jsonl"))])
    assert missing.exit_code == 2 and "no session file" in missing.output
    other = path.with_name("notes.txt")
    other.write_text("hello")
    wrong = runner.invoke(cli, ["flush", "--session", str(other)])
    assert wrong.exit_code == 2 and "not a session transcript" in wrong.output
