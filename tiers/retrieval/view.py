"""RetrievalView: the read-only part of one agent's memory that a retrieve needs (not AgentMemory itself)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Mapping

from memoryd.tiers.base.ports import Archive

if TYPE_CHECKING:
    from memoryd.tiers.memory.types import AgentState


@dataclass(frozen=True)
class RetrievalView:
    """Built by AgentMemory.retrieve under the agent's lock, which it holds while the retrieve runs."""

    agent_id: str
    state: AgentState                         # hot, warm (accesses since the last write folded in), tree
    pending: Mapping[str, tuple[int, int]]    # those accesses: {id: (access_count, last_access)}
    archive: Archive | None                   # the local index (None: hot and warm only)
    now: float
    settings: Mapping[str, Any]               # config [retrieval]: mode, fusion, dense_weight
    mode_chosen: bool                         # [retrieval] mode was set (file or environment), not defaulted
    record_accesses: Callable[[dict[str, tuple[int, int]]], None]  # reinforcement, folded in by the next write
    warn: Callable[[str], None]               # a warning for the caller (AgentMemory.warnings)
    knowledge: bool = True                    # [knowledge] layer: off ranks the words alone (no knowledge stage)
    # {id: open review questions that a newer memory may replace it}, read only when a placement is weighed (most
    # retrieves place nothing: no review file read for them); such a memory is never placed as another's current value
    doubted: Callable[[], Mapping[str, frozenset[str]]] = dict


def retrieval_settings(config: Any) -> tuple[Mapping[str, Any], bool]:
    """The [retrieval] section of a Config, and whether its mode was chosen rather than defaulted."""
    chosen = str(getattr(config, "sources", {}).get("[retrieval] mode", "default")) != "default"
    return config.section("retrieval"), chosen
