"""One current truth at store time: a new memory that restates one already held is absorbed by it, a new value
for the same thing supersedes the old one, a belief a fact confirms becomes a fact, and an opinion's confidence
moves with the evidence for and against it. Every step goes to the knowledge log (tiers/knowledge/log.py).

    restated (tiers/knowledge/restate.py), or the same claim with the same value (tiers/knowledge/subject.py)
        → the held memory absorbs it: metadata.sources += {source, id, at}, importance = max, one more access;
          a belief absorbing a fact becomes a fact (confirm); an opinion gains confidence (reinforce)
    the same claim with another value, or a twin (tiers/knowledge/twins.py: the same sentence with another
    number where its value stands) → the older memory's superseded_by = the newer's id; newer.supersedes += it
        (the newest wins: its own date and time when a note or turn gives them, else created_at, then the id
        breaks ties: every device derives the same from the same memories)
    the opposite of an opinion ("not" on one side only) → the opinion loses confidence (contradict)

Held memories are warm's entries and the local index's rows the new text finds (a few per store, and none past
COLD_LOOKUPS in one batch: the maintain pass, tiers/knowledge/maintain.py, catches up on the rest).
"""
from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, Callable

from memoryd.tiers.base.errors import MemorydError
from memoryd.tiers.knowledge import kinds, log
from memoryd.tiers.knowledge.restate import contradicts, core_text, raw_turn, restates, signature
from memoryd.tiers.knowledge.subject import claim_of
from memoryd.tiers.knowledge.twins import twins

if TYPE_CHECKING:
    from memoryd.tiers.base.ports import Archive

STEP = 0.1           # an opinion's confidence moves by at most this per piece of evidence (× its importance)
COLD_LOOKUPS = 200   # local-index searches one batch of stores may make
COLD_HITS = 8
Memory = dict[str, Any]


def moment(m: Memory) -> str:
    """When a memory was last said, as an ISO string: a note's or turn's own date and time, else when it was
    stored; a memory said again later (SAID_AT_KEY) is as new as that."""
    meta = m.get("metadata") or {}
    again = meta.get(kinds.SAID_AT_KEY)
    first = _first_said(m, meta)
    return max(first, again) if isinstance(again, str) and again[:4].isdigit() else first


def _first_said(m: Memory, meta: dict[str, Any]) -> str:
    date, at = meta.get("date"), meta.get("time")
    if isinstance(at, str) and len(at) > 10 and at[4:5] == "-":
        return at[:19]
    if isinstance(date, str) and len(date) == 10:
        return f"{date}T{at}" if isinstance(at, str) and len(at) == 5 else date
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(float(m.get("created_at") or 0)))


def said_again(book: Book, held: Memory, new: Memory) -> None:
    """`held` said again by `new`: as new as its latest saying, and current again if a value it had given way to
    is older than that ("office at 12 Elm St", then "7 Quay Lane", then "12 Elm St" once more)."""
    when = moment(new)
    if when <= moment(held):
        return
    meta = held.setdefault("metadata", {})
    meta[kinds.SAID_AT_KEY] = when
    if meta.pop(kinds.SUPERSEDED_BY_KEY, None):  # retrieve and maintain judge its rival by the new moment
        book.note("current", held, "said again after the value that replaced it: current again", by=new["id"])


def newer(a: Memory, b: Memory) -> bool:
    """Whether `a` is newer than `b`: said later, then stored later, then the larger id (the same on every device)."""
    return (moment(a), a.get("created_at", 0), a["id"]) > (moment(b), b.get("created_at", 0), b["id"])


def add_source(held: Memory, new: Memory, at: float) -> None:
    meta = held.setdefault("metadata", {})
    sources = meta.setdefault(kinds.SOURCES_KEY, [])
    if new["id"] != held["id"] and all(s.get("id") != new["id"] for s in sources):
        sources.append({"source": str((new.get("metadata") or {}).get("source") or "store"), "id": new["id"],
                        "at": int(at)})


def step_confidence(held: Memory, evidence: Memory, sign: int, at: float, why: str) -> float:
    """Move an opinion's (or belief's) confidence by ±STEP × the evidence's importance, bounded to 0..1; the
    step is appended to metadata.evidence. Returns the delta applied."""
    meta = held.setdefault("metadata", {})
    before = kinds.confidence_of(meta)
    before = 0.5 if before is None else before
    delta = round(sign * STEP * max(0.1, min(1.0, float(evidence.get("importance") or 0.5))), 4)
    after = round(min(1.0, max(0.0, before + delta)), 4)
    meta[kinds.CONFIDENCE_KEY] = after
    meta.setdefault(kinds.EVIDENCE_KEY, []).append({"id": evidence["id"], "delta": round(after - before, 4),
                                                    "at": int(at), "why": why})
    return after - before


