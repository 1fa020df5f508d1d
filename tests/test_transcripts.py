"""Transcripts: only new, complete lines are distilled; hidden/short messages skipped; idempotent."""
from __future__ import annotations

import json
from pathlib import Path

from memhelp import AgentMemory
from memoryd.tiers.transcripts import ingest_transcript, parse_messages


def _line(**obj) -> str:
    return json.dumps(obj, ensure_ascii=False) + "\n"


def test_parse_keeps_messages_and_summaries() -> None:
    lines = [
        _line(type="session", id="s1"),
        _line(type="message", role="user", content="Please remember that the staging DB lives on db2.internal"),
        _line(type="message", role="assistant", content=[{"type": "text", "text": "Noted: staging DB is db2.internal for now"}]),
        _line(type="message", role="user", content="ok"),
        _line(type="custom_message", content="system information that is hidden", hidden=True),
        _line(type="compaction", summary="We agreed to migrate the billing service to Postgres 16"),
        "{broken json\n",
    ]
    msgs = parse_messages([l.encode() for l in lines])
    assert [m["role"] for m in msgs] == ["user", "assistant", "summary"]
    assert "db2.internal" in msgs[0]["text"]


def test_ingest_is_incremental_and_waits_for_complete_lines(config, tmp_path: Path) -> None:
    mem = AgentMemory(config, "default")
    path = tmp_path / "sess.jsonl"
    path.write_text(_line(type="message", role="user", content="我们决定下周三发布新版本的记忆系统"))
    first = ingest_transcript(mem, path)
    assert len(first["stored"]) == 1
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(_line(type="message", role="assistant", content="The release checklist lives in docs/release.md"))
        fh.write('{"type": "message", "role": "user", "content": "half writ')  # still being written
    second = ingest_transcript(mem, path)
    assert len(second["stored"]) == 1
    assert ingest_transcript(mem, path)["stored"] == []
    with open(path, "a", encoding="utf-8") as fh:
        fh.write('ten and now complete, a long enough message"}\n')
    third = ingest_transcript(mem, path)
    assert len(third["stored"]) == 1
    texts = [e["text"] for e in mem.read_state()["warm"]["entries"]]
    assert any("发布" in t for t in texts) and any("docs/release.md" in t for t in texts)
    assert len(texts) == 3
