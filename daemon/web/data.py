"""All of the web view's data access: every page reads, and every edit writes, through this module.

Reads and edits go through the application API the CLI uses (daemon/api.py, in this process), the agent's
state files (AgentMemory) and the local index through the API's Engine (counts by SQL, never all cold rows).
Edits made here are also written to the agent's eviction log (forget writes its own rows), so the log shows
what the web view changed.
"""
from __future__ import annotations

import json
import threading
import time
from typing import Any, Callable, Iterable

from memoryd.daemon.api import MemoryApi, in_process
from memoryd.daemon.engine import Engine, agent_ids
from memoryd.tiers.base.config import Config, validate_agent_id
from memoryd.tiers.base.errors import UsageError
from memoryd.tiers.memory.agent import AgentMemory
from memoryd.tiers.memory.model import DAY, MAX_LESSON_CHARS, preview

HOT_KINDS = ("lesson", "event", "task", "project", "identity", "profile")
WHY = "edited in the web view"
EVICTION_FIELDS = ("what", "why", "id", "tier", "kind", "reason", "to")


class WebData:
    """One home's data for the web view, through `api` (running in this process: the daemon's own, or one of
    its own for `memoryd web`); `clock` stamps the rows edits add to the eviction log."""

    def __init__(self, api: MemoryApi, clock: Callable[[], float] = time.time) -> None:
        self.api = api
        self.engine: Engine = api.transport.engine  # type: ignore[attr-defined]  # an in-process transport
        self.config: Config = self.engine.config
        self.clock = clock
        self.owns_api = False  # the daemon closes its own API
        self._mode_apis: dict[str, MemoryApi] = {}
        self._mode_lock = threading.Lock()  # requests run on threads of their own

    @classmethod
    def for_config(cls, config: Config) -> "WebData":
        """`memoryd web`: an API of its own, one local-index connection shared by every request."""
        data = cls(in_process(config, shared=True))
        data.owns_api = True
        return data

    def close(self) -> None:
        for api in [*self._mode_apis.values(), *([self.api] if self.owns_api else [])]:
            api.close()

    # -- reads -------------------------------------------------------------------------------
    def agents(self) -> list[str]:
        return agent_ids(self.config)

    def status(self, agent_id: str, remote: bool = False) -> dict[str, Any]:
        """`memoryd status --json` of one agent (remote: the cloud's versions too, one round trip)."""
        return self.api.status(agent_id=validate_agent_id(agent_id), remote=remote)["agents"][0]

    def state(self, agent_id: str) -> dict[str, Any]:
        """hot, warm and tree as they stand (bounded files: hot ≤ 5 KB, warm ≤ 50 KB, tree ≤ 2 KB)."""
        return AgentMemory(self.config, agent_id).read_state()

    def hot(self, agent_id: str) -> dict[str, Any]:
        """The hot state, its MEMORY.md rendering and its items with the importance retrieval gives them."""
        from memoryd.tiers.retrieval.search import hot_candidates

        shown: dict[str, Any] = dict(self.api.hot_show(agent_id=validate_agent_id(agent_id)))
        shown["items"] = hot_candidates(shown["hot"])
        return shown

    def per_day(self, agent_id: str, days: int) -> dict[str, list[int]]:
        """Memories dated on each of the last `days` days: {day: [warm, cold]} (cold counted by SQL)."""
        from memoryd.tiers.cold.index_rows import entry_day

        since = time.strftime("%Y-%m-%d", time.gmtime(self.clock() - days * DAY))
        out: dict[str, list[int]] = {}
        for e in self.state(agent_id)["warm"]["entries"]:
            day = entry_day(e["created_at"], e.get("metadata") or {})
            if day >= since:
                out.setdefault(day, [0, 0])[0] += 1
        with self.engine.memory(agent_id) as mem:
            rows = mem.archive.read("SELECT day, COUNT(*) FROM memories WHERE agent_id = ? AND day >= ? GROUP BY day",
                                    [agent_id, since])
        for day, n in rows:
            out.setdefault(day, [0, 0])[1] += int(n)
        return out

    def cold_by_category(self, agent_id: str) -> dict[str, int]:
        """Cold memories per category. One plain scan of the table: through the agent's created_at index
        (what the planner picks) it is 3x slower at 100k rows, a random row read per memory."""
        with self.engine.memory(agent_id) as mem:
            rows = mem.archive.read("SELECT category, COUNT(*) FROM memories NOT INDEXED WHERE agent_id = ? "
                                    "GROUP BY category", [agent_id])
        return {category: int(n) for category, n in rows}

    def search_modes(self) -> list[str]:
        """keyword always; hybrid too when the embedding extra is installed."""
        from memoryd.tiers.retrieval.embed import available

        return ["keyword", "hybrid"] if available() else ["keyword"]

    def search(self, agent_id: str, query: str, mode: str, limit: int = 20) -> dict[str, Any]:
        """`memoryd retrieve` in one mode (it counts as access, as the CLI's does)."""
        if mode not in self.search_modes():
            raise UsageError(f"unknown search mode {mode!r}")
        found = self._api_for(mode).retrieve(agent_id=validate_agent_id(agent_id), query=query, limit=limit)
        return dict(found)

    def _api_for(self, mode: str) -> MemoryApi:
        """The API itself when `mode` is the configured one; else one on a copy of the config in that mode."""
        if self.config.retrieval.mode == mode:
            return self.api
        with self._mode_lock:
            if mode not in self._mode_apis:
                sections = dict(self.config.sections)
                sections["retrieval"] = {**self.config.section("retrieval"), "mode": mode}
                self._mode_apis[mode] = in_process(self.config.with_(sections=sections))
            return self._mode_apis[mode]

    def evictions(self, agent_id: str, query: str, start: int, count: int) -> tuple[list[dict[str, Any]], int]:
        """One page of the eviction log, newest first, and how many rows match. The log is bounded (it rotates
        past 1 MiB, two files kept); only the page's rows, and the lines holding the query, are parsed."""
        log = AgentMemory(self.config, agent_id).evictions
        lines: list[str] = []
        for path in (log.path.with_name(log.path.name + ".1"), log.path):  # the older file first, as rows() reads
            try:
                lines += path.read_text(encoding="utf-8", errors="replace").splitlines()
            except FileNotFoundError:
                continue
        lines.reverse()
        if query:
            needle = query.casefold()
            rows = [r for r in _parsed(line for line in lines if needle in line.casefold())
                    if needle in " ".join(str(r.get(k, "")) for k in EVICTION_FIELDS).casefold()]
            return rows[start:start + count], len(rows)
        return _parsed(lines[start:start + count]), len(lines)

    # -- edits (the server allows them only with [web] allow_edits = true) -------------------
    def forget(self, agent_id: str, memory_id: str) -> dict[str, Any]:
        """`memoryd forget ID`: every tier, the cloud included; the forget logs itself."""
        return self.api.forget(agent_id=validate_agent_id(agent_id), memory_id=memory_id)

    def hot_change(self, agent_id: str, kind: str, fields: dict[str, Any]) -> dict[str, Any]:
        """`memoryd hot KIND …`: add or update one hot item."""
        if kind not in HOT_KINDS:
            raise UsageError(f"unknown hot item kind {kind!r}")
        result = self.api.hot_change(agent_id=validate_agent_id(agent_id), kind=kind, **fields)
        item = result.get("item") or {}
        what = item.get("text") or item.get("name") or f"{item.get('key', '')}: {item.get('value', '')}"
        self._record(agent_id, "hot", str(item.get("id") or f"{kind}:{item.get('key', '')}"), what, f"{kind} set")
        return result

    def tree_add(self, agent_id: str, path: str, description: str) -> list[str]:
        """`memoryd tree add PATH DESC`: the node and its missing parents, or a new description."""
        added = self.api.tree_add(agent_id=validate_agent_id(agent_id), path=path, description=description)["added"]
        self._record(agent_id, "tree", path, description or path, "node added" if added else "description set")
        return added

    def tree_remove(self, agent_id: str, path: str) -> None:
        """`memoryd tree remove PATH`: a leaf that no memory (warm or cold) uses."""
        self.api.tree_remove(agent_id=validate_agent_id(agent_id), path=path)
        self._record(agent_id, "tree", path, path, "node removed")

    def pin(self, agent_id: str, memory_id: str) -> dict[str, Any]:
        """Pin a warm or cold memory into hot memory, what the agent always has in context: a critical lesson
        holding its text, category and importance (at least 0.8), through the same `hot lesson` operation."""
        agent_id = validate_agent_id(agent_id)
        entry = next((e for e in self.state(agent_id)["warm"]["entries"] if e["id"] == memory_id), None)
        if entry is None:
            with self.engine.memory(agent_id) as mem:
                found = mem.archive.get(agent_id, [memory_id]) if mem.archive is not None else []
            entry = found[0] if found else None
        if entry is None:
            raise UsageError(f"no memory with id {memory_id!r} in warm or cold")
        text = entry["text"] if len(entry["text"]) <= MAX_LESSON_CHARS else entry["text"][:MAX_LESSON_CHARS - 1] + "…"
        importance = max(0.8, float(entry.get("importance") or 0.0))
        result = self.api.hot_change(agent_id=agent_id, kind="lesson", text=text, category=entry["category"],
                                     importance=importance)
        self._record(agent_id, "hot", memory_id, text, f"pinned to hot as lesson {result['item'].get('id')}")
        return result

    def _record(self, agent_id: str, tier: str, item_id: str, what: str, change: str) -> None:
        AgentMemory(self.config, agent_id).record_evictions(
            [{"tier": tier, "kind": "edit", "id": item_id, "what": preview(what), "why": f"{change}: {WHY}",
              "reason": "web"}], self.clock())


def _parsed(lines: Iterable[str]) -> list[dict[str, Any]]:
    """JSON Lines rows; a torn line (a crash mid-append) is skipped, as EvictionLog.rows() does."""
    out = []
    for line in lines:
        try:
            row = json.loads(line)
        except ValueError:
            continue
        if isinstance(row, dict):
            out.append(row)
    return out
