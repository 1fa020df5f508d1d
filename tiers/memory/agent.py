"""AgentMemory: one agent's memory on this device — the API the CLI, daemon and sync layers use."""
from __future__ import annotations

import json
import logging
import re
import time
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator, Optional, TypeVar

from memoryd.tiers.memory import tree as tree_index
from memoryd.tiers.memory import warm as warm_tier
from memoryd.tiers.base.atomic import FileLock, atomic_write_json, ensure_private_dir, read_json, remove_leftovers
from memoryd.tiers.base.config import Config, validate_agent_id
from memoryd.tiers.memory.access import AccessLog
from memoryd.tiers.base.errors import MemorydError, StoreError, UsageError
from memoryd.tiers.memory.evictions import EvictionLog
from memoryd.tiers.memory.limits import enforce_all
from memoryd.tiers.base.ports import Archive

if TYPE_CHECKING:
    from memoryd.tiers.memory.types import AgentState, Eviction, Metrics, WarmEntry

if TYPE_CHECKING:  # retrieval loads only when something is retrieved (CLI start-up)
    from memoryd.tiers.retrieval.filters import Filters
    from memoryd.tiers.retrieval.view import RetrievalView

log = logging.getLogger("memoryd.tiers")
T = TypeVar("T")
if TYPE_CHECKING:
    Step = Callable[[AgentState, float], T]  # fn(state, now): a change to the state (change(), with_state())
Clock = Callable[[], float]
StoreItem = tuple[str, str, Optional[float], Optional[dict[str, Any]]]  # text, category, importance, metadata


def _apply_hot_change(state: AgentState, now: float, then: tuple[Callable[..., Any], str],
                      stored: list[dict[str, Any]], counts: dict[str, int]) -> str:
    """store_many's `then`: fn(state, now, stored), which changes hot only; the secrets it redacted counted as
    change() counts them. Returns the reason its evictions are logged under."""
    fn, reason = then
    before = _redaction_marks(state["hot"])
    fn(state, now, stored)
    for kind, n in _redaction_marks(state["hot"]).items():
        if n > before.get(kind, 0):
            counts["redactions"] = counts.get("redactions", 0) + n - before.get(kind, 0)
            counts[f"redactions.{kind}"] = counts.get(f"redactions.{kind}", 0) + n - before.get(kind, 0)
    return reason


_MARK_RE = re.compile(r"\[REDACTED:([a-z0-9_]+)\]")


def _redaction_marks(state: Any) -> dict[str, int]:
    """How many [REDACTED:kind] markers the state holds, per kind."""
    counts: dict[str, int] = {}
    for kind in _MARK_RE.findall(json.dumps(state, ensure_ascii=False)):
        counts[kind] = counts.get(kind, 0) + 1
    return counts


def check_query(query: str | None, limit: int, filters: Filters) -> str:
    if limit < 1 or limit > 1000:
        raise UsageError("limit must be in 1..1000")
    query = (query or "").strip()
    if not query and not filters:
        raise UsageError("query is empty")
    return query


def _empty_metrics() -> Metrics:
    return {"runs": {}, "counters": {}}


def _validate_metrics(obj: Any) -> None:
    if not isinstance(obj, dict) or not isinstance(obj.get("runs", {}), dict) or not isinstance(
            obj.get("counters", {}), dict):
        raise TypeError("metrics is not {runs: {...}, counters: {...}}")
    obj.setdefault("runs", {})
    obj.setdefault("counters", {})