def supersede(old: Memory, new: Memory) -> None:
    """`new` holds the current value of what `old` said."""
    old.setdefault("metadata", {})[kinds.SUPERSEDED_BY_KEY] = new["id"]
    ids = new.setdefault("metadata", {}).setdefault(kinds.SUPERSEDES_KEY, [])
    if old["id"] not in ids:
        ids.append(old["id"])
        ids.sort()


class Book:
    """What one batch of stores compares against: warm's entries (indexed once) and local-index rows found
    on the way. Changes to index rows wait in `cold_changes` until flush(); log rows in `rows`."""

    def __init__(self, warm: list[Memory], archive: Archive | None, agent_id: str, now: float,
                 knowledge: bool = True) -> None:
        self.warm, self.archive, self.agent_id, self.now = warm, archive, agent_id, now
        self.knowledge = knowledge  # [knowledge] layer off: every memory is added as said
        self.cold_changes: dict[str, Memory] = {}
        self.rows: list[dict[str, Any]] = []
        self.lookups = 0
        self._by_word: dict[str, list[Memory]] | None = None  # warm's entries by content term and claim key

    def _words(self, text: str) -> set[str]:
        claim = claim_of(text)
        return set(signature(text)[1]) | ({f"\x00{claim.key}"} if claim else set())

    def add_warm(self, m: Memory) -> None:
        """A warm entry added in this batch: later stores of the batch compare against it too."""
        if self._by_word is not None:
            for w in self._words(m["text"]):
                self._by_word.setdefault(w, []).append(m)

    def _warm_near(self, text: str) -> list[Memory]:
        if self._by_word is None:
            self._by_word = {}
            for m in self.warm:
                self.add_warm(m)
        words = self._words(text)
        hits: dict[int, int] = {}
        found: dict[int, Memory] = {}
        for w in words:
            for m in self._by_word.get(w, ()):
                found.setdefault(id(m), m)
                # a shared claim key always counts; else restates() needs half the words in common at least
                hits[id(m)] = hits.get(id(m), 0) + (len(words) if w.startswith("\x00") else 2)
        return [m for k, m in found.items() if hits[k] >= len(words)]

    def _cold(self, text: str) -> list[Memory]:
        if self.archive is None or self.lookups >= COLD_LOOKUPS:
            return []
        from memoryd.tiers.retrieval import analyzer

        terms = analyzer.query_terms(core_text(text))
        if not terms:
            return []
        self.lookups += 1
        try:
            hits = self.archive.search(self.agent_id, terms, COLD_HITS)
        except MemorydError:
            return []  # the maintain pass will see it
        return [dict(self.cold_changes.get(h["id"], h), _index=True) for h in hits]  # a row, not a warm entry

    def held(self, new: Memory) -> list[Memory]:
        """The current memories a new one may restate, supersede or contradict: warm first, then cold."""
        seen = {new["id"]}
        out = []
        for m in self._warm_near(new["text"]) + self._cold(new["text"]):
            if m["id"] not in seen and kinds.is_current(m.get("metadata")) and \
                    kinds.kind_of(m.get("metadata")) != kinds.SUMMARY:  # a summary states many things, none alone
                seen.add(m["id"])
                out.append(m)
        return out

    def changed(self, m: Memory) -> None:
        if m.get("_index"):
            self.cold_changes[m["id"]] = {k: v for k, v in m.items() if k not in ("_index", "tier", "bm25", "day")}

    def note(self, op: str, m: Memory, why: str, **extra: Any) -> None:
        self.rows.append(log.row(op, m["id"], why, m.get("text", ""), **extra))

    def flush(self) -> int:
        """Write the changed index rows (durable; queued for the cloud log with a server URL)."""
        if not self.cold_changes or self.archive is None:
            return 0
        n = self.archive.put(self.agent_id, list(self.cold_changes.values()))
        self.cold_changes.clear()
        return n


