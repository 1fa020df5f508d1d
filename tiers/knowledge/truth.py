"""One current truth at store time, right or silent: a new memory that restates one already held is absorbed by
it, a new memory whose words say which value it replaces supersedes the memory holding that value, a belief a fact
confirms becomes a fact, and an opinion's confidence moves with the evidence for and against it. Every step goes
to the knowledge log (tiers/knowledge/log.py).

    restated (tiers/knowledge/restate.py: the same words, numbers and polarity)
        → the held memory absorbs it: metadata.sources += {source, id, at}, importance = max, one more access;
          a belief absorbing a fact becomes a fact (confirm); an opinion gains confidence (reinforce)
    a change said with the value it replaces (tiers/knowledge/change.py: "from X to Y", "Y instead of X",
    "no longer X", "从X换成Y" …) → the older memory stating X: superseded_by = the newer's id
    the opposite of an opinion ("not" on one side only) → the opinion loses confidence (contradict)

Held memories: warm's entries sharing the text's words (an in-memory index built once a batch) and the local
index's rows with the same restatement key (one indexed lookup); only a text with a change cue searches the
index for the value it names. A change said without naming what it replaces changes nothing (silent).
"""
from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, Callable

from memoryd.tiers.base.errors import MemorydError
from memoryd.tiers.knowledge import kinds, log
from memoryd.tiers.knowledge.restate import contradicts, raw_turn, restate_key, signature
from memoryd.tiers.knowledge import change

if TYPE_CHECKING:
    from memoryd.tiers.base.ports import Archive

STEP = 0.1           # an opinion's confidence moves by at most this per piece of evidence (× its importance)
COLD_LOOKUPS = 200   # local-index searches one batch of stores may make
COLD_HITS = 8
PREFETCH_CHUNK = 400  # restatement keys looked up in one query
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


def said_no_later(a: Memory, b: Memory) -> bool:
    """`a` was not said after `b` (by their own dates, then when stored): a statement naming the value it replaces
    is the newer of two said in the same second — its words say so."""
    return (moment(a), a.get("created_at", 0)) <= (moment(b), b.get("created_at", 0))


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