class AgentMemory:
    """One agent's memory: its state files, logs and metrics under one lock, and the local index it archives to.

    The clock is given at construction (every "now" of this object comes from it) or, for one write,
    as `write_state(now=...)`; nothing swaps it. Each method takes the agent's lock itself; `exclusive()`
    holds it across several calls. The attributes `files`, `accesses`, `evictions`, `knowledge` and `lock` are its
    plumbing: other modules use the methods below."""

    def __init__(self, config: Config, agent_id: str, archive: Archive | None = None,
                 clock: Clock = time.time) -> None:
        from memoryd.tiers.memory.state import StateFiles

        self.config = config
        self.agent_id = validate_agent_id(agent_id)
        self.dir = config.agent_dir(agent_id)
        self.archive = archive
        self.clock = clock
        self.lock = FileLock(self.dir / ".lock")
        self.files = StateFiles(self.dir, self.agent_id)
        self.evictions = EvictionLog(self.dir / "evictions.jsonl")
        self.knowledge = EvictionLog(self.dir / "knowledge.jsonl")  # tiers/knowledge/log.py's rows
        self.accesses = AccessLog(self.dir / "access.jsonl")
        self.grace = config.warm.grace_hours * 3600.0  # a fresh fact is spared from warm's size cap
        self.warnings: list[str] = []
        self._swept = False

    # --- the lock ---------------------------------------------------------------------------
    @contextmanager
    def exclusive(self) -> Iterator[None]:
        """Hold the agent's lock across several calls (re-entrant: every method takes it too), so that no
        other process or thread writes this agent in between: a batch of notes and its ledger, a sync merge."""
        if self.lock.owned():  # nested: the outer hold made the directory and swept it
            yield
            return
        ensure_private_dir(self.dir)
        with self.lock.held():
            if not self._swept:  # the lock swept the agent's folders; its key files have no lock of their own
                self._swept = True
                remove_leftovers(self.config.key_path(self.agent_id).parent, prefix=f".{self.agent_id}.")
                remove_leftovers(self.config.key_path(self.agent_id).parent, prefix=f"..{self.agent_id}.")
            yield

    # --- reading -------------------------------------------------------------------------
    def exists(self) -> bool:
        return self.files.path("hot").exists() or self.files.path("warm").exists()

    def has_file(self, name: str) -> bool:
        """Whether the state file `name` (hot, warm or tree) is on disk."""
        return self.files.path(name).exists()

    def init(self) -> None:
        with self.exclusive():
            state = self.files.load_all()
            self.files.save_all(state)

    def read_state(self) -> AgentState:
        """The agent's state as it stands, accesses not yet folded into warm included."""
        if not self.dir.exists():  # reading an unknown agent creates nothing
            return self.files.load_all()
        with self.exclusive():
            state = self.files.load_all()
            self.accesses.fold(state["warm"])
            return state

    def snapshot(self) -> AgentState:
        """The state files as they are on disk, read under the lock (accesses not folded in)."""
        with self.exclusive():
            return self.files.load_all()

    def with_state(self, fn: Step[T]) -> T:
        """fn(state, now) on freshly loaded state under the lock. Nothing is written unless fn calls
        write_state (a forget: it checks and deletes elsewhere first); change() writes for you."""
        with self.exclusive():
            return fn(self.files.load_all(), self.clock())

    # --- writing -------------------------------------------------------------------------
    def write_state(self, state: AgentState, reason: str, hot_reason: str | None = None, *,
                    now: float | None = None) -> list[Eviction]:
        """Apply limits, write hot/warm/tree + MEMORY.md, send evicted warm entries towards cold.

        `hot_reason`: hot was changed for another reason than the rest (a store, then its hot
        changes): hot's rows carry it and come last in the log, as from a write of their own.
        `now`: the time the limits are applied at, instead of the clock's (a sync merge takes it from
        the data, so that every device gets the same result)."""
        with self.exclusive():
            now = self.clock() if now is None else now
            pending = self.accesses.pending()
            if pending:  # retrievals since the last write: counts into warm and the index, activity into the tree
                tree_index.touch(state["tree"], self.accesses.fold(state["warm"], pending), now)
                self._fold_cold_accesses(state, pending)
            fixed, evictions = enforce_all(state, now, grace=self.grace)
            self.archive_entries([e["entry"] for e in evictions if "entry" in e])
            if hot_reason is not None:
                evictions.sort(key=lambda row: row.get("tier") == "hot")  # stable: each tier keeps its order
            for row in evictions:
                row.setdefault("reason", hot_reason if hot_reason is not None and row.get("tier") == "hot" else reason)
            # logged before the state changes: a crash in between leaves a row too many, never one missing
            self.evictions.append(evictions, now)
            self.files.save_all(fixed)
            if pending:
                self.accesses.clear()
            return evictions

    # --- metrics and logs -----------------------------------------------------------------
    def metrics(self) -> Metrics:
        """metrics.json: the last consolidation runs and the counters (stores, redactions, cold count)."""
        with self.exclusive():
            metrics: Metrics = read_json(self.dir / "metrics.json", _empty_metrics, _validate_metrics)
            return metrics

    def update_metrics(self, fn: Callable[[Metrics], None]) -> None:
        """fn(metrics) under the lock, then metrics.json written durably (a consolidation run, a cold count)."""
        with self.exclusive():
            metrics = self.metrics()
            fn(metrics)
            atomic_write_json(self.dir / "metrics.json", metrics)

    def bump(self, counters: dict[str, int]) -> None:
        """Add to the named counters in metrics.json."""
        with self.exclusive():
            metrics = self.metrics()
            for key, n in counters.items():
                if n:
                    metrics.setdefault("counters", {})[key] = metrics["counters"].get(key, 0) + n
            atomic_write_json(self.dir / "metrics.json", metrics, durable=False)  # counters: not worth an fsync

    def record_evictions(self, rows: Iterable[Eviction], now: float) -> int:
        """Append rows (what left which tier, and why) to the eviction log, fsync'd; returns how many."""
        with self.exclusive():
            return self.evictions.append(rows, now)

    def record_knowledge(self, rows: Iterable[dict[str, Any]], now: float) -> int:
        """Append knowledge-log rows (tiers/knowledge/log.py: merges, supersessions, seals, ...), fsync'd."""
        with self.exclusive():
            return self.knowledge.append(rows, now)  # type: ignore[arg-type]

    def knowledge_rows(self) -> list[dict[str, Any]]:
        """Every readable row of the knowledge log, oldest first."""
        return list(self.knowledge.rows())

    def eviction_summary(self) -> dict[str, Any]:
        """Counts of the eviction log per tier/kind and its last row (status)."""
        return self.evictions.summary()

    def eviction_rows(self) -> list[Eviction]:
        """Every readable row of the eviction log, oldest first."""
        return self.evictions.rows()

    def wipe_traces(self, ids: set[str]) -> None:
        """Forget means forget: blank these ids' previews in the eviction log and drop the last-good
        copies of the state files, which may still hold what was just deleted."""
        with self.exclusive():
            self.evictions.scrub(ids)
            self.knowledge.scrub(ids)
            self.files.drop_backups()

    def _fold_cold_accesses(self, state: AgentState, pending: dict[str, tuple[int, int]]) -> None:
        in_warm = {e["id"] for e in state["warm"]["entries"]}
        cold = {mid: rec for mid, rec in pending.items() if mid not in in_warm}
        if cold and self.archive is not None:
            try:
                self.archive.set_access(self.agent_id, cold)
            except MemorydError as exc:  # counts only: the log is cleared anyway, nothing else is lost
                self.warnings.append(f"cold access counts not updated: {exc.message}")

    # --- cold: entries leave warm by one durable insert into the local index ---------------
    def archive_entries(self, entries: list[WarmEntry]) -> int:
        """Send entries leaving warm to the local index (durable when this returns). A crash after
        this but before warm is rewritten leaves them in both places: ids make that harmless."""
        if not entries:
            return 0
        if self.archive is None:
            raise StoreError(f"agent {self.agent_id}: {len(entries)} entries must leave warm but no local index is open")
        return self.archive.put(self.agent_id, entries)

    # --- store ---------------------------------------------------------------------------
    def store(self, text: str, category: str, importance: float | None = None,
              metadata: dict[str, Any] | None = None) -> dict[str, Any]:
        return self.store_many([(text, category, importance, metadata)])[0]

    def store_many(self, items: list[StoreItem], prepared: list[Any] | None = None,
                   then: tuple[Step[Any], str] | None = None) -> list[dict[str, Any]]:
        """Validate, redact and distil every item first (any bad one → nothing stored), then write once.

        `prepared`: per item, prepare_many([item])[0] when a helper process did it already (None: do it here).
        `then`: (fn, reason): fn(state, now, stored) after the stores, in the same write, as change() would run
        it (a daily note's facts, then their hot changes: one load and one write of the state, not two);
        `stored` is what each item became (its id: the source a hot item keeps)."""
        from memoryd.tiers.distillation.prepare import prepare_many  # loaded on the first store, not with every CLI command
        from memoryd.tiers.knowledge import hot_truth
        from memoryd.tiers.knowledge.truth import Book, place

        ahead = prepared if prepared is not None else [None] * len(items)
        if len(ahead) != len(items):
            raise ValueError("store_many: prepared must have one entry per item")
        todo = [item for item, done in zip(items, ahead) if done is None]
        here = iter(prepare_many(todo))
        prepared = [done if done is not None else next(here) for done in ahead]
        results = []
        with self.exclusive():
            now = self.clock()
            state = self.files.load_all()
            counts: dict[str, int] = {"stores": len(prepared)}
            where = warm_tier.positions(state["warm"])
            book = Book(state["warm"]["entries"], self.archive, self.agent_id, now,
                        knowledge=self.config.knowledge.layer == "on")
            if book.knowledge and len(prepared) > 1:
                book.prefetch([p[0] for p in prepared])  # a batch's restatement keys in one query
            touched: set[str] = set()  # nodes a store of this batch touched already: touching again changes nothing
            for text, category, importance, meta, redactions in prepared:
                if category in touched:
                    filed, note = category, None
                else:
                    known = category in state["tree"]["nodes"]
                    filed, note = tree_index.file_category(state["tree"], category, now)
                    if known:  # file_category only touched it and its ancestors (a new node's are not)
                        touched.add(category)
                new = warm_tier.new_entry(text, filed, importance, now, meta)
                entry, created, merged = place(book, new, lambda e: warm_tier.add_or_reinforce(
                    state["warm"], e, now, where), new["id"] in where)  # tiers/knowledge/truth.py
                if merged:
                    where_to = "local index" if entry.get("_index") else "warm"
                    note = f"restates memory {entry['id']} in {where_to}: merged into it"
                    if where_to == "warm":
                        warm_tier.rescore(entry, now)
                    else:
                        entry = {k: v for k, v in entry.items() if k not in ("_index", "bm25", "day")} | {"tier": "cold"}
                results.append(dict(entry, created=created, **({"merged": True} if merged else {}),
                                    **({"note": note} if note else {})))
                for kind, n in redactions.items():
                    counts["redactions"] = counts.get("redactions", 0) + n
                    counts[f"redactions.{kind}"] = counts.get(f"redactions.{kind}", 0) + n
            hot_reason = _apply_hot_change(state, now, then, results, counts) if then is not None else None
            swept = hot_truth.sweep(state["hot"], book.replaced)  # hot never holds a replaced value
            if swept:
                self.record_evictions([dict(e, reason="store") for e in swept], now)
                hot_reason = hot_reason or "store"
            book.flush()  # index rows a store merged into or superseded, before warm points at them
            at_once = self._to_cold_at_once(state, {r["id"] for r in results if r["created"]}, now)
            rows = self.write_state(state, "store", hot_reason)
            self.record_knowledge(book.rows, now)
            self.warnings += [f"{e['tier']} {e['kind']} evicted: {e['why']}" for e in rows if e.get("tier") == "hot"
                              and hot_reason is not None]
            evicted = {e["id"] for e in rows if e.get("tier") == "warm"}
            for r in results:  # nothing older was left to make room: say where the fact went
                if r["id"] in at_once:
                    r.update(tier="cold", note="said long ago (valid time): its score put it in the local index")
                elif r["id"] in evicted:
                    r.update(tier="cold", note="warm is full of facts younger than the grace period: "
                                               "archived to the local index at once")
            self.bump(counts)
        return results

    def _to_cold_at_once(self, state: AgentState, ids: set[str], now: float) -> set[str]:
        """New stores said long ago (an old note imported today) whose score says cold go to the local index
        in this batch's one insert, not into warm (valid time: tiers/memory/said.py). Returns their ids."""
        if not ids or self.archive is None:
            return set()
        due, _ = warm_tier.split_due_for_cold(state["warm"], now, only=ids)
        if due:
            self.archive_entries(due)  # durable before the write that leaves them out of warm
            # one row for the batch, ids only: never in warm, nothing was evicted; a row (and a preview) per
            # fact made a year's import rotate the real evictions out of the log, and was a third of the step
            self.evictions.append([{"tier": "warm", "kind": "import", "ids": sorted(e["id"] for e in due),
                                    "why": f"said over {warm_tier.WARM_RETENTION_DAYS} days ago with a low score, "
                                           "or frozen", "to": "cold", "reason": "store"}], now)
        return {e["id"] for e in due}

    # --- retrieve ------------------------------------------------------------------------
    def retrieve(self, query: str, limit: int = 10, url: str | None = None,
                 paths: dict[str, float] | None = None, filters: Filters | None = None) -> list[dict[str, Any]]:
        """Search hot, warm and the local index with one ranking (memoryd.tiers.retrieval.search).

        With filters (url, entity, date range) only warm and cold facts that pass are considered, and
        the query may be empty (then the best-scored matches come first); `paths` (from an LLM's tree
        search) replaces the keyword path scores."""
        from memoryd.tiers.retrieval.filters import Filters
        from memoryd.tiers.retrieval.search import retrieve

        if filters is None or (not filters and url is not None):
            filters = Filters(url=url, history=filters.history if filters is not None else False)
        query = check_query(query, limit, filters)  # before the lock: a bad query creates nothing
        now = self.clock()
        with self.exclusive():
            return retrieve(self._retrieval_view(now), query, limit, paths=paths, filters=filters)

    def _retrieval_view(self, now: float) -> RetrievalView:
        """What a retrieve reads (caller holds the lock): the state with the accesses recorded since the
        last write folded in, the local index, the [retrieval] settings; where its accesses and warnings go."""
        from memoryd.tiers.retrieval.view import RetrievalView, retrieval_settings

        state = self.files.load_all()
        pending = self.accesses.pending()
        self.accesses.fold(state["warm"], pending)
        settings, mode_chosen = retrieval_settings(self.config)
        from memoryd.tiers.knowledge.review_file import doubted

        return RetrievalView(agent_id=self.agent_id, state=state, pending=pending, archive=self.archive, now=now,
                             settings=settings, mode_chosen=mode_chosen, record_accesses=self.accesses.record,
                             warn=self.warnings.append, knowledge=self.config.knowledge.layer == "on",
                             doubted=lambda: doubted(self.dir))

    # --- generic change ------------------------------------------------------------------
    def change(self, fn: Step[T], reason: str) -> T:
        """Run fn(state, now) under the lock on freshly loaded state, then write it back (limits applied)."""
        if not self.dir.exists():  # a new agent: bad input must not leave an empty agent behind
            try:
                return self._change(fn, reason)
            except MemorydError:
                self._remove_if_empty()
                raise
        return self._change(fn, reason)

    def _remove_if_empty(self) -> None:
        self.lock.release()
        try:
            (self.dir / ".lock").unlink(missing_ok=True)
            self.dir.rmdir()  # fails (and keeps everything) if anything else was written
        except OSError:
            pass

    def _change(self, fn: Step[T], reason: str) -> T:
        with self.exclusive():
            now = self.clock()
            state = self.files.load_all()
            before = _redaction_marks(state)
            result = fn(state, now)
            evicted = self.write_state(state, reason)
            if evicted:
                self.warnings += [f"{e['tier']} {e['kind']} evicted: {e['why']}" for e in evicted]
            added = {k: n - before.get(k, 0) for k, n in _redaction_marks(state).items() if n > before.get(k, 0)}
            if added:  # hot fields, tree descriptions, imports: status counts them like stores
                self.bump({"redactions": sum(added.values())} | {f"redactions.{k}": n for k, n in added.items()})
            return result

    def used_categories(self, state: AgentState) -> set[str]:
        used = {e["category"] for e in state["warm"]["entries"]}
        if self.archive is not None:
            used |= set(self.archive.category_counts(self.agent_id))
        return used
