"""JSON from outside: nesting beyond the limit (or the parser's own) is a ValueError, never a RecursionError."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from memoryd.tiers.base import jsontext

DEEP = "[" * 2000 + "]" * 2000


@pytest.mark.parametrize("text", [DEEP, '{"a":' * 2000 + "1" + "}" * 2000, "[" * 100_000])
@pytest.mark.parametrize("limit", [jsontext.MAX_DEPTH, None])
def test_over_deep_documents_are_a_value_error(text: str, limit: int | None) -> None:
    with pytest.raises(jsontext.TooDeep, match="nested deeper than"):
        jsontext.loads(text, limit)
    with pytest.raises(ValueError):
        jsontext.loads(text.encode(), limit)


def test_the_limit_counts_brackets_outside_strings_only() -> None:
    inside = json.dumps({"text": "[" * 500 + "{" * 500})
    assert jsontext.loads(inside) == json.loads(inside)
    nested = "[" * jsontext.MAX_DEPTH + "]" * jsontext.MAX_DEPTH
    assert jsontext.loads(nested) == json.loads(nested)
    with pytest.raises(jsontext.TooDeep):
        jsontext.loads("[" + nested + "]")


def test_top_level_scalars_of_a_document_too_deep_to_parse() -> None:
    line = '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"id":99,"x":%s}}' % DEEP
    assert jsontext.top_scalars(line) == {"jsonrpc": "2.0", "id": 7, "method": "tools/call"}
    assert jsontext.top_scalars('{"params": [1, {"id": 2}], "id": "a\\"b", "n": null}') == {"id": 'a"b', "n": None}
    assert jsontext.top_scalars(DEEP) == {}


def test_strings_walks_any_depth_without_recursion() -> None:
    obj: object = "leaf"
    for _ in range(5000):
        obj = {"k": [obj]}
    assert sorted(set(jsontext.strings(obj))) == ["k", "leaf"]


def test_an_over_deep_state_file_is_quarantined_not_a_traceback(tmp_path: Path) -> None:
    from memoryd.tiers.base.atomic import read_json

    path = tmp_path / "warm-memory.json"
    path.write_text("[" * 2000 + "]" * 2000)
    assert read_json(path, dict) == {}
    assert not path.exists() and [p.name for p in tmp_path.iterdir() if ".corrupt-" in p.name]
