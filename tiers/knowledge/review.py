"""The review queue: knowledge questions the rules cannot decide, answered by a person or the agent in one action.

    same_thing  two memories that may state two values of one thing: does the newer replace the older?
    confirm     a belief that a later fact may confirm
    evidence    an opinion and a memory that may support or contradict it

Open questions live in agents/<id>/review.json (atomic, under the agent's lock, 0600), members by id only (a
forget leaves no text here; previews are read from the memories when listed). A question's id is a content hash
of its kind and member ids, so every device derives the same id for the same question.

An answer is one action: `current` (the newest member replaces the others: superseded_by, superseded_how
"review"), `merge` (the newest absorbs the others as restatements: metadata.sources, the others marked
superseded), `both` (both stay true) or `dismiss`. Every member then carries the answer in its own metadata
(REVIEWED_KEY: {question id: {kind, action, at, members, before}}): it travels to other devices with the
memory like any change (warm in the critical state, cold rows through the outbox), so an answered question
never comes back anywhere, and `undo` restores the keys listed in `before` on whichever device asks.
The maintain pass keeps a review's superseded_by (maintain.BY_HAND). Every step goes to the knowledge log.
"""
from __future__ import annotations

import functools
import hashlib
import re
from typing import TYPE_CHECKING, Any, Iterable, Mapping

from memoryd.tiers.base.atomic import atomic_write_json
from memoryd.tiers.base.errors import UsageError
from memoryd.tiers.knowledge import change, kinds, lang_words, log, review_file
from memoryd.tiers.knowledge.restate import core_text, numbers_and_codes, restates
from memoryd.tiers.knowledge.truth import judged, moment, newer
from memoryd.tiers.memory.model import preview
from memoryd.tiers.retrieval import analyzer
from memoryd.tiers.retrieval.asks import asks_only

if TYPE_CHECKING:
    from memoryd.tiers.memory.agent import AgentMemory

Memory = dict[str, Any]
KINDS = ("same_thing", "confirm", "evidence")
ACTIONS = ("current", "both", "merge", "dismiss")
REVIEWED_KEY = review_file.REVIEWED_KEY   # metadata: {question id: the answer given about this memory}
FILE = review_file.FILE
MAX_OPEN = 50               # open questions kept; the oldest are dropped first
MAX_ANSWERED = 500          # answers this device remembers the members of (undo without a scan)
PER_MEMORY = 2              # same_thing questions one new memory may raise
COMMON = 200                # a term held by more memories than this says nothing about sameness
MIN_SHARED = 3  # sixty-eight corpus files: 2 → 3 asks 2,375 questions, not 2,989, 28 fewer right (0.344 → 0.421)
# Words saying a value changed without naming the one it replaces (change.py decides those that name it).
_LATIN = re.compile(r"[A-Za-z']+")


def question_id(kind: str, ids: Iterable[str]) -> str:
    """The same id on every device: a hash of the kind and the sorted member ids."""
    return hashlib.sha256("\n".join([kind, *sorted(set(ids))]).encode("utf-8")).hexdigest()[:16]


def question(kind: str, ids: Iterable[str], why: str, at: float) -> dict[str, Any]:
    """One open question (members oldest first as given)."""
    members = list(dict.fromkeys(ids))
    if kind not in KINDS:
        raise ValueError(f"unknown review question kind {kind!r}")
    if len(members) < 2:
        raise ValueError("a review question needs two memories")
    return {"id": question_id(kind, members), "kind": kind, "members": members, "why": why, "created_at": int(at)}


# -- the producer: pairs no rule decides ----------------------------------------------------------------
def _has_cue(text: str) -> bool:
    """Words saying a value changed (tiers/knowledge/lang/*.json ask_words)."""
    return _after_cue_word(text) is not None


def _after_cue_word(text: str) -> str | None:
    """What a memory says after its first word of change (`… now leaves from the north quay`), case-folded, its
    words of now that say no change (`right now`) left out; None when it has no word of change."""
    said = lang_words.ask_not().sub(" ", change.spoken(text).casefold())
    words, phrases = lang_words.ask_words()
    at = [m.end() for m in _LATIN.finditer(said) if m.group(0) in words][:1] + \
        [said.find(c) + len(c) for c in phrases if c in said]
    return said[min(at):] if at else None


def _after_cue(text: str) -> frozenset[str]:
    """The content terms a memory says after its first word of change."""
    after = _after_cue_word(text) or ""
    return frozenset(t for t in analyzer.terms(after) if t.isascii() or len(t) > 1) - _cue_terms()