def supersede(old: Memory, new: Memory, part: bool = False) -> None:
    """`new` holds the current value of what `old` said (`part`: of one of the facts `old` states)."""
    old.setdefault("metadata", {})[kinds.UPDATED_BY_KEY if part else kinds.SUPERSEDED_BY_KEY] = new["id"]
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
        self.replaced: list[Memory] = []  # superseded in this batch: hot_truth.sweep takes their items out of hot
        self.lookups = 0
        self._by_key: dict[str, list[Memory]] | None = None  # warm's entries by restatement key (built once)
        self._by_word: dict[str, list[Memory]] | None = None  # ... by content term (built when a cue needs it)
        self._opinions: dict[str, list[Memory]] = {}           # warm's opinions by content term (contradictions)
        self._cold_keys: dict[str, list[Memory]] | None = None  # index rows by restatement key (prefetch)

    def _words(self, text: str) -> set[str]:
        return set(signature(text)[1])

    def add_warm(self, m: Memory) -> None:
        """A warm entry added in this batch: later stores of the batch compare against it too."""
        if self._by_key is not None:
            self._by_key.setdefault(restate_key(m["text"]), []).append(m)
            if kinds.kind_of(m.get("metadata")) == kinds.OPINION:
                for w in self._words(m["text"]):
                    self._opinions.setdefault(w, []).append(m)
        if self._by_word is not None:
            for w in self._words(m["text"]):
                self._by_word.setdefault(w, []).append(m)

    def _index_warm(self) -> None:
        if self._by_key is None:
            self._by_key = {}
            for m in self.warm:
                self.add_warm(m)

    def _warm_near(self, text: str) -> list[Memory]:
        """Warm entries sharing a content term with the text."""
        self._index_warm()
        if self._by_word is None:
            self._by_word = {}
            for m in self.warm:
                for w in self._words(m["text"]):
                    self._by_word.setdefault(w, []).append(m)
        found: dict[int, Memory] = {}
        for w in self._words(text):
            for m in self._by_word.get(w, ()):
                found.setdefault(id(m), m)
        return list(found.values())

    def prefetch(self, texts: list[str]) -> None:
        """Index rows with the restatement keys of a batch's texts, looked up at once (one query a chunk)."""
        if self.archive is None or not texts:
            return
        keys = sorted({restate_key(t) for t in texts})
        found: dict[str, list[Memory]] = {k: [] for k in keys}
        try:
            for i in range(0, len(keys), PREFETCH_CHUNK):
                for row in self.archive.by_restate_key(self.agent_id, keys[i:i + PREFETCH_CHUNK]):
                    key = (row.get("metadata") or {}).get(kinds.RESTATE_KEY)
                    if key in found:
                        found[key].append(row)
        except MemorydError:
            return  # each store then looks for itself
        self._cold_keys = found

    def _cold_same(self, key: str) -> list[Memory]:
        """Index rows with the same restatement key: from the batch's prefetch, else one indexed lookup."""
        if self.archive is None:
            return []
        if self._cold_keys is not None and key in self._cold_keys:
            rows = self._cold_keys[key]
        else:
            try:
                rows = self.archive.by_restate_key(self.agent_id, [key])
            except MemorydError:
                return []  # the maintain pass will see it
        return [dict(self.cold_changes.get(h["id"], h), _index=True) for h in rows]

    def _cold_named(self, terms: list[str]) -> list[Memory]:
        """Index rows naming a value a change cue replaces (tiers/knowledge/change.py): a search, made only for
        the few memories whose words say they replace something."""
        if self.archive is None or not terms or self.lookups >= COLD_LOOKUPS:
            return []
        self.lookups += 1
        try:
            hits = self.archive.search(self.agent_id, terms, COLD_HITS)
        except MemorydError:
            return []
        return [dict(self.cold_changes.get(h["id"], h), _index=True) for h in hits]

    def _current(self, found: list[Memory], new: Memory) -> list[Memory]:
        seen, out = {new["id"]}, []
        for m in found:
            if m["id"] not in seen and kinds.is_current(m.get("metadata")) and \
                    kinds.kind_of(m.get("metadata")) != kinds.SUMMARY:  # a summary states many things, none alone
                seen.add(m["id"])
                out.append(m)
        return out

    def same(self, new: Memory) -> list[Memory]:
        """Current memories `new` may restate (warm entries and index rows with its restatement key: two key
        lookups) or contradict (warm opinions sharing its words)."""
        self._index_warm()
        key = restate_key(new["text"])
        opinions = {id(m): m for w in self._words(new["text"]) for m in self._opinions.get(w, ())} \
            if self._opinions else {}  # no warm opinion: the words of each new fact need not be read
        return self._current(self._by_key.get(key, []) + list(opinions.values())  # type: ignore[union-attr]
                             + self._cold_same(key), new)

    def named(self, new: Memory) -> list[Memory]:
        """Current memories naming a value `new` says it replaces (none when it says no such thing)."""
        terms = list(change.lookup_terms(new["text"]))
        if not terms:
            return []
        return self._current(self._warm_near(" ".join(terms)) + self._cold_named(terms), new)

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
    new.setdefault("metadata", {})[kinds.RESTATE_KEY] = restate_key(new["text"])
    turn_sourced: list[Memory] = []
    key = new["metadata"][kinds.RESTATE_KEY]
    for m in book.same(new):  # absorbed only when it says the very same words (a fuzzy likeness only folds results)
        if mergeable(m, new) and restate_key(m["text"]) == key:
            if raw_turn(m) and not raw_turn(new):  # the fact distilled from a turn is the memory; the turn its source
                add_source(new, m, float(m.get("created_at") or book.now))
                turn_sourced.append(m)
                continue
            absorb(book, m, new)
            return m, False, True
        if kinds.kind_of(m.get("metadata")) == kinds.OPINION and contradicts(m["text"], new["text"]):
            delta = step_confidence(m, new, -1, book.now, "contradicted")
            book.note("contradict", m, f"contradicted: confidence {delta:+.2f}", by=new["id"], delta=delta)
            book.changed(m)
    for m, cue, how in change.replaced(new, [m for m in book.named(new) if judged(m)], said_no_later):
        if not cue.act:
            continue  # a rule that only asks: maintain queues the pair as a review question
        supersede(m, new, part=how == change.PART)
        m["metadata"][kinds.CHANGE_RULE_KEY] = cue.rule
        book.replaced.append(m)
        book.note("supersede" if how == change.WHOLE else "update", m,
                  f"{cue.old!r} → {cue.new or '(another value)'!r}: said in {cue.clause!r}", by=new["id"])
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




def judged(m: Memory) -> bool:
    """Memories a newer statement may replace: facts and experiences, not opinions or beliefs (those move by
    confidence) nor summaries."""
    return kinds.kind_of(m.get("metadata")) in (kinds.FACT, kinds.EXPERIENCE)
