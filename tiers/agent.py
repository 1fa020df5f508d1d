"""AgentMemory: one agent's memory on this device — the API the CLI, daemon and sync layers use."""
from __future__ import annotations

import json
import logging
import re
import time
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Callable, Iterator

from . import tree as tree_index
from . import warm as warm_tier
from .atomic import FileLock, atomic_write_json, ensure_private_dir, read_json, remove_leftovers
from .config import Config, validate_agent_id
from .errors import ArchiveError, MemorydError, RemoteError, UsageError
from .evictions import EvictionLog
from .limits import enforce_all
from .model import DAY, check_category, check_importance, check_text, score
from .ports import Archive

if TYPE_CHECKING:  # retrieval loads only when something is retrieved (CLI start-up)
    from .retrieval import Filters

log = logging.getLogger("memoryd.tiers")
METADATA_KEYS = ("urls", "commands", "paths", "people", "topics", "emotion", "outcome", "source", "kind",
                 "entities", "confidence", "importance_reasons", "redactions", "date", "time")


def _prepare(text: str, category: str, importance: float | None, metadata: dict[str, Any] | None
             ) -> tuple[str, str, float, dict[str, Any], dict[str, int]]:
    """Validate one fact, replace secrets (text and caller metadata), distil it and rate it."""
    from .distill import distill
    from .importance import rule_importance
    from .redact import redact, redact_obj

    text = check_text(text)
    category = check_category(category)
    importance = check_importance(importance)
    text, redactions = redact(text)
    meta = {k: v for k, v in distill(text).items() if k in METADATA_KEYS and v}
    if importance is None:
        importance, reasons = rule_importance(text, category)
        meta["importance_reasons"] = reasons[:4]
    extra, more = redact_obj({k: v for k, v in (metadata or {}).items() if v not in (None, "", [], {})})
    for kind, n in more.items():
        redactions[kind] = redactions.get(kind, 0) + n
    if redactions:
        meta["redactions"] = sum(redactions.values())
    meta.update(extra)
    return text, category, importance, meta, redactions


_MARK_RE = re.compile(r"\[REDACTED:([a-z0-9_]+)\]")


def _redaction_marks(state: dict[str, Any]) -> dict[str, int]:
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


def _validate_metrics(obj: Any) -> None:
    if not isinstance(obj, dict) or not isinstance(obj.get("runs", {}), dict) or not isinstance(
            obj.get("counters", {}), dict):
        raise TypeError("metrics is not {runs: {...}, counters: {...}}")
    obj.setdefault("runs", {})
    obj.setdefault("counters", {})


