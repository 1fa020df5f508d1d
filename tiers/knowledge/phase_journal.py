"""The phase journal: consolidation.json in the agent's folder says which phases of each mode's current run
are done (atomic JSON), so a run killed in the middle continues from the next phase; and log rows written
once per run, so a phase redone after a kill does not log twice what it did before it was killed."""
from __future__ import annotations

import json
import os
import secrets
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable

from memoryd.tiers.base.atomic import atomic_write_json, read_json

if TYPE_CHECKING:
    from memoryd.tiers.memory.agent import AgentMemory

FILE = "consolidation.json"
TAIL_BYTES = 512 * 1024  # a run's own rows are at the end of a log: this much of it is read to find them


def _validate(obj: Any) -> None:
    if not isinstance(obj, dict) or not all(isinstance(v, dict) and isinstance(v.get("done"), list)
                                            for v in obj.values()):
        raise TypeError("consolidation journal is not {mode: {run, done: [...], ...}}")


class Journal:
    """One mode's run as the journal holds it: its id, the time it is pinned to, the phases done, its counts.
    The caller holds the agent's lock (phases.run_phases does)."""

    def __init__(self, mem: AgentMemory, mode: str) -> None:
        self.path: Path = mem.dir / FILE
        self.mode = mode
        data = read_json(self.path, dict, _validate)
        run = data.get(mode)
        self.resumed = run is not None
        if run is None:
            run = {"run": secrets.token_hex(6), "now": mem.clock(), "done": [], "counts": {}}
        self.run: str = str(run["run"])
        self.now: float = float(run["now"])
        self.done: list[str] = list(run["done"])
        self.counts: dict[str, int] = dict(run.get("counts") or {})

    def _save(self, finished: bool) -> None:
        data = read_json(self.path, dict, _validate)
        if finished:
            data.pop(self.mode, None)
        else:
            data[self.mode] = {"run": self.run, "now": self.now, "done": self.done, "counts": self.counts}
        atomic_write_json(self.path, data)

    def start(self) -> None:
        """Written before the first phase, so that a kill anywhere in it resumes this run, pinned to its time."""
        if not self.resumed:
            self._save(False)

    def phase_done(self, name: str, counts: dict[str, int]) -> None:
        self.done.append(name)
        self.counts.update(counts)
        self._save(False)

    def finish(self) -> None:
        self._save(True)


def _tail_rows(path: Path, run: str) -> list[dict[str, Any]]:
    out = []
    for part in (path.with_name(path.name + ".1"), path):
        try:
            with open(part, "rb") as fh:
                size = os.fstat(fh.fileno()).st_size
                fh.seek(max(0, size - TAIL_BYTES))
                raw = fh.read()
        except FileNotFoundError:
            continue
        for line in raw.decode("utf-8", errors="replace").splitlines():
            if f'"{run}"' not in line:
                continue
            try:
                row = json.loads(line)
            except ValueError:
                continue  # the first (cut) line of the tail, or a torn one
            if isinstance(row, dict) and row.get("run") == run:
                out.append(row)
    return out


def _key(row: dict[str, Any]) -> tuple[str, str, str]:
    """What makes a row the same row again: its kind, its id and (restructure) its action."""
    return str(row.get("kind")), str(row.get("id")), str(row.get("action", ""))


class OnceLog:
    """The eviction and knowledge logs of one run: a row this run logged already (same kind and id) is not
    logged again. Without a run (a command outside consolidation) every row is logged."""

    def __init__(self, mem: AgentMemory, run: str | None) -> None:
        self.mem, self.run = mem, run
        self._seen: dict[str, set[tuple[str, str, str]]] = {"evictions": set(), "knowledge": set()}
        if run is not None:
            for name, log in (("evictions", mem.evictions), ("knowledge", mem.knowledge)):
                self._seen[name] = {_key(r) for r in _tail_rows(log.path, run)}

    def _fresh(self, name: str, rows: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
        out = []
        for row in rows:
            key = _key(row)
            if key in self._seen[name]:
                continue
            self._seen[name].add(key)
            out.append(dict(row, run=self.run) if self.run is not None else row)
        return out

    def evictions(self, rows: Iterable[dict[str, Any]], now: float) -> int:
        return self.mem.record_evictions(self._fresh("evictions", rows), now)  # type: ignore[arg-type]

    def knowledge(self, rows: Iterable[dict[str, Any]], now: float) -> int:
        return self.mem.record_knowledge(self._fresh("knowledge", rows), now)
