"""Ingest what is new in one OpenClaw agent: its session store, older JSONL transcripts, session and daily notes.

State lives in the memoryd agent's `openclaw-state.json` (atomic, under the agent lock): a cursor per
store session (the last seq taken), a byte offset per JSONL session id, a signature per note file,
the last ingest and what was skipped. Each closed segment is distilled and its cursor written
under one lock hold, so a crash repeats at most one segment, and repeating is harmless (content ids).
A segment closes at a `reset` event, or — `close_open=True`, for `openclaw sync`, a flush or a
conversation gone quiet — at the last event there is. Without `close_open` (the daemon's pass on each
write) the open segment's turns go to cold at once as raw turns (same content ids as when the segment
closes, so closing it later changes nothing there), marked in `live` so each is put once; their
distillation still waits for the close. An unreadable store is one line in the state and the report;
its cursors stay.
"""
from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, NotRequired, TypedDict

from memoryd.tiers.base.atomic import atomic_write_json, read_json
from memoryd.tiers.ingest.conversation import distill_segments, turn_id
from memoryd.tiers.ingest.note_fact import DATE_RE
from memoryd.tiers.base.errors import MemorydError, UsageError
from memoryd.tiers.ingest.openclaw.events import EventParser, Parsed, Turn
from memoryd.tiers.ingest.openclaw.install import OpenClawAgent
from memoryd.tiers.ingest.openclaw.jsonl import TranscriptFile, classify_name, read_transcript, transcript_files
from memoryd.tiers.ingest.openclaw.store import SessionStore, StoreUnreadable
from memoryd.tiers.base.ports import LLM
from memoryd.tiers.ingest.session_notes import parse_session_note, session_note_date

if TYPE_CHECKING:
    from memoryd.tiers.memory.agent import AgentMemory

log = logging.getLogger("memoryd.tiers")
STATE_FILE = "openclaw-state.json"
BATCH_TURNS = 2000  # closed segments are written together up to this many turns (one put, one store)


class StoreState(TypedDict):
    path: str | None
    sessions: dict[str, dict[str, Any]]   # session id → {seq: the last taken, mute, at}
    error: str | None


class SyncState(TypedDict):
    """openclaw-state.json: where each source was read up to, and what the runs did."""

    version: int
    store: StoreState
    jsonl: dict[str, dict[str, Any]]      # session id → {offset, file, mute, at}
    notes: dict[str, list[int]]           # note file name → [mtime_ns, size] when ingested
    last_run: float | None
    last_ingest: float | None
    skipped: dict[str, int]               # why → events skipped
    totals: dict[str, int]                # turns, warm, cold
    last_error: NotRequired[str | None]
    live: NotRequired[dict[str, int]]     # session id → the last seq of its open segment already in cold


Move = Callable[[SyncState], None]  # a cursor's move, applied to the state when its segment is written


def _empty_state() -> SyncState:
    return {"version": 1, "store": {"path": None, "sessions": {}, "error": None}, "jsonl": {}, "notes": {},
            "last_run": None, "last_ingest": None, "skipped": {}, "totals": {"turns": 0, "warm": 0, "cold": 0}}


def _valid(obj: Any) -> None:
    if not isinstance(obj, dict) or not isinstance(obj.get("store", {}).get("sessions"), dict):
        raise TypeError("not an openclaw state")
    for key, value in _empty_state().items():
        obj.setdefault(key, value)


def load_state(mem: AgentMemory) -> SyncState:
    state: SyncState = read_json(Path(mem.dir) / STATE_FILE, _empty_state, _valid)
    return state