def absorb(book: Book, held: Memory, new: Memory) -> None:
    """`held` takes `new` in: a source more, the higher importance, one more access; kinds move."""
    now = book.now
    add_source(held, new, now)
    said_again(book, held, new)
    held["importance"] = max(float(held.get("importance") or 0.0), float(new.get("importance") or 0.0))
    held["access_count"] = int(held.get("access_count") or 0) + 1
    held["last_access"] = int(now)
    held_kind, new_kind = kinds.kind_of(held.get("metadata")), kinds.kind_of(new.get("metadata"))
    if held_kind == kinds.BELIEF and new_kind == kinds.FACT:
        meta = held["metadata"]
        meta[kinds.KIND_KEY] = kinds.FACT
        meta.setdefault(kinds.EVIDENCE_KEY, []).append({"id": new["id"], "delta": 0.0, "at": int(now),
                                                        "why": "confirmed by a fact"})
        book.note("confirm", held, "a later fact says the same: the belief is a fact now", by=new["id"])
    elif held_kind == kinds.OPINION:
        delta = step_confidence(held, new, +1, now, "restated")
        book.note("reinforce", held, f"restated: confidence {delta:+.2f}", by=new["id"], delta=delta)
    else:
        book.note("merge", held, "the same memory stated again", by=new["id"])
    book.changed(held)


def place(book: Book, new: Memory, add: Callable[[Memory], tuple[Memory, bool]], known: bool
          ) -> tuple[Memory, bool, bool]:
    """Store `new` (a fresh warm entry) against what is held. Returns (the memory it became, created,
    merged): merged when a held memory absorbed it (then nothing new is added); `add(entry)` adds to warm;
    `known`: warm holds an entry with new's id already."""
    if known:  # the same id: warm reinforces it
        entry, created = add(new)
        said_again(book, entry, new)
        return entry, created, False
    if not book.knowledge:
        entry, created = add(new)
        return entry, created, False
    claim = claim_of(new["text"])
    held = book.held(new)
    turn_sourced: list[Memory] = []
    for m in held:
        other = claim_of(m["text"])
        differs = claim is not None and other is not None and other.key == claim.key and other.value != claim.value
        if not differs and mergeable(m, new) and (restates(m["text"], new["text"]) or
                                                  (claim is not None and other == claim)):
            if raw_turn(m) and not raw_turn(new):  # the fact distilled from a turn is the memory; the turn its source
                add_source(new, m, float(m.get("created_at") or book.now))
                turn_sourced.append(m)
                continue
            absorb(book, m, new)
            return m, False, True
    for m in held:
        other = claim_of(m["text"]) if claim is not None else None
        if other is not None and other.key == claim.key and other.value != claim.value:  # type: ignore[union-attr]
            old, cur = (m, new) if newer(new, m) else (new, m)
            supersede(old, cur)
            book.note("supersede", old, f"{claim.key}: {other.value!r} → {claim.value!r}"  # type: ignore[union-attr]
                      if old is m else f"{claim.key}: a newer memory holds {other.value!r}", by=cur["id"])
            book.changed(m)
        elif claim is None and claim_of(m["text"]) is None and twins(m["text"], new["text"]) \
                and moment(m) != moment(new):  # twins said together are a list, not a change
            old, cur = (m, new) if newer(new, m) else (new, m)
            supersede(old, cur)
            book.note("supersede", old, "the same sentence with a newer number" if old is m else
                      "the same sentence with a newer number is held", by=cur["id"])
            book.changed(m)
        elif kinds.kind_of(m.get("metadata")) == kinds.OPINION and contradicts(m["text"], new["text"]):
            delta = step_confidence(m, new, -1, book.now, "contradicted")
            book.note("contradict", m, f"contradicted: confidence {delta:+.2f}", by=new["id"], delta=delta)
            book.changed(m)
    entry, created = add(new)
    book.add_warm(entry)
    for m in turn_sourced:
        book.note("merge", entry, "the fact of a turn already archived: the turn is its source", turn=m["id"])
    return entry, created, False


def mergeable(held: Memory, new: Memory) -> bool:
    """Kinds that may become one memory: the same kind, a belief and the fact that confirms it, an opinion and
    whatever restates it (reinforcement). An opinion is never folded into a fact, nor a summary into either."""
    a, b = kinds.kind_of(held.get("metadata")), kinds.kind_of(new.get("metadata"))
    return a == b or (a == kinds.BELIEF and b == kinds.FACT) or a == kinds.OPINION