@functools.lru_cache(maxsize=1)
def _cue_terms() -> frozenset[str]:
    words, phrases = lang_words.ask_words()
    return frozenset(t for w in (*words, *phrases) for t in analyzer.terms(w))


def _content(text: str) -> set[str]:
    cue_terms = _cue_terms()
    return {t for t in analyzer.terms(change.spoken(text))
            if t not in cue_terms and (t.isascii() or len(t) >= 2)}  # a lone Chinese character says little


def _answered(m: Mapping[str, Any], qid: str) -> bool:
    return qid in ((m.get("metadata") or {}).get(REVIEWED_KEY) or {})


def questions_from(memories: Iterable[Mapping[str, Any]], limit: int = MAX_OPEN) -> list[dict[str, Any]]:
    """`same_thing` questions, newest first: a current memory whose words say a value changed ("now", "no
    longer", "moved", "现在", "改成" …) without naming the value it replaces, and an older current memory of the
    same kind sharing ≥ MIN_SHARED content terms with it that it does not restate. Pure; at most `limit`
    questions, at most PER_MEMORY a memory, none already answered (REVIEWED_KEY on a member)."""
    held = [dict(m) for m in memories if judged(m) and kinds.is_current(m.get("metadata"))]
    terms = {m["id"]: _content(m["text"]) for m in held}
    index: dict[str, list[Memory]] = {}
    for m in held:
        for t in terms[m["id"]]:
            index.setdefault(t, []).append(m)
    byid = {m["id"]: m for m in held}
    asking = sorted((m for m in held if _has_cue(m["text"]) and not any(c.act for c in change.cues(m["text"]))),
                    key=lambda m: (moment(m), m["id"]), reverse=True)
    out: list[dict[str, Any]] = []
    for new in asking:
        shared: dict[str, int] = {}
        for t in terms[new["id"]]:
            posting = index.get(t, ())
            if len(posting) <= COMMON:
                for m in posting:
                    shared[m["id"]] = shared.get(m["id"], 0) + 1
        near = sorted((i for i, n in shared.items() if n >= MIN_SHARED and i != new["id"]),
                      key=lambda i: (shared[i], moment(byid[i]), i), reverse=True)
        asked: list[str] = []
        for old in (byid[i] for i in near):
            if len(asked) >= PER_MEMORY or len(out) >= limit:
                break
            said = change.spoken(old["text"])
            if any(restates(said, text) for text in asked):
                continue  # the same line taken in twice (a note and its transcript): one question asks of both
            q = _pair(old, new, shared[old["id"]])
            if q is not None:
                out.append(q)
                asked.append(said)
        if len(out) >= limit:
            break
    return out


def values(text: str) -> frozenset[str]:
    """The numbers and codes a text names (9443, 9:45, DP-1187): the values a change of one would show."""
    return frozenset(numbers_and_codes(core_text(text)))


def _pair(old: Memory, new: Memory, n: int) -> dict[str, Any] | None:
    if kinds.kind_of(old.get("metadata")) != kinds.kind_of(new.get("metadata")) or not newer(new, old):
        return None
    if old["id"] in ((new.get("metadata") or {}).get(kinds.SUPERSEDES_KEY) or []) or restates(old["text"], new["text"]):
        return None
    if asks_only(old["text"]) or asks_only(new["text"]):
        return None  # a memory that only asks holds no value to replace or be replaced
    said_now = values(new["text"])
    if said_now and said_now <= values(old["text"]):
        return None  # every number or code the newer names, the older names too: the same value said again
    told = _after_cue(new["text"])
    if told and told <= set(analyzer.terms(old["text"])) and values(old["text"]) <= said_now:
        return None  # every word the newer says after its word of change, the older says too (and no number the
        # newer does not): the same value said again
    said = preview(new["text"], 40)
    q = question("same_thing", [old["id"], new["id"]], f"the newer says a value changed (\"{said}\") and shares "
                 f"{n} words with the older, but names no value it replaces", 0)
    if _answered(old, q["id"]) or _answered(new, q["id"]):
        return None
    q["created_at"] = None  # set when queued
    return q


# -- the queue file ---------------------------------------------------------------------------------------
def _load(mem: AgentMemory) -> dict[str, Any]:
    return review_file.load(mem.dir)


