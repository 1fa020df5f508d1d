"""JSON from outside (import files, transcripts, requests): a clear error for nesting no memoryd document needs."""
from __future__ import annotations

import json
from typing import Any, Callable, Iterator

MAX_DEPTH = 64  # memoryd's own documents nest < 10 deep; json.loads itself overflows near 1,000


class TooDeep(ValueError):
    """JSON nested deeper than MAX_DEPTH (or than the parser's own recursion limit)."""

    def __init__(self, limit: int = MAX_DEPTH) -> None:
        super().__init__(f"JSON nested deeper than {limit} levels")


def loads(text: str | bytes, limit: int | None = MAX_DEPTH, **kwargs: Any) -> Any:
    """json.loads, but TooDeep (a ValueError) instead of a RecursionError or a document deeper than `limit`.

    limit=None: only the parser's own limit (for bulk input such as transcripts, where a scan per line costs)."""
    if limit is not None and _opens_deeper(text, limit):
        raise TooDeep(limit)
    try:
        return json.loads(text, **kwargs)
    except RecursionError:
        raise TooDeep(limit or 1000) from None


def _opens_deeper(text: str | bytes, limit: int) -> bool:
    """A cheap test first: a document can only be deeper than `limit` if it has more brackets than that."""
    if isinstance(text, (bytes, bytearray)):
        opens = text.count(b"[") + text.count(b"{")
    else:
        opens = text.count("[") + text.count("{")
    return opens > limit and _depth_of_text(text) > limit


def _depth_of_text(text: str | bytes) -> int:
    """Bracket depth outside strings, without parsing (linear, no recursion)."""
    if isinstance(text, (bytes, bytearray)):
        text = bytes(text).decode("utf-8", "replace")
    depth = deepest = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "]}":
            depth -= 1
    return deepest


def strings(obj: Any) -> Iterator[str]:
    """Every string in a parsed document, keys included (iterative: any depth)."""
    stack = [obj]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            yield item
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


def check_strings(obj: Any, check: Callable[[str], object]) -> None:
    """Run `check` on every string of `obj` (it raises to refuse)."""
    for s in strings(obj):
        check(s)


def top_scalars(text: str) -> dict[str, Any]:
    """The top-level members of a JSON object whose values are strings, numbers, booleans or null,
    read without parsing the rest: what a reply to a document too deep to parse needs (its id, method)."""
    found: dict[str, Any] = {}
    decoder = json.JSONDecoder()
    depth, i, n = 0, 0, len(text)
    key: str | None = None
    while i < n:
        ch = text[i]
        if ch == '"':
            try:
                value, end = decoder.raw_decode(text, i)
            except ValueError:
                return found
            if depth == 1:
                rest = text[end:].lstrip()
                if key is None and rest.startswith(":"):
                    key = value
                elif key is not None:
                    found[key], key = value, None
            i = end
            continue
        if ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
        elif depth == 1 and key is not None and (ch in "-0123456789tfn"):
            try:
                found[key], i = decoder.raw_decode(text, i)
            except ValueError:
                return found
            key = None
            continue
        if ch in "[{" and depth == 2:
            key = None  # a nested value: not a scalar
        i += 1
    return found