class AgentSync:
    """One run over one OpenClaw agent for one memoryd agent (`mem`, an AgentMemory with its archive)."""

    def __init__(self, mem: AgentMemory, agent: OpenClawAgent, llm: LLM | None = None, close_open: bool = True) -> None:
        self.mem, self.agent, self.llm, self.close_open = mem, agent, llm, close_open
        self._pending: list[tuple[list[Turn], dict[str, int], Move]] = []
        self._pending_turns = 0
        self.report: dict[str, Any] = {"agent_id": mem.agent_id, "openclaw_agent": agent.openclaw_id, "segments": 0,
                                       "turns": 0, "cold": 0, "warm": 0, "hot": [], "skipped": {}, "notes": 0,
                                       "errors": [], "warnings": []}

    # -- state --------------------------------------------------------------------------
    def _commit(self, turns: list[Turn], skipped: dict[str, int], move: Move) -> None:
        """Queue one closed segment and its cursor move; written in batches by _flush."""
        self._pending.append((turns, skipped, move))
        self._pending_turns += len(turns)
        if self._pending_turns >= BATCH_TURNS:
            self._flush()

    def _flush(self) -> None:
        """Distil the queued segments and move their cursors, under one hold of the agent lock."""
        pending, self._pending, self._pending_turns = self._pending, [], 0
        if not pending:
            return
        with self.mem.exclusive():
            state = load_state(self.mem)
            segments = [turns for turns, _, _ in pending if turns]
            if segments:
                done = distill_segments(self.mem, segments, "openclaw", self.llm)
                self.report["segments"] += len(segments)
                for key in ("turns", "cold", "warm"):
                    self.report[key] += done[key]
                    state["totals"][key] = state["totals"].get(key, 0) + done[key]
                self.report["hot"] += done["hot"]
                self.report["warnings"] += done["warnings"]
                state["last_ingest"] = self.mem.clock()
            for _, skipped, move in pending:
                for why, n in skipped.items():
                    self.report["skipped"][why] = self.report["skipped"].get(why, 0) + n
                    state["skipped"][why] = state["skipped"].get(why, 0) + n
                move(state)
            atomic_write_json(Path(self.mem.dir) / STATE_FILE, state)

    def _note_error(self, where: str, message: str, log_it: bool = True) -> None:
        line = f"{where}: {message}" if where else message
        self.report["errors"].append(line)
        if log_it:
            # `reported`: the line is in the run's report too (a CLI prints that one, not this)
            log.warning("OpenClaw agent %s: %s", self.agent.openclaw_id, line, extra={"reported": True})

    # -- the session store --------------------------------------------------------------------
    def sync_store(self) -> None:
        path = self.agent.store
        if not path.exists():
            return
        try:
            with SessionStore(path) as store:
                cursors = load_state(self.mem)["store"]["sessions"]
                for sid, top in sorted(store.sessions().items()):
                    cur = cursors.get(sid) or {"seq": -1}
                    if top > int(cur.get("seq", -1)):
                        self._sync_session(store, sid, cur)
            self._store_status(str(path), None)
        except StoreUnreadable as exc:
            self._note_error("", exc.message, log_it=self._store_status(str(path), exc.message))

    def _store_status(self, path: str, error: str | None) -> bool:
        """Record the store's condition; True when it changed (a broken store is logged once, not per pass)."""
        with self.mem.exclusive():
            state = load_state(self.mem)
            if state["store"].get("error") == error and state["store"].get("path") == path:
                return False
            state["store"]["path"], state["store"]["error"] = path, error
            atomic_write_json(Path(self.mem.dir) / STATE_FILE, state)
            return True

    def _sync_session(self, store: SessionStore, sid: str, cur: dict[str, Any]) -> None:
        parser = EventParser(sid)
        parser.mute_reply = bool(cur.get("mute"))
        seg, last = Parsed(), int(cur.get("seq", -1))
        for row in store.iter_after(sid, last):
            last = row.seq
            if row.event is None:
                seg.skip("undecodable row")
                continue
            parser.feed(row.event, row.seq, row.created_at, seg)
            if seg.resets:  # a reset closes the segment at this event
                self._commit(seg.turns, seg.skipped, _cursor(sid, row.seq, False))
                seg = Parsed()
        if self.close_open and (seg.turns or seg.skipped or last > int(cur.get("seq", -1))):
            self._commit(seg.turns, seg.skipped, _cursor(sid, last, parser.mute_reply))
        elif not self.close_open and seg.turns:
            self._live(sid, seg.turns)

    def _live(self, sid: str, turns: list[Turn]) -> None:
        """The open segment's turns not yet in cold go there now, raw (retrievable in seconds)."""
        from memoryd.tiers.ingest.conversation import cold_entries

        done = int((load_state(self.mem).get("live") or {}).get(sid, -1))
        new = [t for t in turns if t.seq > done]
        if not new or self.mem.archive is None:
            return
        self.mem.archive.put(self.mem.agent_id, cold_entries(new, "openclaw"))
        self.report["live"] = self.report.get("live", 0) + len(new)
        top = max(t.seq for t in new)

        def move(state: SyncState) -> None:
            state.setdefault("live", {})[sid] = top
        self._commit([], {}, move)

    # -- older JSONL transcripts ------------------------------------------------------------------
    def sync_jsonl(self, only: TranscriptFile | None = None) -> None:
        files = [only] if only is not None else transcript_files(self.agent.sessions_dir)
        for tf in files:
            entry = load_state(self.mem)["jsonl"].get(tf.session_id) or {"offset": 0}
            parser = EventParser(tf.session_id)
            parser.mute_reply = bool(entry.get("mute"))
            try:
                parsed, end = read_transcript(tf, int(entry.get("offset", 0)), parser)
            except UsageError as exc:
                self._note_error(tf.path.name, exc.message)
                continue
            if end == entry.get("offset") and not parsed.turns:
                continue
            segments = _split_at_resets(parsed)
            for i, turns in enumerate(segments):
                last = i == len(segments) - 1
                self._commit(turns, parsed.skipped if last else {},
                             _offset(tf, end, parser.mute_reply) if last else (lambda s: None))
            self._flush()  # the next file may be the same session renamed: it reads this offset

    # -- notes ----------------------------------------------------------------------------------
    def sync_notes(self) -> None:
        folder = self.agent.workspace / "memory"
        if not folder.is_dir():
            return
        seen = load_state(self.mem)["notes"]
        for path in sorted(folder.glob("*.md")):
            sig = _signature(path)
            if sig is None or seen.get(path.name) == sig:
                continue
            try:
                if DATE_RE.match(path.stem):
                    self._daily(path)
                elif session_note_date(path.name):
                    self._session_note(path)
                else:
                    continue
            except UsageError as exc:
                self._note_error(path.name, exc.message)
                continue
            self.report["notes"] += 1
            self._commit([], {}, _note_seen(path.name, sig))

    def _daily(self, path: Path) -> None:
        from memoryd.tiers.ingest.dailynotes import ingest

        done = ingest(self.mem, self.agent.workspace, date=path.stem)
        self.report["warm"] += done["stored"]
        self.report["warnings"] += done["warnings"]
        self.report["hot"] += done.get("hot", [])

    def _session_note(self, path: Path) -> None:
        from memoryd.tiers.knowledge.lowvalue import is_low_value

        sid, parsed, _ = parse_session_note(path)
        turns = [t for t in parsed.turns if not is_low_value(t.text, t.role)]  # filler: not in cold, nothing to repeat
        if turns and self.mem.archive is not None:
            known = {e["id"] for e in self.mem.archive.get(self.mem.agent_id,
                                                            [turn_id(t.session_id, t.role, t.text) for t in turns])}
            turns = [t for t in turns if turn_id(t.session_id, t.role, t.text) not in known]
        self._commit(turns, parsed.skipped, lambda s: None)

    def run(self, parts: tuple[str, ...] = ("store", "jsonl", "notes")) -> dict[str, Any]:
        """Store first, so a session note finds the turns it repeats already in cold.

        The agent lock is held for the whole run: two runs for one agent (the daemon's watcher and a
        `memoryd openclaw sync`, or two processes) never read the same cursor at once.
        """
        steps = {"store": self.sync_store, "jsonl": self.sync_jsonl, "notes": self.sync_notes}
        with self.mem.exclusive():
            for part in parts:
                try:
                    steps[part]()
                    self._flush()
                except MemorydError as exc:  # cold archive down, local state unwritable: try again later
                    self._pending, self._pending_turns = [], 0  # their cursors stay where they were
                    self._note_error(part, exc.message)
                    break
            state = load_state(self.mem)
            state["last_run"] = self.mem.clock()
            state["last_error"] = self.report["errors"][0] if self.report["errors"] else None
            atomic_write_json(Path(self.mem.dir) / STATE_FILE, state)
        return self.report