def _save(mem: AgentMemory, data: dict[str, Any]) -> None:
    data["open"] = sorted(data["open"], key=lambda q: q.get("created_at") or 0)[-MAX_OPEN:]  # stable: queue order
    answered = data.get("answered") or {}
    data["answered"] = dict(list(answered.items())[-MAX_ANSWERED:])
    atomic_write_json(mem.dir / FILE, data)


def _held(mem: AgentMemory, ids: Iterable[str]) -> dict[str, Memory]:
    """The memories with these ids, from warm or the local index (`_where` says which); absent ids left out."""
    wanted = list(dict.fromkeys(ids))
    found: dict[str, Memory] = {e["id"]: dict(e, _where="warm") for e in mem.snapshot()["warm"]["entries"]
                                if e["id"] in wanted}
    rest = [i for i in wanted if i not in found]
    if rest and mem.archive is not None:
        found.update({e["id"]: dict(e, _where="cold") for e in mem.archive.get(mem.agent_id, rest)})
    return found


def add_questions(mem: AgentMemory, questions: Iterable[Mapping[str, Any]]) -> list[str]:
    """Queue questions the rules could not decide; returns the ids of those added.

    Each question is a mapping with `kind` (one of KINDS), the member ids (`ids` or `members`: two or more;
    for same_thing the older first) and `why` (one line). A question already open, already answered (a member
    carries its answer, on this device or another), or naming a memory no longer held is skipped. At most
    MAX_OPEN stay open, the oldest dropped first. Atomic, under the agent's lock."""
    asked = [question(str(q["kind"]), q.get("ids") or q.get("members") or [], str(q.get("why") or ""), 0)
             for q in questions]
    if not asked:
        return []
    added: list[str] = []
    with mem.exclusive():
        data, now = _load(mem), int(mem.clock())
        known = {q["id"] for q in data["open"]}
        held = _held(mem, {i for q in asked for i in q["members"]})
        for q in asked:
            if q["id"] in known or not _still_asks(q, held):
                continue
            data["open"].append(dict(q, created_at=now))
            known.add(q["id"])
            added.append(q["id"])
        if added:
            _save(mem, data)
    return added


def _still_asks(q: Mapping[str, Any], held: Mapping[str, Memory]) -> bool:
    """Every member still held, none carrying an answer to it, and for same_thing none replaced meanwhile (a rule,
    the agent or another answer decided it)."""
    members = [held.get(i) for i in q["members"]]
    if any(m is None or _answered(m, q["id"]) for m in members):
        return False
    return q["kind"] != "same_thing" or all(kinds.is_current(m.get("metadata")) for m in members if m is not None)


def open_questions(mem: AgentMemory) -> list[dict[str, Any]]:
    """The open questions, oldest first, each member with its id, text preview, date and kind; a question
    answered elsewhere (a member carries the answer) or naming a forgotten memory is left out."""
    with mem.exclusive():
        data = _load(mem)
        held = _held(mem, {i for q in data["open"] for i in q["members"]})
    out = []
    for q in data["open"]:
        if _still_asks(q, held):
            out.append(dict(q, members=[_member(held[i]) for i in q["members"]]))
    return out


def answered_here(mem: AgentMemory, limit: int = 10) -> list[str]:
    """The questions this device answered last, newest first (what the web view offers to undo)."""
    with mem.exclusive():
        answered = list((_load(mem).get("answered") or {}))
    return answered[::-1][:limit]


def _member(m: Memory) -> dict[str, Any]:
    meta = m.get("metadata") or {}
    return {"id": m["id"], "text": preview(m["text"], 200), "date": moment(m)[:10], "kind": kinds.kind_of(meta),
            "tier": m["_where"], **({"superseded_by": meta[kinds.SUPERSEDED_BY_KEY]}
                                    if meta.get(kinds.SUPERSEDED_BY_KEY) else {})}


