"""What of one memory is still in this device's files: warm, hot, their last-good copies, the local index.

`memoryd forget --verify ID` reports these places beside the sync layer's (sync/forget_verify.py). A place
is clean, remains (with what and where) or unknown (could not be looked at, and why).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from memoryd.tiers.cold.index import LocalIndex
    from memoryd.tiers.memory.agent import AgentMemory
    from memoryd.tiers.memory.types import HotState

CLEAN, REMAINS, UNKNOWN = "clean", "remains", "unknown"


@dataclass
class Place:
    """One place a memory could survive in, and what was found there."""
    name: str
    found: list[str] = field(default_factory=list)
    unknown: str = ""

    @property
    def status(self) -> str:
        return REMAINS if self.found else UNKNOWN if self.unknown else CLEAN

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"place": self.name, "status": self.status, "found": list(self.found)}
        if self.unknown:
            out["note"] = self.unknown
        return out


def hot_items(hot: HotState, memory_id: str) -> list[str]:
    """Hot items with this id, or promoted from it (a lesson's source_id)."""
    ctx = hot["active_context"]
    found = [f"{name[:-1]} {memory_id}" for name in ("projects", "events", "tasks")
             if any(i.get("id") == memory_id for i in ctx[name])]  # type: ignore[literal-required]
    found += [f"lesson {i['id']}" for i in hot["critical_lessons"]
              if memory_id in (i.get("id"), i.get("source_id"))]
    for prefix, values in (("identity:", hot["identity"]), ("profile:", hot["owner_profile"])):
        if memory_id.startswith(prefix) and memory_id[len(prefix):] in values:
            found.append(f"{prefix[:-1]} {memory_id[len(prefix):]}")
    return found


def tier_places(mem: AgentMemory, memory_id: str) -> list[Place]:
    """Warm, hot, and the last-good copies of their files (which a forget drops)."""
    state = mem.read_state()
    warm = Place("warm", [f"entry {memory_id} in {mem.files.path('warm').name}"
                          for e in state["warm"]["entries"] if e["id"] == memory_id])
    hot = Place("hot", [f"{item} in {mem.files.path('hot').name}" for item in hot_items(state["hot"], memory_id)])
    copies = Place("last-good copies")
    needle = f'"{memory_id}"'.encode()
    for name in ("hot", "warm", "tree"):
        backup = mem.files.path(name).with_name(mem.files.path(name).name + ".bak")
        try:
            if needle in backup.read_bytes():
                copies.found.append(f"{backup.name} names it")
        except FileNotFoundError:
            continue
        except OSError as exc:
            copies.unknown = f"cannot read {backup.name}: {exc.strerror}"
    return [warm, hot, copies]


def forgotten_at(index: LocalIndex, agent_id: str, memory_id: str) -> float | None:
    """When this device recorded the memory's forget (its own or one pulled from another device)."""
    found = index.forgotten_at(agent_id, [memory_id])
    return float(found[memory_id]) if memory_id in found else None


def index_place(index: LocalIndex | None, agent_id: str, memory_id: str) -> Place:
    """The local index: the row and its terms, its vectors, and (after a forget) whether the file was
    scrubbed since: SQLite keeps deleted cells in free pages and its WAL, and FTS5 keeps a deleted row's
    terms in older segments until they are merged."""
    place = Place("local index")
    if index is None:
        place.unknown = "no local index is open"
        return place
    row = index.read("SELECT rowid FROM memories WHERE agent_id = ? AND id = ?", [agent_id, memory_id])
    if row:
        place.found.append(f"row {memory_id} (text, category, metadata) and its terms")
        if index.read("SELECT 1 FROM vectors WHERE rowid = ?", [row[0][0]]):
            place.found.append("its vector")
    if index.read("SELECT 1 FROM live_vectors WHERE agent_id = ? AND id = ?", [agent_id, memory_id]):
        place.found.append("a vector of its warm or hot copy")
    if index.read("SELECT 1 FROM outbox WHERE agent_id = ? AND id = ? AND op = 'forget'", [agent_id, memory_id]):
        place.found.append("its forget is not uploaded yet: the server still holds the memory's ciphertext")
    from memoryd.tiers.cold.scrub import SCRUB_MARK

    at = forgotten_at(index, agent_id, memory_id)
    scrubbed = index.meta(SCRUB_MARK.format(agent=agent_id))
    if at is not None and not row and (scrubbed is None or float(scrubbed) < at):
        place.found.append("free pages, WAL and unmerged terms segments of the index file not scrubbed since "
                           "the forget (they may still hold its text and words)")
    return place