def _cursor(sid: str, seq: int, mute: bool) -> Move:
    def move(state: SyncState) -> None:
        state["store"]["sessions"][sid] = {"seq": seq, "mute": mute, "at": time.time()}
        if (state.get("live") or {}).get(sid, -1) <= seq:
            state.get("live", {}).pop(sid, None)  # closed: its turns are in cold by the close itself
    return move


def _offset(tf: TranscriptFile, end: int, mute: bool) -> Move:
    def move(state: SyncState) -> None:
        state["jsonl"][tf.session_id] = {"offset": end, "file": tf.path.name, "mute": mute, "at": time.time()}
    return move


def _note_seen(name: str, sig: list[int]) -> Move:
    def move(state: SyncState) -> None:
        state["notes"][name] = sig
    return move


def _split_at_resets(parsed: Parsed) -> list[list[Turn]]:
    """Turns in segments: each reset (by seq) closes the one before it; always at least one segment."""
    segments: list[list[Turn]] = [[]]
    resets = sorted(parsed.resets)
    for turn in parsed.turns:
        while resets and turn.seq > resets[0]:
            resets.pop(0)
            segments.append([])
        segments[-1].append(turn)
    return [s for s in segments if s] or [[]]


def _signature(path: Path) -> list[int] | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return [st.st_mtime_ns, st.st_size]


def flush_file(mem: AgentMemory, agent: OpenClawAgent, path: Path, llm: LLM | None = None) -> dict[str, Any]:
    """`memoryd flush --session FILE`: a JSONL transcript (or an OpenClaw session store) up to now."""
    sync = AgentSync(mem, agent, llm, close_open=True)
    tf = None if path.name.endswith(".sqlite") else classify_name(path)
    if not path.is_file() or (tf is None and not path.name.endswith(".sqlite")):
        raise UsageError(f"{path} is not a session transcript (<id>.jsonl, a .reset./.deleted. rename, .zst, "
                         "or an openclaw-agent.sqlite store)")
    with mem.exclusive():
        if tf is None:
            sync.agent = OpenClawAgent(agent.openclaw_id, agent.memoryd_id, path, agent.sessions_dir, agent.workspace)
            sync.sync_store()
        else:
            sync.sync_jsonl(only=tf)
        sync._flush()
    if sync.report["errors"]:
        raise UsageError(sync.report["errors"][0])
    return sync.report