class AgentMemory:
    def __init__(self, config: Config, agent_id: str, archive: Archive | None = None,
                 clock: Callable[[], float] = time.time) -> None:
        from .state import StateFiles

        self.config = config
        self.agent_id = validate_agent_id(agent_id)
        self.dir = config.agent_dir(agent_id)
        self.archive = archive
        self.clock = clock
        self.lock = FileLock(self.dir / ".lock")
        self.files = StateFiles(self.dir, self.agent_id)
        self.evictions = EvictionLog(self.dir / "evictions.jsonl")
        self.warnings: list[str] = []
        self._swept = False

    # --- plumbing -------------------------------------------------------------------------
    @contextmanager
    def locked(self) -> Iterator[None]:
        ensure_private_dir(self.dir)
        with self.lock.held():
            if not self._swept:
                self._swept = True
                remove_leftovers(self.dir)
            yield

    def exists(self) -> bool:
        return self.files.path("hot").exists() or self.files.path("warm").exists()

    def init(self) -> None:
        with self.locked():
            state = self.files.load_all()
            self.files.save_all(state)

    def read_state(self) -> dict[str, Any]:
        if not self.dir.exists():  # reading an unknown agent creates nothing
            return self.files.load_all()
        with self.locked():
            return self.files.load_all()

    def write_state(self, state: dict[str, Any], reason: str) -> list[dict]:
        """Apply limits, write hot/warm/tree + MEMORY.md, send evicted warm entries towards cold."""
        with self.locked():
            now = self.clock()
            fixed, evictions = enforce_all(state, now)
            self._queue_cold([e["entry"] for e in evictions if "entry" in e])
            for row in evictions:
                row.setdefault("reason", reason)
            # logged before the state changes: a crash in between leaves a row too many, never one missing
            self.evictions.append(evictions, now)
            self.files.save_all(fixed)
            return evictions

    def _metrics(self) -> dict[str, Any]:
        return read_json(self.dir / "metrics.json", lambda: {"runs": {}, "counters": {}}, _validate_metrics)

    def bump(self, counters: dict[str, int]) -> None:
        """Add to the named counters in metrics.json (caller holds the lock)."""
        metrics = self._metrics()
        for key, n in counters.items():
            if n:
                metrics.setdefault("counters", {})[key] = metrics["counters"].get(key, 0) + n
        atomic_write_json(self.dir / "metrics.json", metrics)

    # --- cold queue: entries leave warm only after this file holds them ---------------------
    def _pending_path(self):
        return self.dir / "cold-pending.json"

    def pending_cold(self) -> list[dict]:
        return read_json(self._pending_path(), lambda: {"entries": []},
                         lambda obj: warm_tier.validate_entries(obj["entries"]))["entries"]

    def _queue_cold(self, entries: list[dict]) -> None:
        if not entries:
            return
        pending = {e["id"]: e for e in self.pending_cold()}
        pending.update({e["id"]: e for e in entries})
        atomic_write_json(self._pending_path(), {"entries": sorted(pending.values(), key=lambda e: e["id"])})

    def flush_cold(self) -> int:
        """Insert queued entries into the archive, confirm, then drop them from the queue."""
        with self.locked():
            pending = self.pending_cold()
            if not pending or self.archive is None:
                return 0
            try:
                self.archive.put(self.agent_id, pending)
            except (ArchiveError, RemoteError) as exc:
                self.warnings.append(f"{len(pending)} entries wait for the cold archive: {exc.message}")
                raise
            atomic_write_json(self._pending_path(), {"entries": []})
            return len(pending)

    # --- store ---------------------------------------------------------------------------
    def store(self, text: str, category: str, importance: float | None = None,
              metadata: dict[str, Any] | None = None) -> dict[str, Any]:
        return self.store_many([(text, category, importance, metadata)])[0]

    def store_many(self, items: list[tuple[str, str, float | None, dict[str, Any] | None]]) -> list[dict[str, Any]]:
        """Validate, redact and distil every item first (any bad one → nothing stored), then write once."""
        prepared = [_prepare(*item) for item in items]
        results = []
        with self.locked():
            now = self.clock()
            state = self.files.load_all()
            counts: dict[str, int] = {"stores": len(prepared)}
            for text, category, importance, meta, redactions in prepared:
                filed, note = tree_index.file_category(state["tree"], category, now)
                entry, created = warm_tier.add_or_reinforce(
                    state["warm"], warm_tier.new_entry(text, filed, importance, now, meta), now)
                results.append(dict(entry, created=created, **({"note": note} if note else {})))
                for kind, n in redactions.items():
                    counts["redactions"] = counts.get("redactions", 0) + n
                    counts[f"redactions.{kind}"] = counts.get(f"redactions.{kind}", 0) + n
            self.write_state(state, "store")
            self.bump(counts)
        return results

    # --- retrieve ------------------------------------------------------------------------
    def retrieve(self, query: str, limit: int = 10, url: str | None = None,
                 paths: dict[str, float] | None = None, filters: Filters | None = None) -> list[dict[str, Any]]:
        """Search hot, warm and cold; `paths` (from LLM tree search) replaces keyword path scores.

        With filters (url, entity, date range) only warm and cold facts that pass are considered,
        and the query may be empty (then the best-scored matches come first).
        """
        from .retrieval import Filters, rank

        filters = filters or Filters(url=url)
        query = check_query(query, limit, filters)
        with self.locked():
            now = self.clock()
            state = self.files.load_all()
            cands = [dict(e, tier="warm", path=e["category"]) for e in state["warm"]["entries"]]
            if not filters:
                cands += self._hot_candidates(state["hot"])
            cands += self._cold_candidates(query, limit, now, {c["id"] for c in cands}, filters)
            cands = [c for c in cands if c["tier"] == "hot" or filters.matches(c)]
            if query:
                results = rank(query, cands, state["tree"]["nodes"], limit, paths)
            else:
                cands.sort(key=lambda c: (-c["score"], c["id"]))
                results = [dict(c, relevance=1.0, rank=c["score"], reason=f"{filters.describe()} in {c['tier']}")
                           for c in cands[:limit]]
            self._reinforce(state, results, now)
        return results

    def _hot_candidates(self, hot: dict) -> list[dict]:
        ctx = hot["active_context"]
        rows = [(x["id"], x["text"], f"lessons/{x['category']}", x["importance"])
                for x in hot["critical_lessons"]]
        rows += [(p["id"], f"{p['name']}: {p.get('description', '')} ({p.get('status', '')})", "active_context/projects", 0.9)
                 for p in ctx["projects"]]
        rows += [(e["id"], e["text"], "active_context/events", 0.85) for e in ctx["events"]]
        rows += [(t["id"], f"{t['text']} ({t['status']})", "active_context/tasks", 0.85) for t in ctx["tasks"]]
        rows += [(f"identity:{k}", f"{k}: {v}", "identity", 1.0) for k, v in hot["identity"].items()]
        rows += [(f"profile:{k}", f"{k}: {v}", "owner_profile", 1.0) for k, v in hot["owner_profile"].items()]
        return [{"id": i, "text": t, "category": c, "score": s, "tier": "hot", "path": c} for i, t, c, s in rows]

    def _cold_candidates(self, query: str, limit: int, now: float, seen: set[str], filters: Filters) -> list[dict]:
        out = []
        hits = [dict(e, relevance=0.0) for e in self.pending_cold()]
        # without a query, a filter's own words find cold candidates (the filter itself is applied after)
        words = query or filters.entity or filters.url
        if self.archive is not None:
            try:
                if words:
                    hits += self.archive.search(self.agent_id, words, limit=max(limit * 3, 20))
                elif filters.since is not None or filters.until is not None:
                    hits += self.archive.dated(self.agent_id, filters.since, filters.until, max(limit * 3, 20))
            except MemorydError as exc:
                self.warnings.append(f"cold archive not searched: {exc.message}")
        for e in hits:
            if e["id"] in seen:
                continue
            seen.add(e["id"])
            s = score(float(e.get("importance") or 0.5), (now - e["created_at"]) / DAY, int(e.get("access_count") or 0))
            out.append(dict(e, score=round(s, 4), tier="cold", path=e["category"]))
        return out

    def _reinforce(self, state: dict, results: list[dict], now: float) -> None:
        warm_ids = {r["id"] for r in results if r["tier"] == "warm"}
        cold_ids = [r["id"] for r in results if r["tier"] == "cold"]
        if warm_ids:
            warm_tier.touch(state["warm"], warm_ids, now)
            tree_index.touch(state["tree"], [r["category"] for r in results if r["tier"] == "warm"], now)
            self.write_state(state, "retrieve")
            touched = {e["id"]: e for e in state["warm"]["entries"] if e["id"] in warm_ids}
            for r in results:  # report the counts as they now stand
                if r["tier"] == "warm" and r["id"] in touched:
                    e = touched[r["id"]]
                    r.update(access_count=e["access_count"], last_access=e["last_access"])
        if cold_ids and self.archive is not None:
            try:
                self.archive.touch(self.agent_id, cold_ids)
            except MemorydError as exc:
                self.warnings.append(f"cold access counts not updated: {exc.message}")

    # --- generic change ------------------------------------------------------------------
    def change(self, fn: Callable[[dict[str, Any], float], Any], reason: str) -> Any:
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

    def _change(self, fn: Callable[[dict[str, Any], float], Any], reason: str) -> Any:
        with self.locked():
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

    def used_categories(self, state: dict[str, Any]) -> set[str]:
        used = {e["category"] for e in state["warm"]["entries"]} | {e["category"] for e in self.pending_cold()}
        if self.archive is not None:
            used |= set(self.archive.category_counts(self.agent_id))
        return used
