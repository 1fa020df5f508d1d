"""The text a memory is embedded from: by default its own words; optionally between its neighbouring turns.

    passage = the memory's text                                              (the default: NEIGHBOURS = 0)
            = the turn before (cut) + " | " + the text + " | " + the turn after (cut)     (NEIGHBOURS = 1)
            = "2025-03-14: " + …                                                           (DATED)

A conversation turn rarely says what it is about ("Loved it! Ten days went way too fast."), and the turns
around it in the same session ("Welcome back, Hugo! How was Florence?") say it: issue 22 asked to embed a
turn with them and with its session's date. Measured on bench/recall after back-fill (recall@5, the plain
text against the neighbours): seed 7 full 0.782 against 0.755; --small seeds 13 and 17 0.837/0.796 against
0.755/0.722 (seeds 7 and 11 --small favoured the neighbours, 0.88/0.913 against 0.86/0.826); the date
prefix lost on every seed with the neighbours, and alone won one seed of four. So both stay off, measured by the bench's variants (after-neighbours,
after-dated, after-date-only), and a back-fill with neighbours costs 2-5x the time (longer passages).
Only the embedding sees the passage: what retrieve returns and BM25 read are the memory's own text.
recipe() names a non-plain recipe in the vectors' signature (tiers/retrieval/embed.py): a changed recipe
drops the old vectors and the back-fill remakes them, so two recipes are never mixed in one index.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

DATED = False          # the memory's date leading its passage
NEIGHBOURS = 0         # turns of the same session on each side (0: the memory alone)
NEIGHBOUR_CHARS = 160  # each neighbour is cut to this many characters: the memory's own words must dominate
_LINE = re.compile(r"#L(\d+)$")


def recipe() -> str:
    """Names the passage recipe ("" for the memory's own text alone: vectors made before recipes existed)."""
    if not DATED and not NEIGHBOURS:
        return ""
    return f"p1-{'d' if DATED else 'nd'}-n{NEIGHBOURS}x{NEIGHBOUR_CHARS}"


@dataclass
class Context:
    """What surrounds a memory: its date and the texts of the turns before and after it, nearest last/first."""

    day: str | None = None
    before: list[str] = field(default_factory=list)
    after: list[str] = field(default_factory=list)


def _cut(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= NEIGHBOUR_CHARS else text[:NEIGHBOUR_CHARS - 1] + "…"


def passage(text: str, context: Context | None) -> str:
    """The passage embedded for a memory with this text in this context."""
    if context is None:
        return text
    parts = [_cut(t) for t in context.before[-NEIGHBOURS:]] if NEIGHBOURS else []
    parts.append(text)
    parts += [_cut(t) for t in context.after[:NEIGHBOURS]] if NEIGHBOURS else []
    body = " | ".join(parts)
    return f"{context.day}: {body}" if DATED and context.day else body


def thread(metadata: Mapping[str, Any]) -> tuple[tuple[str, ...], float] | None:
    """(which session a memory was said in, its place there) from its metadata, or None (not a turn):
    a conversation turn's session id and sequence number, or a daily note's file, timed section and line."""
    session, seq = metadata.get("session_id"), metadata.get("seq")
    if isinstance(session, str) and isinstance(seq, (int, float)) and not isinstance(seq, bool):
        return ("session", session), float(seq) + float(metadata.get("part") or 0) / 1000
    source = metadata.get("source")
    if isinstance(source, str) and (m := _LINE.search(source)):
        where = (source[:m.start()], str(metadata.get("time") or ""), str(metadata.get("section") or ""))
        return ("note", *where), float(m.group(1))
    return None


def contexts(rows: list[tuple[int, str, str | None, Mapping[str, Any]]], wanted: set[int]) -> dict[int, Context]:
    """The context of each wanted row among `rows` ((rowid, text, day, metadata) of the days they fall on):
    the turns of the same session, in order, on each side."""
    threads: dict[tuple[str, ...], list[tuple[float, int, str]]] = {}
    days = {}
    for rowid, text, day, meta in rows:
        days[rowid] = day
        found = thread(meta)
        if found is not None:
            threads.setdefault(found[0], []).append((found[1], rowid, text))
    out = {rowid: Context(days.get(rowid)) for rowid in wanted}
    if not NEIGHBOURS:
        return out
    for turns in threads.values():
        turns.sort()
        for i, (_, rowid, _) in enumerate(turns):
            if rowid in wanted:
                out[rowid].before = [t for _, _, t in turns[max(0, i - NEIGHBOURS):i]]
                out[rowid].after = [t for _, _, t in turns[i + 1:i + 1 + NEIGHBOURS]]
    return out


def live_items(entries: Iterable[Mapping[str, Any]]) -> list[tuple[str, str]]:
    """(id, passage) of warm entries or hot items, as VectorStore.live takes them: each with its date and its
    neighbours among these entries (a neighbour already in the local index is not looked up)."""
    from memoryd.tiers.retrieval.when import memory_date

    listed = list(entries)
    rows = [(i, str(e["text"]), memory_date(e), e.get("metadata") or {}) for i, e in enumerate(listed)]
    found = contexts(rows, set(range(len(listed))))
    return [(str(e["id"]), passage(str(e["text"]), found[i])) for i, e in enumerate(listed)]


def live_passage(entry: Mapping[str, Any]) -> str:
    """The passage of one memory seen alone: its date (when it has one) and its text."""
    from memoryd.tiers.retrieval.when import memory_date

    return passage(str(entry["text"]), Context(memory_date(entry)))
