"""What tiers asks of the outside world: the cold archive and an LLM. sync/ implements them."""
from __future__ import annotations

from typing import Any, Iterator, Mapping, Protocol, Sequence

# A cold entry is a plain dict with at least:
#   id, text, category, importance, created_at (unix s), access_count, metadata (dict)
ColdEntry = Mapping[str, Any]


class Archive(Protocol):
    """Cold storage for one database; every call is scoped by agent_id.

    Every method raises memoryd.tiers.errors.ArchiveError/RemoteError on failure,
    never a third-party exception. `put` returns only once the rows are durable.
    """

    def put(self, agent_id: str, entries: Sequence[ColdEntry]) -> None:
        """Insert or replace entries by id (idempotent), atomically."""

    def search(self, agent_id: str, query: str, limit: int = 10) -> list[dict[str, Any]]:
        """Full-text search; each hit is an entry plus `relevance` in 0..1 (best first)."""

    def get(self, agent_id: str, ids: Sequence[str]) -> list[dict[str, Any]]:
        """Entries with these ids (missing ids are skipped)."""

    def touch(self, agent_id: str, ids: Sequence[str]) -> None:
        """Count one access for each id (reinforcement)."""

    def dated(self, agent_id: str, since: float | None, until: float | None, limit: int = 50) -> list[dict[str, Any]]:
        """The most important entries dated in [since, until) (a note's own date, else when stored)."""

    def count(self, agent_id: str) -> int: ...

    def category_counts(self, agent_id: str) -> dict[str, int]: ...

    def delete_ids(self, agent_id: str, ids: Sequence[str]) -> int:
        """Delete these ids; returns how many existed."""

    def delete_created_between(self, agent_id: str, start: float, end: float) -> list[str]:
        """Delete entries with start <= created_at < end; returns their ids."""

    def iter_entries(self, agent_id: str) -> Iterator[dict[str, Any]]:
        """Every entry of the agent, in id order, fetched in pages."""

    def close(self) -> None: ...


class LLM(Protocol):
    """A text-completion endpoint. Raises RemoteError on timeout/HTTP failure."""

    def complete(self, prompt: str, *, timeout: float = 30.0) -> str: ...
