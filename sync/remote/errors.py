"""Database errors the sync layer tells apart by type, each raised where a driver's error is translated.

    ArchiveError (memoryd.tiers.base.errors)
     ├── MissingTableError   a statement named a table the database lacks (or column: a fresh or older database: migrate)
     └── ConstraintError     a UNIQUE or other constraint refused a write (another device got there first)
"""
from __future__ import annotations

from memoryd.tiers.base.errors import ArchiveError


class MissingTableError(ArchiveError):
    title = "cold archive"


class ConstraintError(ArchiveError):
    title = "cold archive"


def database_error(text: str, shown: str) -> ArchiveError:
    """The error for a statement the database refused with `text` (the driver's own message)."""
    message = f"database error on {shown}: {text}"
    if "no such table" in text.lower() or "no such column" in text.lower() or "has no column named" in text.lower():
        # a table or column of a newer schema (a fresh database, or one from before devices): migrate
        return MissingTableError(message)
    if "unique" in text.lower() or "constraint" in text.lower():
        return ConstraintError(message)
    return ArchiveError(message)
