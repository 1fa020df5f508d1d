"""Take what is new in a coding harness's session file (Claude Code, Codex) or memory file into one memoryd agent.

State lives in the agent's `harness-state.json` (atomic, under the agent lock): a byte offset per
session file, a signature per memory file, and per harness what was taken last and when. A file's
new complete lines are read past its offset, their turns go through conversation distillation as
OpenClaw's do (every turn to cold verbatim, facts to warm and hot), then the offset moves, all under
one hold of the agent lock: a crash repeats at most one read, and repeating is harmless (turn ids
come from the session and the words). A second take of an unchanged file reads nothing.
"""
from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from memoryd.tiers.base.atomic import atomic_write_json, read_json
from memoryd.tiers.base.ports import LLM
from memoryd.tiers.ingest.claude_code import memory_files, transcript
from memoryd.tiers.ingest.codex import rollout
from memoryd.tiers.ingest.conversation import distill_segments
from memoryd.tiers.ingest.harness_lines import Read, read_from

if TYPE_CHECKING:
    from memoryd.tiers.memory.agent import AgentMemory

STATE_FILE = "harness-state.json"
HARNESSES = ("claude", "codex")
SOURCES = {"claude": transcript.SOURCE, "codex": rollout.SOURCE}
TOOK_CHARS = 80  # how much of each turn taken `status` shows


def _empty() -> dict[str, Any]:
    return {"version": 1, "files": {}, "notes": {}, "harnesses": {}}


def _valid(obj: Any) -> None:
    if not isinstance(obj, dict) or not isinstance(obj.get("files"), dict):
        raise TypeError("not a harness state")
    for key, value in _empty().items():
        obj.setdefault(key, value)


def load_state(agent_dir: Path) -> dict[str, Any]:
    state: dict[str, Any] = read_json(Path(agent_dir) / STATE_FILE, _empty, _valid)
    return state


def reader_for(harness: str, path: Path) -> Callable[[bytes, int], Read]:
    """The pure reader of one session file: (its bytes from an offset, the offset) → Read."""
    if harness == "claude":
        sid, sub = transcript.session_of(path)
        return lambda data, start: transcript.read_transcript(data, start, sid, sub)
    sid = rollout.session_of(path) or path.stem
    return lambda data, start: rollout.read_rollout(data, start, sid)


def _report(harness: str, path: Path) -> dict[str, Any]:
    return {"harness": harness, "file": str(path), "turns": 0, "cold": 0, "warm": 0, "hot": [], "notes": 0,
            "skipped": {}, "warnings": []}


def _record(state: dict[str, Any], harness: str, report: dict[str, Any], took: list[str], now: float) -> None:
    """Per harness: totals, and what the last read that found something took and when."""
    entry = state["harnesses"].setdefault(harness, {"turns": 0, "cold": 0, "warm": 0, "notes": 0, "skipped": {}})
    for key in ("turns", "cold", "warm", "notes"):
        entry[key] = entry.get(key, 0) + report[key]
    for why, n in report["skipped"].items():
        entry["skipped"][why] = entry["skipped"].get(why, 0) + n
    if report["turns"] or report["notes"]:
        entry.update(last_at=now, last_file=report["file"], took=took[-5:])
    entry["last_run"] = now


def take_file(mem: AgentMemory, harness: str, path: Path, llm: LLM | None = None) -> dict[str, Any]:
    """Ingest the complete lines of one session file past its cursor; idempotent."""
    path = Path(path)
    report = _report(harness, path)
    key = str(path)
    with mem.exclusive():
        state = load_state(Path(mem.dir))
        entry = state["files"].get(key) or {"offset": 0}
        data, start = read_from(path, int(entry.get("offset", 0)))
        got = reader_for(harness, path)(data, start)
        if got.end == entry.get("offset") and not got.parsed.turns:
            return report
        turns = got.parsed.turns
        if turns:
            done = distill_segments(mem, [turns], SOURCES[harness], llm)
            for k in ("turns", "cold", "warm", "hot", "warnings"):
                report[k] = done[k]
        report["skipped"] = dict(got.parsed.skipped)
        now = mem.clock()
        state["files"][key] = {"harness": harness, "offset": got.end, "session_id": got.session_id,
                               "cwd": got.cwd or entry.get("cwd"), "at": now,
                               "turns": int(entry.get("turns", 0)) + len(turns)}
        _record(state, harness, report, [f"{t.role}: {t.text[:TOOK_CHARS]}" for t in turns], now)
        atomic_write_json(Path(mem.dir) / STATE_FILE, state)
    return report


def take_memory_file(mem: AgentMemory, path: Path) -> dict[str, Any]:
    """Ingest one of Claude Code's memory files as a note when it changed since the last take."""
    path = Path(path)
    report = _report("claude", path)
    try:
        st = path.stat()
        text = path.read_bytes()[:memory_files.MAX_NOTE_BYTES].decode("utf-8", "replace")
    except OSError:
        return report
    sig = [st.st_mtime_ns, st.st_size]
    with mem.exclusive():
        state = load_state(Path(mem.dir))
        if state["notes"].get(str(path), {}).get("sig") == sig:
            return report
        note = memory_files.parse_memory_file(path.name, text)
        took = []
        if note is not None:
            slug = path.parent.parent.name
            meta = {"source": f"claude-memory:{slug}/{note.file}", "kind": "note", "harness": "claude",
                    "note_name": note.name, "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(st.st_mtime))}
            stored = mem.store_many([(note.text, note.category, None, meta)])
            report["warm"] = sum(1 for e in stored if e.get("created"))
            report["notes"] = 1
            took = [f"note: {note.text[:TOOK_CHARS]}"]
        state["notes"][str(path)] = {"sig": sig, "at": mem.clock()}
        _record(state, "claude", report, took, mem.clock())
        atomic_write_json(Path(mem.dir) / STATE_FILE, state)
    return report