# -- answers ----------------------------------------------------------------------------------------------
def _wanted(action: str, members: list[Memory], at: float, by: str = "review") -> dict[str, dict[str, Any]]:
    """{id: {metadata key: new value (None: remove)}} that an action asks for. Pure."""
    if action in ("both", "dismiss"):
        return {}
    newest = members[0]
    for m in members[1:]:
        if newer(m, newest):
            newest = m
    meta = newest.get("metadata") or {}
    older = [m for m in members if m["id"] != newest["id"]]
    out: dict[str, dict[str, Any]] = {m["id"]: {kinds.SUPERSEDED_BY_KEY: newest["id"],
                                                kinds.SUPERSEDED_HOW_KEY: by} for m in older}
    mine: dict[str, Any] = {kinds.SUPERSEDES_KEY: sorted(set(meta.get(kinds.SUPERSEDES_KEY) or [])
                                                         | {m["id"] for m in older})}
    if action == "merge":
        sources = list(meta.get(kinds.SOURCES_KEY) or [])
        sources += [{"source": "review", "id": m["id"], "at": int(at)} for m in older
                    if all(s.get("id") != m["id"] for s in sources)]
        mine[kinds.SOURCES_KEY] = sources
    out[newest["id"]] = mine
    return out


def _write(mem: AgentMemory, held: dict[str, Memory], metas: dict[str, dict[str, Any]]) -> None:
    """New metadata for held memories: index rows (queued for the cloud log with a server URL), then warm."""
    cold = [{k: v for k, v in held[i].items() if k not in ("day", "tier", "_where")} | {"metadata": meta}
            for i, meta in metas.items() if held[i]["_where"] == "cold"]
    if cold:
        mem.archive.put(mem.agent_id, cold)  # type: ignore[union-attr]
    warm = {i: meta for i, meta in metas.items() if held[i]["_where"] == "warm"}
    if warm:
        def change_warm(state: Any, now: float) -> None:
            for e in state["warm"]["entries"]:
                if e["id"] in warm:
                    e["metadata"] = warm[e["id"]]
        mem.change(change_warm, "review")


def _set(meta: dict[str, Any], want: Mapping[str, Any]) -> None:
    for key, value in want.items():
        if value is None:
            meta.pop(key, None)
        else:
            meta[key] = value


def resolve(mem: AgentMemory, qid: str, action: str, by: str = "review") -> dict[str, Any]:
    """Answer an open question with one action (see the module docstring); logged, reversible by undo().
    `by`: who answered ("review": a person or the agent; "llm": the configured LLM), kept in superseded_how."""
    if action not in ACTIONS:
        raise UsageError(f"unknown review action {action!r}: use one of {', '.join(ACTIONS)}")
    with mem.exclusive():
        data = _load(mem)
        q = next((q for q in data["open"] if q["id"] == qid), None)
        if q is None:
            raise UsageError(f"no open review question {qid!r} (memoryd review lists them)")
        held = _held(mem, q["members"])
        if not _still_asks(q, held):
            data["open"] = [o for o in data["open"] if o["id"] != qid]
            _save(mem, data)
            raise UsageError(f"review question {qid} was answered, decided or its memories forgotten meanwhile")
        now = mem.clock()
        members = [held[i] for i in q["members"]]
        want = _wanted(action, members, now, by)
        metas: dict[str, dict[str, Any]] = {}
        for m in members:
            meta = dict(m.get("metadata") or {})
            changes = want.get(m["id"], {})
            before = {k: meta.get(k) for k in changes}
            _set(meta, changes)
            meta[REVIEWED_KEY] = dict(meta.get(REVIEWED_KEY) or {}, **{qid: {
                "kind": q["kind"], "action": action, "at": int(now), "members": q["members"], "before": before}})
            metas[m["id"]] = meta
        _write(mem, held, metas)
        data["open"] = [o for o in data["open"] if o["id"] != qid]
        data.setdefault("answered", {})[qid] = q["members"]  # undo finds them without a scan
        _save(mem, data)
        mem.record_knowledge(_rows(q, action, members, want, by), now)
    return {"id": qid, "action": action, "changed": sorted(want), "members": q["members"]}


def _rows(q: dict[str, Any], action: str, members: list[Memory], want: dict[str, dict[str, Any]],
          by: str = "review") -> list[Any]:
    why = f"review {q['id']} ({q['kind']}): answered {action}" + (" by the LLM" if by == "llm" else "")
    rows = []
    who = by
    for m in members:
        by = (want.get(m["id"]) or {}).get(kinds.SUPERSEDED_BY_KEY)
        if by:
            op = "merge" if action == "merge" else "supersede"
            rows.append(log.row(op, m["id"], why, m["text"], by=by, how=who, question=q["id"]))
        else:
            rows.append(log.row("review", m["id"], why, m["text"], action=action, question=q["id"]))
    return rows


