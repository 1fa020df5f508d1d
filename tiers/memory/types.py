"""The shapes of an agent's state files (hot, warm, tree, metrics) and of eviction rows, declared once.

They are TypedDicts, not classes: the state is JSON written as it is (canonical bytes), merged key by key
by sync and exported line by line, so a dict must stay a dict; the types cost nothing at run time. JSON
becomes these types at one point, StateFiles.load (memoryd.tiers.memory.state), after the validate_*
shape checks of hot.py, warm.py and tree.py; StateFiles.save writes them back unchanged.
"""
from __future__ import annotations

from typing import Any, NotRequired, TypedDict, Union

# -- hot: identity, owner profile, active context, critical lessons --------------------------------
ProfileValue = Union[str, int, float, list[Any]]  # written as str; older files and merges may hold the rest


class Project(TypedDict):
    id: str
    name: str
    description: str
    status: str
    updated_at: NotRequired[int]


class Event(TypedDict):
    id: str
    text: str
    timestamp: int


class Task(TypedDict):
    id: str
    text: str
    status: str          # pending | done | any one-line status
    timestamp: int


class Lesson(TypedDict):
    id: str
    text: str
    category: str
    importance: float
    timestamp: int
    source_id: NotRequired[str]  # the warm entry it was promoted from


class ActiveContext(TypedDict):
    projects: list[Project]
    events: list[Event]
    tasks: list[Task]


class HotState(TypedDict):
    """hot-memory-state.json (≤ 5 KB)."""

    identity: dict[str, ProfileValue]
    owner_profile: dict[str, ProfileValue]
    active_context: ActiveContext
    critical_lessons: list[Lesson]


HotItem = Union[Project, Event, Task, Lesson]


# -- warm: scored facts ----------------------------------------------------------------------------
class WarmEntry(TypedDict):
    """One fact in warm-memory.json; also what leaves warm for the local index."""

    id: str
    text: str
    category: str                 # a tree path
    importance: float
    created_at: int               # unix seconds
    access_count: int
    metadata: dict[str, Any]      # source, kind, date, urls, entities, promoted, …
    last_access: NotRequired[int]
    score: NotRequired[float]     # derived: rescore() sets it with `tier`
    tier: NotRequired[str]        # hot | warm | cold | frozen, from the score


class WarmState(TypedDict):
    """warm-memory.json (≤ 50 KB)."""

    entries: list[WarmEntry]


# -- tree: the category map --------------------------------------------------------------------------
# A node is the JSON pair [description, last active day (unix day number)]: a list in the file and in
# sync's merge, changed in place (node[1] = day); tree.py reads it through desc_of()/day_of_node().
TreeNode = list[Any]


class TreeState(TypedDict):
    """memory-tree.json (≤ 50 nodes, depth ≤ 4, ≤ 10 children, ≤ 2 KB): path → node."""

    nodes: dict[str, TreeNode]


class AgentState(TypedDict):
    """The three files one write saves together (AgentMemory.write_state)."""

    hot: HotState
    warm: WarmState
    tree: TreeState


# -- metrics.json --------------------------------------------------------------------------------------
class RunRecord(TypedDict, total=False):
    """One consolidation mode's last run."""

    last_start: float
    last_end: float
    last_ok_end: float
    ok: bool
    counts: dict[str, int]
    error: str | None
    via: str              # the larger mode whose success counted for this one


class Metrics(TypedDict):
    runs: dict[str, RunRecord]
    counters: dict[str, int]   # stores, redactions[.kind], cold_count, cold_counted_at


# -- eviction rows (evictions.jsonl) -----------------------------------------------------------------
class Eviction(TypedDict):
    """What a limit, a consolidation or a forget removed, and why (text previews only)."""

    tier: str            # hot | warm | tree | cold | all
    kind: str            # event | task | lesson | project | identity | owner_profile | entry | node | forget
    id: str
    what: str
    why: str
    to: NotRequired[str]            # "cold": a warm entry moved, not dropped
    entry: NotRequired[WarmEntry]   # that entry, for the caller to archive (never logged)
    reason: NotRequired[str]        # the write that caused it (store, consolidate, sync-merge, …)
    ts: NotRequired[int]
