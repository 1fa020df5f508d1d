"""Fuzzed inputs (hypothesis): every CLI command's arguments, import files, daily notes, transcript
lines and requests to a real daemon's socket. No input may cause a traceback, an exit code outside
0/1/2, or (when refused with exit 2) any change to the home. MEMORYD_FUZZ_EXAMPLES=N runs N examples
per kind instead of the CI budget; bench/fuzz.py counts over a long run instead of stopping."""
from __future__ import annotations

import os
from pathlib import Path
from typing import Callable, Iterator

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from faultcheck import mcp_note
from fuzzgen import (DEEP, NUL_ENTRY, command_line, command_paths, export_file, note_file, rule_case, socket_line,
                     transcript_file)
from fuzzlib import (DaemonClient, Sandbox, Tally, probe_cli, probe_import, probe_note, probe_rule, probe_socket,
                     probe_transcript)

SCALE = int(os.environ.get("MEMORYD_FUZZ_EXAMPLES", "0"))  # 0: the CI budget


HEADER = b'{"format": "memoryd-export", "version": 1, "agent_id": "x"}\n'


def fuzz(ci_examples: int) -> settings:
    return settings(max_examples=SCALE or ci_examples, deadline=None, database=None, derandomize=not SCALE,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def check(tally: Tally, label: str) -> None:
    """Print the figures; both accepted and refused inputs must have been seen (else the fuzz is shallow)."""
    print(f"\n{label}: {tally.figures()} exits {dict(sorted(tally.codes.items()))}")
    assert tally.tracebacks == tally.odd_exit == tally.changed_on_refusal == 0, tally.problems
    assert sum(n for k, n in tally.codes.items() if k.endswith(":0")) >= 5, tally.codes
    assert sum(n for k, n in tally.codes.items() if k.endswith(":2")) >= 5, tally.codes


@pytest.fixture(scope="module")
def box(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sandbox]:
    yield Sandbox(tmp_path_factory.mktemp("fuzz"))


def run(test: Callable[..., None]) -> None:
    test()  # hypothesis runs the examples; a problem fails at once, shrunk to a small input


def test_every_command_is_reachable_by_the_fuzzer() -> None:
    names = {" ".join(p) for p, _ in command_paths()}
    assert {"store", "hot identity", "tree add", "sync", "restore", "import", "export", "forget", "key import",
            "ingest-daily", "daemon", "service install", "config show", "consolidate", "retrieve"} <= names
    note = mcp_note()
    if note:
        print(f"\nnote: {note}")


def test_command_arguments(box: Sandbox) -> None:
    tally, paths = Tally(), command_paths()

    @fuzz(160)
    @given(argv=command_line(paths, box.ids))
    @example(argv=["export", ""])  # found by the fuzzer: a traceback (no file name)
    @example(argv=["export", "sub"])  # a directory
    @example(argv=["sync", "--agent-id", "nokey"])  # found: refused (no key) after writing sync/state.json
    @example(argv=["sync", "--force", "--agent-id", "nokey", "--json"])
    # issue 23: control characters, place-like categories and an empty agent id are refused (exit 2)
    @example(argv=["store", "esc\x1b[2J", "--category", "notes"])
    @example(argv=["store", "a fact", "--category", "../x"])
    @example(argv=["tree", "add", "notes/..", "up"])
    @example(argv=["hot", "lesson", "bell\x07"])
    @example(argv=["mcp", "--agent-id", ""])
    def one(argv: list[str]) -> None:
        problems = probe_cli(box, tally, argv)
        assert not problems, problems

    run(one)
    check(tally, "command arguments")


def test_the_same_rules_on_every_command(box: Sandbox) -> None:
    """Issue 30: an empty agent id is refused by every command (root option or its own), a hot lesson over its
    limit like an over-long event, an export into a missing directory as bad input: exit 2, one line, nothing
    changed."""
    tally, paths = Tally(), command_paths()

    @fuzz(80)
    @given(case=rule_case(paths, box.ids))
    @example(case=(["status", "--agent-id", ""], 2))  # found: exit 0 (every agent shown)
    @example(case=(["render", "--agent-id", "", "--target", "file:out.md"], 2))  # found: "" taken for not given
    @example(case=(["hot", "lesson", "x" * 1200], 2))  # found: exit 0, 299 characters kept
    @example(case=(["hot", "lesson", "x" * 300], 0))
    @example(case=(["export", "missing/out.jsonl"], 2))  # found: exit 1
    def one(case: tuple[list[str], int]) -> None:
        problems = probe_rule(box, tally, *case)
        assert not problems, problems

    run(one)
    print(f"\nsame rules: {tally.figures()} exits {dict(sorted(tally.codes.items()))}")
    assert tally.tracebacks == tally.odd_exit == tally.changed_on_refusal == 0, tally.problems
    assert tally.codes["rule:2"] >= 40 and tally.codes["rule:0"] >= 1, tally.codes


def test_import_files(box: Sandbox) -> None:
    tally = Tally()

    @fuzz(60)
    @given(content=export_file(), as_json=st.booleans())
    @example(content=HEADER + DEEP.encode() + b"\n", as_json=True)  # issue 23: a traceback after the JSON error
    @example(content=HEADER + NUL_ENTRY.encode() + b"\n", as_json=False)
    def one(content: bytes, as_json: bool) -> None:
        problems = probe_import(box, tally, content, as_json)
        assert not problems, problems

    run(one)
    check(tally, "import files")


def test_daily_notes(box: Sandbox) -> None:
    tally = Tally()

    @fuzz(50)
    @given(content=note_file())
    def one(content: bytes) -> None:
        problems = probe_note(box, tally, content)
        assert not problems, problems

    run(one)
    check(tally, "daily notes")


def test_transcript_lines(box: Sandbox) -> None:
    tally = Tally()

    @fuzz(40)
    @given(first=transcript_file(), more=transcript_file())
    # found by the fuzzer: a part whose text is null (a traceback); an empty compaction summary (the whole
    # batch refused, so the conversation never got past it); a string cut inside a surrogate pair
    @example(first=b'{"type": "message", "message": {"role": "user", "content": [{"type": "text", "text": null}]}}\n',
             more=b'{"type": "compaction", "summary": ""}\n{"role": "user", "content": "what comes after is kept too"}\n')
    @example(first=b'{"role": "user", "content": "a message long enough, cut in half: \\ud83d"}\n',
             more=b'{"type": "compaction", "summary": "cut \\udc00 summary"}\n')
    def one(first: bytes, more: bytes) -> None:
        problems = probe_transcript(box, tally, first, more)
        assert not problems, problems

    run(one)
    print(f"\ntranscript lines: {tally.figures()} exits {dict(sorted(tally.codes.items()))}")
    assert tally.tracebacks == tally.odd_exit == tally.changed_on_refusal == 0, tally.problems
    assert tally.codes["transcript:0"] >= 20  # (a transcript is never refused: broken lines are skipped)


def test_socket_requests(tmp_path: Path) -> None:
    client = DaemonClient(Sandbox(tmp_path / "daemon"))
    transcript = client.box.root / "sessions" / "t.jsonl"
    transcript.parent.mkdir(exist_ok=True)
    transcript.write_bytes(b'{"type": "message", "message": {"role": "user", "content": "a fact long enough to keep"}}\n')
    files = [str(transcript), str(client.box.root / "missing.jsonl"), str(client.box.root), ""]
    tally = Tally()

    @fuzz(100)
    @given(line=socket_line(client.box.ids, files))
    # found by the fuzzer: params of the wrong type reached the operations (internal errors)
    @example(line=b'{"op": "retrieve", "params": {"query": "tea", "limit": "ten"}}')
    @example(line=b'{"op": "retrieve", "params": {"query": 5}}')
    @example(line=b'{"op": "retrieve", "params": {"query": "tea", "url": 1.0, "entity": []}}')
    @example(line=b'{"op": "retrieve", "params": {"query": "tea", "paths": "notes"}}')
    @example(line=b'{"op": "store", "params": {"text": "a fact", "category": "notes", "metadata": {"urls": 5}}}')
    @example(line=b'{"op": "status", "params": ' + DEEP.encode() + b"}")  # issue 23
    @example(line=b'{"op": "store", "params": {"text": "nul\\u0000", "category": "../x"}}')
    def one(line: bytes) -> None:
        problems = probe_socket(client, tally, line)
        assert not problems, problems

    try:
        run(one)
    finally:
        log = client.close()
    assert "Traceback" not in log, log[-3000:]
    check(tally, "socket requests")


def test_mcp_tool_arguments(tmp_path: Path) -> None:
    from fuzzmcp import McpSession, tool_call

    session = McpSession(Sandbox(tmp_path / "mcp"))
    tally = Tally()

    @fuzz(150)
    @given(call=tool_call())
    @example(call=("memory_store", {"text": "a fact", "importance": 1e308, "category": "a/b/c/d/e/f/g"}))
    @example(call=("memory_search", {"query": "\ud800 tea", "limit": 50, "entity": "\x00"}))
    @example(call=("memory_flush", {"session": "/etc/passwd"}))
    @example(call=("memory_store", {"text": "nul\x00here", "category": "notes"}))  # issue 23
    @example(call=("memory_store", {"text": "a fact", "category": "../x"}))
    @example(call=("memory_task", {"text": "esc\x1b[2J"}))
    def one(call: tuple[str, object]) -> None:
        problems = session.probe(tally, *call)
        assert not problems, problems

    try:
        run(one)
    finally:
        log = session.close()
    assert "Traceback" not in log, log[-3000:]
    check(tally, "MCP tool calls")

