"""Control characters and place-like category segments are refused wherever text enters the tiers."""
from __future__ import annotations

import io
import json

import pytest

from memoryd.tiers.base.errors import UsageError
from memoryd.tiers.memory import hot as H
from memoryd.tiers.memory import tree as T
from memoryd.tiers.memory.model import check_category, check_field, check_key, check_text, without_controls
from memoryd.tiers.memory.transfer import parse_export
from memhelp import AgentMemory

REFUSED = ["\x00", "\x01", "\x07", "\x08", "\x0b", "\x0c", "\r", "\x1b[2J", "\x1f", "\x7f", "\x85", "\x9b"]


@pytest.mark.parametrize("char", REFUSED)
def test_control_characters_are_refused_in_text_fields_and_keys(char: str) -> None:
    for check in (check_text, lambda v: check_field(v, "value")):
        with pytest.raises(UsageError, match="control character"):
            check(f"before{char}after")
        with pytest.raises(UsageError, match="control character"):
            check(f"{char}at the edge")  # not quietly stripped away either
    with pytest.raises(UsageError):
        check_key(f"{char}name")


def test_tab_newline_and_crlf_pass() -> None:
    assert check_text("a\tb\nc\r\nd") == "a\tb\nc\r\nd"
    assert without_controls("a\x00b\x1b[0m\tc\r\n") == "a b [0m\tc\r\n"


@pytest.mark.parametrize("path", ["..", ".", "../x", "x/..", "a/./b", "a/../../b", "x/\x00"])
def test_dot_segments_and_controls_are_not_categories(path: str) -> None:
    with pytest.raises(UsageError):
        check_category(path)


def test_ordinary_dotted_names_stay_categories() -> None:
    assert check_category("v1.2/notes...x/.hidden-ish") == "v1.2/notes...x/.hidden-ish"


def test_nothing_is_written_when_an_entry_point_refuses(config) -> None:
    mem = AgentMemory(config, "default")
    mem.store("a fact that stays", "projects", 0.5)
    before = {p.name: p.read_bytes() for p in mem.dir.iterdir() if p.is_file() and p.name.endswith(".json")}
    attempts = [lambda: mem.store("nul\x00inside", "projects", 0.5),
                lambda: mem.store("fine text", "../x", 0.5),
                lambda: mem.change(lambda s, now: H.add_lesson(s["hot"], "bell\x07", "lessons", 0.9, now), "lesson"),
                lambda: mem.change(lambda s, now: T.add_node(s["tree"], "notes", "desc\x1b[31m", now), "tree")]
    for attempt in attempts:
        with pytest.raises(UsageError):
            attempt()
    after = {p.name: p.read_bytes() for p in mem.dir.iterdir() if p.is_file() and p.name.endswith(".json")}
    assert after == before


def _export(*lines: object) -> io.StringIO:
    header = {"format": "memoryd-export", "version": 1, "agent_id": "default", "exported_at": 0}
    return io.StringIO("\n".join([json.dumps(header)] + [x if isinstance(x, str) else json.dumps(x) for x in lines]))


def test_import_refuses_controls_and_deep_lines_naming_the_line() -> None:
    entry = {"id": "a" * 16, "text": "ok", "category": "x", "created_at": 1}
    cases = [({"type": "warm", "entry": dict(entry, text="nul\x00")}, "control character"),
             ({"type": "warm", "entry": dict(entry, metadata={"topics": ["esc\x1b"]})}, "control character"),
             ({"type": "warm", "entry": dict(entry, category="a/..")}, "'..' segment"),
             ('{"type": "warm", "entry": ' + "[" * 2000 + "]" * 2000 + "}", "nested deeper")]
    for line, why in cases:
        with pytest.raises(UsageError, match=f"line 2: .*{why}.*nothing imported"):
            parse_export(_export(line))
