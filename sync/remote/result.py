"""What a statement sends and gets back, in plain Python types (no third-party type leaks out of sync/remote)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

Args = Sequence[Any] | Mapping[str, Any] | None
Stmt = tuple[str, Args]


@dataclass
class Result:
    """Rows of one statement, as plain tuples."""

    columns: tuple[str, ...]
    rows: list[tuple[Any, ...]]
    rows_affected: int = 0

    def dicts(self) -> list[dict[str, Any]]:
        return [dict(zip(self.columns, row)) for row in self.rows]

    def scalar(self, default: Any = None) -> Any:
        return self.rows[0][0] if self.rows and self.rows[0] else default
