"""Over the state dir the real OpenClaw 2026.9.6 wrote: what was said only in chat is memory; scaffolding is not."""
from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from memoryd.cli.main import cli
from memoryd.tiers.memory.agent import AgentMemory
from memoryd.tiers.base.config import load_config
from openclaw_fixture import DB_REL, SCAFFOLDING, append_events, copy_state, grep_home, session_id, user_message

pytestmark = pytest.mark.usefixtures("keyword_mode")  # the subject is what is ingested from OpenClaw, not ranking


@pytest.fixture
def oc(home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    state = copy_state(tmp_path / "openclaw-state")
    monkeypatch.setenv("OPENCLAW_STATE_DIR", str(state))
    monkeypatch.delenv("MEMORYD_WORKSPACE")  # the workspace is the one OpenClaw's config names
    return state


def run(*args: str) -> dict:
    result = CliRunner().invoke(cli, [*args, "--json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc.pop("schema") == 1
    return doc


def retrieve(query: str, agent: str = "main") -> list[dict]:
    return run("retrieve", query, "--agent-id", agent, "--limit", "10")["results"]


def test_what_was_said_only_in_chat_is_retrievable_from_main(oc: Path, home: Path) -> None:
    report = run("openclaw", "sync")
    [agent] = report["agents"]
    assert (agent["openclaw_agent"], agent["agent_id"], agent["errors"]) == ("main", "main", [])
    assert agent["segments"] == 3  # two resets close two segments; the end closes the third
    assert (home / "keys" / "main.key").exists()  # first seen through OpenClaw: initialised like init
    assert any("Signal" in h["text"] and h["tier"] in ("hot", "warm") for h in retrieve("urgent Signal"))
    assert any("meetings between 10:00 and 15:00" in h["text"] for h in retrieve("meetings weekdays"))
    assert any("Grafana" in h["text"] and h["tier"] == "warm" for h in retrieve("Grafana dashboard"))
    assert any("Frankfurt" in h["text"] and h["tier"] == "warm" for h in retrieve("staging cluster Frankfurt"))
    assert any("绿茶" in h["text"] for h in retrieve("绿茶"))
    run("consolidate", "--mode", "full", "--agent-id", "main")  # scores never make a task a "lesson"
    hot = AgentMemory(load_config(), "main").read_state()["hot"]
    assert any("acme-tools.io" in t["text"] and "2026-12-01" in t["text"] for t in hot["active_context"]["tasks"])
    assert sum("Priya" in e["text"] for e in hot["active_context"]["events"]) == 1  # chat + note: one event
    assert any("migrations on a Friday" in x["text"] for x in hot["critical_lessons"])
    # only the lesson (said in chat, and again by the flush in the daily note: once); no task, no preference
    assert len(hot["critical_lessons"]) == 1 and "migrations on a Friday" in hot["critical_lessons"][0]["text"]
    assert "Signal" in hot["owner_profile"]["urgent contact"] and "中文" in hot["owner_profile"]["language"]
    assert not (home / "agents" / "default").exists()  # nothing split off to another agent


def test_no_scaffolding_anywhere_under_memoryd_home(oc: Path, home: Path) -> None:
    run("openclaw", "sync")
    run("consolidate", "--mode", "full", "--agent-id", "main")
    assert grep_home(home, SCAFFOLDING) == []
    cold = sqlite3.connect(home / "cold.db")
    roles = {r[0] for r in cold.execute("SELECT category FROM memories WHERE agent_id = 'main'")}
    assert roles <= {"conversations/user", "conversations/assistant"}
    texts = [r[0] for r in cold.execute("SELECT text FROM memories")]
    assert any(t.startswith("Here is the agenda draft") for t in texts)  # the envelope stripped, the words kept


def test_session_and_daily_notes_are_ingested_without_duplicating_turns(oc: Path, home: Path) -> None:
    first = run("openclaw", "sync")["agents"][0]
    notes = sorted(p.name for p in (oc / "workspace" / "memory").glob("*.md"))
    assert first["notes"] == len(notes) >= 3
    cold = sqlite3.connect(home / "cold.db")
    count = cold.execute("SELECT count(*) FROM memories").fetchone()[0]
    assert count == first["cold"]  # the session notes repeat turns the store already gave: nothing new
    warm = AgentMemory(load_config(), "main").read_state()["warm"]
    daily = [e for e in warm["entries"] if e["metadata"].get("source", "").startswith("memory/2026-11-23.md#L")]
    assert daily and all(e["metadata"]["date"] == "2026-11-23" for e in daily)
    # a note line that restates what was said in chat is merged into that memory, as one of its sources (issue 21)
    daily += [e for e in warm["entries"] if any(s["source"].startswith("memory/2026-11-23.md#L")
                                                for s in e["metadata"].get("sources", []))]
    assert not any(e["text"].startswith(("Pre-compaction", "Decisions:", "Tasks:")) for e in daily)
    assert {e["category"] for e in daily} >= {"decisions", "tasks"}
    # a session note of a session the store no longer has: its turns come in with their source and date
    note = (oc / "workspace" / "memory" / notes[1]).read_text()
    sid = session_id(oc / DB_REL)
    (oc / "workspace" / "memory" / "2026-11-22-vendor-pitch.md").write_text(
        note.replace(sid, "0000-gone-session").replace("2026-11-23", "2026-11-22"))
    second = run("openclaw", "sync")["agents"][0]
    assert second["notes"] == 1 and second["cold"] > 0
    rows = cold.execute("SELECT metadata FROM memories WHERE metadata LIKE '%vendor-pitch%'").fetchall()
    assert rows and all(json.loads(r[0])["date"] == "2026-11-22" for r in rows)


def test_second_sync_changes_nothing(oc: Path, home: Path) -> None:
    run("openclaw", "sync")
    agent_dir = home / "agents" / "main"
    before = {p.name: p.read_bytes() for p in agent_dir.glob("*.json") if p.name != "openclaw-state.json"}
    cold_before = sqlite3.connect(home / "cold.db").execute("SELECT count(*), sum(length(text)) FROM memories").fetchone()
    again = run("openclaw", "sync")["agents"][0]
    assert (again["segments"], again["turns"], again["cold"], again["warm"], again["hot"], again["notes"]) == (0, 0, 0, 0, [], 0)
    after = {p.name: p.read_bytes() for p in agent_dir.glob("*.json") if p.name != "openclaw-state.json"}
    assert after == before
    assert sqlite3.connect(home / "cold.db").execute("SELECT count(*), sum(length(text)) FROM memories").fetchone() == cold_before


def test_compressed_rows_are_read(oc: Path, home: Path) -> None:
    db = oc / DB_REL
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    [(zseq,)] = conn.execute("SELECT seq FROM transcript_events WHERE event_zstd IS NOT NULL").fetchall()
    conn.close()  # the real OpenClaw compressed this row (its doctor rewrote the legacy envelope labels)
    run("openclaw", "sync")
    cold = sqlite3.connect(home / "cold.db")
    parts = cold.execute("SELECT text FROM memories WHERE json_extract(metadata, '$.seq') = ? "
                         "AND category = 'conversations/user' ORDER BY json_extract(metadata, '$.part')",
                         (zseq,)).fetchall()
    text = " ".join(p[0] for p in parts)  # over 4 KB: kept in parts
    assert len(parts) == 2 and text.startswith("Here is the agenda draft for Thursday's ops sync")
    assert "Item 30" in text and "wamid" not in text
    long_text = "Decision: we keep the on-call handbook in the ops wiki. " + " ".join(
        f"Section {i} covers the escalation path for service {i} in detail." for i in range(40))
    append_events(db, session_id(db), [user_message(long_text)], compress=True)
    report = run("openclaw", "sync")["agents"][0]
    assert report["turns"] == 1 and report["warm"] == 1
    hits = retrieve("on-call handbook ops wiki")
    assert any(h["text"].startswith("Decision: we keep the on-call handbook") for h in hits)


def test_status_shows_cursor_last_ingest_and_skipped(oc: Path, home: Path) -> None:
    run("openclaw", "sync")
    status = run("openclaw", "status")
    [row] = status["agents"]
    sid = session_id(oc / DB_REL)
    assert row["cursor"][sid] >= 50 and row["pending_events"] == 0 and row["error"] is None
    assert row["last_ingest"] and row["skipped"]["internal turn"] >= 3 and row["skipped"]["system message"] >= 1
    text = CliRunner().invoke(cli, ["openclaw", "status"]).output
    assert "main → agent main" in text and "0 event(s) not yet taken" in text
    assert f"cursor {sid}: seq {row['cursor'][sid]}" in text  # where reading goes on, per session
    assert f"internal turn {row['skipped']['internal turn']}" in text.split("skipped: ")[1]  # what was left out
    line = next(ln for ln in CliRunner().invoke(cli, ["status"]).output.splitlines() if "  openclaw main:" in ln)
    assert f"cursor {sid[:8]}…#{row['cursor'][sid]}" in line and "internal turn" in line


def test_llm_mode_is_configured_in_config_toml(oc: Path, home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text('[openclaw]\ndistill = "llm"\n')
    result = CliRunner().invoke(cli, ["openclaw", "sync"])
    assert result.exit_code == 2 and "needs MEMORYD_LLM_ENDPOINT" in result.stderr
    (home / "config.toml").write_text('[openclaw]\ndistill = "smart"\n')
    result = CliRunner().invoke(cli, ["openclaw", "sync"])
    assert result.exit_code == 2 and 'distill must be "rule" or "llm"' in result.stderr
    monkeypatch.setenv("MEMORYD_LLM_ENDPOINT", "http://127.0.0.1:9/v1")  # nothing listens: rule mode, said so
    (home / "config.toml").write_text('[openclaw]\ndistill = "llm"\n')
    report = run("openclaw", "sync")["agents"][0]
    assert report["warm"] > 5 and any("used rule mode" in w for w in report["warnings"])


def test_flush_of_a_session_store_is_idempotent_with_the_sync(oc: Path, home: Path) -> None:
    db = oc / DB_REL
    first = run("flush", "--session", str(db))
    assert (first["agent_id"], first["segments"], first["errors"]) == ("main", 3, [])
    again = run("openclaw", "sync", "--agent", "main")["agents"][0]
    assert again["turns"] == 0 and again["notes"] == 3  # the store was taken; the notes were not yet
    append_events(db, session_id(db), [user_message("Decision: the quarterly review becomes a half-day offsite.")])
    assert run("flush", "--session", str(db))["turns"] == 1
    assert run("flush", "--session", str(db))["turns"] == 0
