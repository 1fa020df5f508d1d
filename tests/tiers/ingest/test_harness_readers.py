"""Claude Code transcripts, its memory files and Codex rollouts, read from what the real CLIs wrote (tests/fixtures/harnesses)."""
from __future__ import annotations

import json
from pathlib import Path

from memoryd.tiers.ingest.claude_code.memory_files import memory_files, parse_memory_file
from memoryd.tiers.ingest.claude_code.transcript import read_transcript, session_of, transcript_files
from memoryd.tiers.ingest.codex.rollout import read_rollout, rollout_files
from memoryd.tiers.ingest.codex.rollout import session_of as rollout_session

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "harnesses"
CLAUDE = FIXTURES / "claude" / "projects"
CODEX = FIXTURES / "codex" / "sessions"
# never memory: harness machinery that sits in the files between the words
NOISE = ("<system-reminder>", "<command-name>", "<local-command", "<task-notification>", "<summary>",
         "environment_context", "This session is being continued", "Chunk ID", "Bash completed", "File created",
         "skills_instructions", "CONTEXT CHECKPOINT")


def _claude_turns() -> dict[str, list]:
    out = {}
    for path in transcript_files(CLAUDE):
        sid, sub = session_of(path)
        got = read_transcript(path.read_bytes(), 0, sid, sub)
        assert got.end == path.stat().st_size and got.cwd == "/home/dev/widgets"
        out[sid] = got.parsed
    return out


def test_claude_code_person_and_assistant_only() -> None:
    parsed = _claude_turns()
    said = [(t.role, t.text) for p in parsed.values() for t in p.turns]
    users = [text for role, text in said if role == "user"]
    assert "I prefer tabs over spaces in every Python file I write." in users
    assert "Remember that the staging database listens on port 5433." in users
    assert "Which port does staging use?" in users  # the resumed session appended to the same file
    assert len(users) == 8 and not any(u.startswith("/compact") for u in users)
    for _, text in said:
        assert not any(n in text for n in NOISE), text
    skipped = {k: sum(p.skipped.get(k, 0) for p in parsed.values()) for k in
               ("compaction summary", "tool result", "attachment", "bookkeeping", "command line", "harness prompt")}
    assert all(skipped.values()), skipped


def test_claude_code_tools_are_provenance_and_subagents_answer_only() -> None:
    parsed = _claude_turns()
    tools = {tuple(t.tools) for p in parsed.values() for t in p.turns if t.tools}
    assert ("Bash",) in tools and ("Write",) in tools and ("Agent",) in tools
    sub = next(p for sid, p in parsed.items() if "/agent-" in sid)
    assert [t.role for t in sub.turns] == ["assistant"] and sub.skipped["subagent prompt"] == 1


def test_claude_code_cursor_takes_only_complete_new_lines() -> None:
    path = next(p for p in transcript_files(CLAUDE) if session_of(p)[0].startswith("e5840a01"))
    data = path.read_bytes()
    cut = data.index(b"Remember that the staging")  # inside a line: that line waits
    first = read_transcript(data[:cut], 0, "s")
    rest = read_transcript(data[first.end:], first.end, "s")
    whole = read_transcript(data, 0, "s")
    assert [t.text for t in first.parsed.turns + rest.parsed.turns] == [t.text for t in whole.parsed.turns]
    assert read_transcript(data[whole.end:], whole.end, "s").parsed.turns == []


def test_claude_code_memory_files_are_notes() -> None:
    files = memory_files(CLAUDE / "-home-dev-widgets" / "memory")
    assert [p.name for p in files] == ["staging-db-port.md"]  # MEMORY.md is the index, not a memory
    note = parse_memory_file(files[0].name, files[0].read_text())
    assert note is not None and note.kind == "project" and note.name == "staging-db-port"
    assert note.text == "The staging database (Postgres) listens on port 5433, not 5432."
    assert parse_memory_file("x.md", "---\nname: x\n---\n") is None
    plain = parse_memory_file("y.md", "No frontmatter: the deploy key lives in 1Password, vault Ops.")
    assert plain is not None and plain.kind == "note"


def test_codex_rollouts_person_and_assistant_only() -> None:
    turns, skipped = [], {}
    for path in rollout_files(CODEX):
        got = read_rollout(path.read_bytes(), 0, rollout_session(path) or "")
        assert got.cwd == "/home/dev/gadgets" and got.end == path.stat().st_size
        turns += got.parsed.turns
        for k, n in got.parsed.skipped.items():
            skipped[k] = skipped.get(k, 0) + n
    users = [t.text for t in turns if t.role == "user"]
    assert "Which port does staging use?" in users and len(users) == 7
    assert not any(n in t.text for t in turns for n in NOISE)
    assert ["exec_command"] in [t.tools for t in turns]
    for why in ("tool call", "tool output", "harness context", "developer message", "compaction summary", "compaction"):
        assert skipped.get(why), why


def test_codex_user_message_without_item_metadata_falls_back_to_tags() -> None:
    lines = [{"type": "response_item", "timestamp": "2026-11-28T06:00:00Z",
              "payload": {"type": "message", "role": "user",
                          "content": [{"type": "input_text", "text": "<environment_context>x</environment_context>"},
                                      {"type": "input_text", "text": "We deploy on Tuesdays."}]}}]
    data = "".join(json.dumps(x) + "\n" for x in lines).encode()
    got = read_rollout(data, 0, "s")
    assert [t.text for t in got.parsed.turns] == ["We deploy on Tuesdays."]
