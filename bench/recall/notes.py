"""Writes turns as OpenClaw daily notes (memory/YYYY-MM-DD.md) and maps a retrieved memory back to its turn.

A note holds one `## HH:MM` section per session that day (several conversations may share a day) and one
bullet per turn, `- Speaker: words`. tiers/ingest/dailynotes.py makes each bullet a fact whose metadata.source is
`memory/DATE.md#L<line>`: the writer records that address for every turn, so a result maps back exactly.
"""
from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path
from typing import Any, Iterable

from .model import Turn

_SOURCE = re.compile(r"^memory/(\d{4}-\d{2}-\d{2})\.md#L(\d+)$")


def note_lines(turns: Iterable[Turn]) -> dict[str, tuple[list[str], dict[int, str]]]:
    """date → (the note's lines, line number → turn id); sections in time order, turns in spoken order."""
    by_day: dict[str, dict[tuple[str, str, int], list[Turn]]] = defaultdict(lambda: defaultdict(list))
    for t in turns:
        if "\n" in t.text or "\r" in t.text:
            raise ValueError(f"turn {t.id} spans lines; a bullet must be one line")
        by_day[t.date][(t.time, t.conv, t.session)].append(t)
    out = {}
    for day, sections in sorted(by_day.items()):
        lines, where = [f"# {day}", ""], {}
        for (time, _conv, _session), said in sorted(sections.items()):
            lines += [f"## {time}", ""]
            for t in said:
                lines.append(f"- {t.line}")
                where[len(lines)] = t.id
            lines.append("")
        out[day] = (lines, where)
    return out


def write_notes(turns: Iterable[Turn], workspace: Path) -> dict[str, str]:
    """Write workspace/memory/DATE.md for every day; return {"memory/DATE.md#Lnn": turn id}."""
    folder = Path(workspace) / "memory"
    folder.mkdir(parents=True, exist_ok=True)
    sources = {}
    for day, (lines, where) in note_lines(turns).items():
        (folder / f"{day}.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
        sources.update({f"memory/{day}.md#L{n}": tid for n, tid in where.items()})
    return sources


def turn_of(result: dict[str, Any], sources: dict[str, str], by_text: dict[str, str]) -> str | None:
    """The turn a retrieved memory came from: by its note address, else by its exact text (None if neither)."""
    source = (result.get("metadata") or {}).get("source")
    if isinstance(source, str) and _SOURCE.match(source) and source in sources:
        return sources[source]
    return by_text.get(str(result.get("text", "")))


def ranked_turns(results: list[dict[str, Any]], sources: dict[str, str], by_text: dict[str, str]) -> list[str]:
    """Turn ids in result order, each once; results that map to no turn are skipped."""
    out: list[str] = []
    for r in results:
        tid = turn_of(r, sources, by_text)
        if tid is not None and tid not in out:
            out.append(tid)
    return out
