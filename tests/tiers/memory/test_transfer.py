"""export/import as JSON Lines: round trip with cold, idempotent re-import, bad lines refused whole."""
from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from memoryd.tiers.cold.source import open_index as open_archive
from memoryd.tiers.memory import hot as H
from memhelp import AgentMemory
from memoryd.tiers.base.config import load_config
from memoryd.tiers.base.errors import UsageError
from memoryd.tiers.memory.transfer import export_to, import_from

T0 = 1_700_000_000.0


def _mem(home: Path, agent: str = "default") -> AgentMemory:
    config = load_config({"MEMORYD_HOME": str(home)})
    return AgentMemory(config, agent, archive=open_archive(config), clock=lambda: T0)


def _populate(mem: AgentMemory) -> list[str]:
    ids = [mem.store(f"fact number {i} about topic {i % 3}", f"topics/t{i % 3}", 0.6)["id"] for i in range(6)]
    mem.change(lambda s, now: H.set_identity(s["hot"], "agent_name", "Claw"), "test")
    cold = dict(mem.read_state()["warm"]["entries"][0], id="cold0001cold0001", text="archived long ago")
    mem.archive.put(mem.agent_id, [cold])
    return ids + ["cold0001cold0001"]


def _snapshot(mem: AgentMemory) -> dict:
    state = mem.read_state()
    warm = sorted((e["id"], e["text"], e["category"]) for e in state["warm"]["entries"])
    cold = sorted(e["id"] for e in mem.archive.iter_entries(mem.agent_id))
    return {"hot": state["hot"], "tree": sorted(state["tree"]["nodes"]), "warm": warm, "cold": cold}


def test_round_trip_to_a_new_home_and_idempotent(tmp_path: Path) -> None:
    src = _mem(tmp_path / "a")
    _populate(src)
    out = tmp_path / "export.jsonl"
    lines = export_to(src, out)
    header = json.loads(out.read_text().splitlines()[0])
    assert header["format"] == "memoryd-export" and header["version"] == 1
    assert lines == len(out.read_text().splitlines())

    dst = _mem(tmp_path / "b")
    with open(out, encoding="utf-8") as fh:
        first = import_from(dst, fh)
    assert first["warm"] == 6 and first["cold"] == 1
    assert _snapshot(dst) == _snapshot(src)
    with open(out, encoding="utf-8") as fh:
        again = import_from(dst, fh)
    assert again["warm"] == 0 and again["hot"] == 0 and again["tree"] == 0
    assert _snapshot(dst) == _snapshot(src)


@pytest.mark.parametrize("bad, where", [
    ('{"type": "warm", "entry": {"id": "x"}}', "line 3"),
    ("not json", "line 3"),
    ('{"type": "warm", "entry": {"id": "x", "text": "t", "category": "a//b", "created_at": 1}}', "line 3"),
    ('{"type": "mystery"}', "line 3"),
])
def test_bad_line_is_named_and_nothing_is_imported(tmp_path: Path, bad: str, where: str) -> None:
    src = _mem(tmp_path / "a")
    _populate(src)
    lines = list(_lines(src))
    lines.insert(2, bad)
    dst = _mem(tmp_path / "b")
    before = {p.name: p.read_bytes() for p in dst.dir.glob("*")} if dst.dir.exists() else {}
    with pytest.raises(UsageError, match=where):
        import_from(dst, io.StringIO("\n".join(lines) + "\n"))
    after = {p.name: p.read_bytes() for p in dst.dir.glob("*")} if dst.dir.exists() else {}
    assert after == before
    assert list(dst.archive.iter_entries(dst.agent_id)) == []


def _lines(mem: AgentMemory):
    from memoryd.tiers.memory.transfer import export_lines

    return export_lines(mem)


def test_newer_format_version_is_refused(tmp_path: Path) -> None:
    dst = _mem(tmp_path / "b")
    text = json.dumps({"format": "memoryd-export", "version": 99}) + "\n"
    with pytest.raises(UsageError, match="version 99"):
        import_from(dst, io.StringIO(text))
