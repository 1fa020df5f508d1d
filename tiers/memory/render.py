"""The managed memory block for harness files (MEMORY.md, CLAUDE.md, AGENTS.md): build it, merge it in.

Pure text in, text out. The block sits between two marker comments naming the agent; everything
outside the markers belongs to the file's owner and is kept byte for byte. The block never exceeds
the hot budget (5 KB), so rendering cannot grow a harness file without bound.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import re

from memoryd.tiers.base.errors import UsageError
from memoryd.tiers.memory.hot import hot_sections
from memoryd.tiers.memory.model import HOT_MAX_BYTES

if TYPE_CHECKING:
    from memoryd.tiers.memory.types import HotState, TreeState

BEGIN = "<!-- memoryd:begin agent={agent} · generated from hot memory; edits inside this block are replaced -->"
END = "<!-- memoryd:end agent={agent} -->"
_BEGIN_RE = r"(?m)^<!-- memoryd:begin agent={agent}(?:[ ·][^\n]*)? -->"
_END_RE = r"(?m)^<!-- memoryd:end agent={agent} -->"
# reading order of the block, and the order in which sections get room when the budget is tight
_PRIORITY = ("Identity", "Owner profile", "Critical lessons", "Active projects", "Tasks", "Recent events",
             "Memory index", "Daily digest")


def index_lines(tree: TreeState) -> list[str]:
    """One line per tree path (with its description): what can be searched for."""
    return [f"- {path}" + (f" — {desc}" if desc else "") for path, (desc, _day) in sorted(tree["nodes"].items())]


def _size(lines: list[str], nl: str) -> int:
    return sum(len(line.encode("utf-8")) + len(nl) for line in lines)


def _fit(sections: list[tuple[str, list[str]]], budget: int, nl: str) -> tuple[dict[str, list[str]], int]:
    """Items of each section that fit in `budget` bytes, filled in priority order; and how many were left out."""
    by_title = dict(sections)
    kept: dict[str, list[str]] = {}
    used, left_out = 0, 0
    for title in sorted(by_title, key=lambda t: _PRIORITY.index(t) if t in _PRIORITY else len(_PRIORITY)):
        header = _size(["", f"### {title}"], nl)
        for item in by_title[title]:
            cost = _size([item], nl) + (0 if title in kept else header)
            if used + cost > budget:
                left_out += 1
                continue
            kept.setdefault(title, []).append(item)
            used += cost
    return kept, left_out


def build_block(hot: HotState, tree: TreeState, agent_id: str, nl: str = "\n",
                max_bytes: int = HOT_MAX_BYTES, digest: list[str] | None = None) -> str:
    """The block text (markers included, no final newline), at most `max_bytes` UTF-8 bytes; `digest`: the
    newest daily digest's lines (tiers/knowledge/digest.py), shown last and only in the room left."""
    head = [BEGIN.format(agent=agent_id), f"## Memory (memoryd, agent {agent_id})"]
    tail = [END.format(agent=agent_id)]
    sections = hot_sections(hot)
    index = index_lines(tree)
    if index:
        sections.append(("Memory index", ["Categories to search (memory_search tool, `memoryd retrieve`):"] + index))
    if digest:
        sections.append(("Daily digest", list(digest)))
    note = "_… {n} more item(s) not shown here: `memoryd hot show` or the memory_hot tool has them all._"
    budget = max_bytes - _size(head + tail + ["", note.format(n=9999)], nl) + len(nl)  # the last line has no nl
    kept, left_out = _fit(sections, budget, nl)
    lines = list(head)
    for title, _items in sections:
        if title in kept:
            lines += ["", f"### {title}"] + kept[title]
    if not sections:
        lines += ["", "_Nothing in hot memory yet._"]
    if left_out:
        lines += ["", note.format(n=left_out)]
    return nl.join(lines + tail)


def newline_of(text: str) -> str:
    return "\r\n" if "\r\n" in text else "\n"


def find_block(text: str, agent_id: str) -> tuple[int, int] | None:
    """(start, end) of the agent's block in `text`, None when there is none; UsageError when the markers are broken."""
    begins = list(re.finditer(_BEGIN_RE.format(agent=re.escape(agent_id)), text))
    ends = list(re.finditer(_END_RE.format(agent=re.escape(agent_id)), text))
    if not begins and not ends:
        return None
    if len(begins) != 1 or len(ends) != 1 or ends[0].start() < begins[0].end():
        raise UsageError(f"the memoryd block markers for agent {agent_id} are broken ({len(begins)} begin, "
                         f"{len(ends)} end): fix or delete them by hand, then render again")
    return begins[0].start(), ends[0].end()


def merge_block(text: str, block: str, agent_id: str) -> tuple[str, str | None]:
    """`text` with the agent's block replaced (or appended), and the block text it replaced.

    Every byte outside the block is kept. A new block goes at the end, after a blank line.
    """
    span = find_block(text, agent_id)
    if span is not None:
        start, end = span
        return text[:start] + block + text[end:], text[start:end]
    nl = newline_of(text)
    if not text:
        return block + nl, None
    sep = nl if text.endswith("\n") else nl + nl
    return text + sep + block + nl, None