def undo(mem: AgentMemory, qid: str) -> dict[str, Any]:
    """Take an answer back: every member that carries it gets the metadata keys it had before, and the
    question is open again. Works on any device the answer reached."""
    with mem.exclusive():
        data = _load(mem)
        any_answer = _answer(mem, data, qid)
        if any_answer is None:
            raise UsageError(f"no answered review question {qid!r} on this device")
        now = mem.clock()
        held = _held(mem, any_answer["members"])
        metas: dict[str, dict[str, Any]] = {}
        for i, m in held.items():
            meta = dict(m.get("metadata") or {})
            answer = (meta.get(REVIEWED_KEY) or {}).get(qid)
            if answer is None:
                continue
            _set(meta, answer.get("before") or {})
            marks = {k: v for k, v in meta[REVIEWED_KEY].items() if k != qid}
            _set(meta, {REVIEWED_KEY: marks or None})
            metas[i] = meta
        _write(mem, held, metas)
        data.setdefault("answered", {}).pop(qid, None)
        if all(q["id"] != qid for q in data["open"]) and len(held) == len(any_answer["members"]):
            data["open"].append({"id": qid, "kind": any_answer["kind"], "members": any_answer["members"],
                                 "why": f"reopened: the answer {any_answer['action']!r} was undone",
                                 "created_at": int(now)})
        _save(mem, data)
        mem.record_knowledge([log.row("review", i, f"review {qid}: answer {any_answer['action']!r} undone",
                                      held[i]["text"], action="undo", question=qid) for i in metas], now)
    return {"id": qid, "undone": any_answer["action"], "restored": sorted(metas)}


def _answer(mem: AgentMemory, data: dict[str, Any], qid: str) -> dict[str, Any] | None:
    """One member's record of the answer to `qid` (it names all the members): warm first, then the members this
    device answered (review.json), else a scan of the local index (an answer given on another device: rare)."""
    for e in mem.snapshot()["warm"]["entries"]:
        answer = ((e.get("metadata") or {}).get(REVIEWED_KEY) or {}).get(qid)
        if isinstance(answer, dict):
            return answer
    if mem.archive is None:
        return None
    ids = (data.get("answered") or {}).get(qid)
    rows = mem.archive.get(mem.agent_id, ids) if ids else mem.archive.iter_entries(mem.agent_id)
    for e in rows:
        answer = ((e.get("metadata") or {}).get(REVIEWED_KEY) or {}).get(qid)
        if isinstance(answer, dict):
            return answer
    return None


# -- the agent's own answer at store time (store --supersedes, MCP memory_store supersedes) ---------------
def check_held(mem: AgentMemory, ids: Iterable[str]) -> list[str]:
    """The ids, stripped and without repeats; UsageError naming the first one no memory holds (nothing is
    stored then)."""
    wanted = list(dict.fromkeys(str(i).strip() for i in ids))
    if any(not i for i in wanted):
        raise UsageError("--supersedes: a memory id is empty")
    held = _held(mem, wanted)
    missing = [i for i in wanted if i not in held]
    if missing:
        raise UsageError(f"--supersedes: no memory with id {missing[0]!r} (memoryd retrieve --history shows ids)")
    return wanted


def supersede_by_agent(mem: AgentMemory, new_id: str, old_ids: Iterable[str]) -> list[str]:
    """The agent said memory `new_id` replaces `old_ids`: each old one gets superseded_by = new_id with
    superseded_how "agent" (the maintain pass keeps it), the new one supersedes += them; logged. Call under
    the agent's lock, right after the store. Returns the ids superseded (a restatement of an old one merged
    into it: that one is skipped)."""
    with mem.exclusive():
        olds = [i for i in dict.fromkeys(old_ids) if i != new_id]
        held = _held(mem, [new_id, *olds])
        olds = [i for i in olds if i in held]
        if new_id not in held or not olds:
            return []
        metas: dict[str, dict[str, Any]] = {}
        for i in olds:
            metas[i] = dict(held[i].get("metadata") or {})
            _set(metas[i], {kinds.SUPERSEDED_BY_KEY: new_id, kinds.SUPERSEDED_HOW_KEY: "agent"})
        mine = dict(held[new_id].get("metadata") or {})
        mine[kinds.SUPERSEDES_KEY] = sorted(set(mine.get(kinds.SUPERSEDES_KEY) or []) | set(olds))
        metas[new_id] = mine
        _write(mem, held, metas)
        mem.record_knowledge([log.row("supersede", i, "the agent said so (store --supersedes)", held[i]["text"],
                                      by=new_id, how="agent") for i in olds], mem.clock())
    return olds
