"""Incoming MCP lines: a lone surrogate escape (`"\\ud83d"` — a JavaScript client's string cut inside
an emoji) becomes `\\ufffd` before the SDK parses the line; a line nested too deep is replaced.

The SDK's JSON parser refuses such a line as invalid JSON and answers nothing, so the client would
wait forever; with U+FFFD the request arrives and its argument is judged like any other text.
"""
from __future__ import annotations

import json
import re
from typing import Any, Iterator

from memoryd.tiers.base import jsontext

REFUSED_TOOL = "memoryd/refused"  # daemon/mcp_tools answers a call of it with the reason in its arguments

_SUSPECT = re.compile(r"\\u[dD][89a-fA-F]")
_ESCAPE = re.compile(r"\\(?:u([0-9a-fA-F]{4})|.)", re.DOTALL)  # left to right, so "\\\\" is one escape


def _kind(hexdigits: str | None) -> str:
    if hexdigits is None:
        return ""
    code = int(hexdigits, 16)
    return "high" if 0xD800 <= code <= 0xDBFF else "low" if 0xDC00 <= code <= 0xDFFF else ""


def fix_lone_surrogates(line: str) -> str:
    if not _SUSPECT.search(line):
        return line
    out, last = [], 0
    matches = list(_ESCAPE.finditer(line))
    for i, m in enumerate(matches):
        kind = _kind(m.group(1))
        if not kind:
            continue
        prev = matches[i - 1] if i else None
        nxt = matches[i + 1] if i + 1 < len(matches) else None
        paired = (kind == "high" and nxt is not None and nxt.start() == m.end() and _kind(nxt.group(1)) == "low") or \
                 (kind == "low" and prev is not None and prev.end() == m.start() and _kind(prev.group(1)) == "high")
        if not paired:
            out += [line[last:m.start()], "\\ufffd"]
            last = m.end()
    out.append(line[last:])
    return "".join(out)


class FixedLines:
    """A text reader whose lines pass through fix_lone_surrogates (for the SDK's stdio transport)."""

    def __init__(self, reader: Any) -> None:
        self._reader = reader

    def readline(self) -> str:
        return fix_lone_surrogates(refuse_too_deep(self._reader.readline()))

    def __iter__(self) -> Iterator[str]:
        for line in self._reader:
            yield fix_lone_surrogates(refuse_too_deep(line))


def refuse_too_deep(line: str) -> str:
    """A message nested deeper than jsontext.MAX_DEPTH (the SDK's parser would overflow and end the
    session) becomes one the SDK answers with an error under the same id; a notification, a blank line."""
    try:
        jsontext.loads(line) if line.count("[") + line.count("{") > jsontext.MAX_DEPTH else None
        return line
    except jsontext.TooDeep as exc:
        reason = f"the request is {exc}; refused"
    except ValueError:
        return line  # not JSON: the SDK says so itself
    head = jsontext.top_scalars(line)
    if "id" not in head or not isinstance(head["id"], (str, int)):
        return "\n"
    if head.get("method") == "tools/call":
        params: dict[str, Any] = {"name": REFUSED_TOOL, "arguments": {"reason": reason}}
        return json.dumps({"jsonrpc": "2.0", "id": head["id"], "method": "tools/call", "params": params}) + "\n"
    return json.dumps({"jsonrpc": "2.0", "id": head["id"], "method": REFUSED_TOOL, "params": {}}) + "\n"
