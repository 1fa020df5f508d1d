"""What tiers asks of the outside world: the cold archive and an LLM. sync/ implements them."""
from __future__ import annotations

from typing import Any, Iterator, Mapping, NotRequired, Protocol, Sequence, TypedDict

# What put() is given: any memory with at least id, text, category and created_at (unix s); importance,
# access_count, last_access and metadata (a dict) when it has them. Warm entries leaving warm, a
# conversation's turns and imported lines are all such mappings.
ColdInput = Mapping[str, Any]


class ColdEntry(TypedDict):
    """One row of the local index (a plain JSON dict): checked on its way in, or as read back by get,
    search, dated and iter_entries, which add what the index derives."""

    id: str
    text: str
    category: str
    importance: float | None
    created_at: int                 # unix seconds
    access_count: int
    last_access: int | None
    metadata: dict[str, Any]
    day: NotRequired[str]           # read back: YYYY-MM-DD, a note's own date, else the UTC day it was stored
    tier: NotRequired[str]          # read back: "cold"
    bm25: NotRequired[float]        # search() only: the row's BM25 (higher is better)


class Archive(Protocol):
    """The local index of memories that left warm (on this device; every call scoped by agent_id).

    Every method raises memoryd.tiers.base.errors.ArchiveError on failure, never a third-party
    exception. Writes are durable when they return.
    """

    def put(self, agent_id: str, entries: Sequence[ColdInput]) -> int:
        """Insert or replace entries by id (idempotent), atomically; returns how many changed."""

    def forget(self, agent_id: str, ids: Sequence[str], at: float | None = None) -> list[str]:
        """Delete these ids and remember the forget (an older copy arriving later stays out);
        returns the ids that were there."""

    def search(self, agent_id: str, terms: Sequence[str], limit: int = 10) -> list[ColdEntry]:
        """The best `limit` entries by BM25 over analyzer terms (any may match), best first, each with `bm25`."""

    def term_stats(self, agent_id: str, terms: Sequence[str]) -> tuple[int, int, dict[str, int]]:
        """(entries, total terms, {term: entries holding it}): corpus statistics for the ranking."""

    def get(self, agent_id: str, ids: Sequence[str]) -> list[ColdEntry]:
        """Entries with these ids (missing ids are skipped)."""

    def touch(self, agent_id: str, ids: Sequence[str]) -> None:
        """Count one access for each id (reinforcement)."""

    def set_access(self, agent_id: str, counts: dict[str, tuple[int, int]]) -> None:
        """Raise access counts and last access to at least these ({id: (count, last)})."""

    def dated(self, agent_id: str, since: float | None, until: float | None, limit: int = 50) -> list[ColdEntry]:
        """The most important entries dated in [since, until) (a note's own date, else when stored)."""

    def of_kind(self, agent_id: str, kind: str, limit: int = 50) -> list[ColdEntry]:
        """The most important entries of one kind (a memory's metadata memory_kind, else its label's kind)."""

    def by_restate_key(self, agent_id: str, keys: Sequence[str]) -> list[ColdEntry]:
        """Entries whose metadata restate_key is one of `keys` (an indexed lookup, not a search)."""

    def count(self, agent_id: str) -> int: ...

    def category_counts(self, agent_id: str) -> dict[str, int]: ...

    def delete_ids(self, agent_id: str, ids: Sequence[str]) -> int:
        """forget() these ids; returns how many existed."""

    def delete_created_between(self, agent_id: str, start: float, end: float) -> list[str]:
        """forget() entries with start <= created_at < end; returns their ids."""

    def iter_entries(self, agent_id: str) -> Iterator[ColdEntry]:
        """Every entry of the agent, in id order, fetched in pages."""

    def close(self) -> None: ...


class LLM(Protocol):
    """A text-completion endpoint. Raises RemoteError on timeout/HTTP failure."""

    def complete(self, prompt: str, *, timeout: float = 30.0) -> str: ...
