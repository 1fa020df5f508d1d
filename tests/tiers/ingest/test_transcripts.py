"""The `ingest_transcript` entry: conversation distillation, not every message as a warm fact; incremental."""
from __future__ import annotations

import json
from pathlib import Path

from memhelp import AgentMemory
from memoryd.tiers.ingest.transcripts import ingest_transcript


def _line(**obj) -> str:
    return json.dumps(obj, ensure_ascii=False) + "\n"


def test_only_what_is_worth_keeping_reaches_warm_and_lines_wait_until_complete(config, archive, tmp_path: Path) -> None:
    mem = AgentMemory(config, "default", archive=archive)
    path = tmp_path / "sess.jsonl"
    path.write_text(_line(type="message", role="user", content="我们决定下周三发布新版本的记忆系统")
                    + _line(type="message", role="assistant", content="好的，我会准备发布清单，然后通知团队所有成员。"))
    first = ingest_transcript(mem, path)
    assert (first["messages"], first["cold"]) == (2, 2) and first["stored"] >= 1
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(_line(type="message", role="user", content="How was your weekend, anything fun happening?"))
        fh.write('{"type": "message", "role": "user", "content": "Please remember that the staging DB is db2.int')
    second = ingest_transcript(mem, path)
    assert (second["messages"], second["stored"]) == (1, 0)  # small talk goes to cold only
    assert ingest_transcript(mem, path)["messages"] == 0
    with open(path, "a", encoding="utf-8") as fh:
        fh.write('ernal from now on"}\n')
    assert ingest_transcript(mem, path)["stored"] == 1
    texts = [e["text"] for e in mem.read_state()["warm"]["entries"]]
    assert any("发布" in t for t in texts) and any("db2.internal" in t for t in texts)
    assert not any("weekend" in t for t in texts) and len(texts) == 2
    assert archive.count("default") == 4
