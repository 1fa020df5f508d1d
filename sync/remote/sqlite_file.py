"""The Database backend for `file:` URLs: sqlite3 on the local file (the local index's own file), one
connection guarded by a lock, WAL, FULL sync (durable commits); no 250 ms network-client import."""
from __future__ import annotations

import sqlite3
import threading
from pathlib import Path
from typing import Any

from memoryd.tiers.base.errors import ArchiveError, MemorydError, StoreError
from memoryd.tiers.cold.db_url import DbUrl
from memoryd.tiers.cold.index_file import create_private, enable_wal

from memoryd.sync.remote.errors import database_error
from memoryd.sync.remote.result import Result


class FileBackend:
    """sqlite3 on a local file: one connection guarded by a lock, WAL, FULL sync (durable commits)."""

    def __init__(self, url: DbUrl, timeout: float) -> None:
        self.url = url
        path = Path(url.path)
        self._lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None
        try:
            create_private(path)  # never opens and closes an existing file (see create_private)
            conn = sqlite3.connect(path, timeout=timeout, isolation_level=None, check_same_thread=False)
            enable_wal(conn, timeout)
            conn.execute("PRAGMA synchronous=FULL")
            conn.execute(f"PRAGMA busy_timeout={int(timeout * 1000)}")
        except StoreError as exc:
            raise ArchiveError(f"cannot open {url.display}: {exc.message}") from None
        except OSError as exc:
            raise ArchiveError(f"cannot open {url.display}: {exc.strerror or exc}") from None
        except sqlite3.Error as exc:
            raise sqlite_error(exc, url.display) from None
        self._conn = conn

    def _connection(self) -> sqlite3.Connection:
        if self._conn is None:
            raise ArchiveError(f"database {self.url.display} is closed")
        return self._conn

    def execute(self, sql: str, args: list[Any]) -> Result:
        with self._lock:
            try:
                return _run(self._connection(), sql, args)
            except sqlite3.Error as exc:
                raise sqlite_error(exc, self.url.display) from None

    def batch(self, stmts: list[tuple[str, list[Any]]]) -> list[Result]:
        with self._lock:
            conn = self._connection()
            try:
                conn.execute("BEGIN IMMEDIATE")
                try:
                    out = [_run(conn, sql, args) for sql, args in stmts]
                    conn.execute("COMMIT")
                except BaseException:
                    if conn.in_transaction:
                        conn.execute("ROLLBACK")
                    raise
                return out
            except sqlite3.Error as exc:
                raise sqlite_error(exc, self.url.display) from None

    def close(self) -> None:
        with self._lock:
            conn, self._conn = self._conn, None
        if conn is not None:
            conn.close()


def _run(conn: sqlite3.Connection, sql: str, args: Any) -> Result:
    cur = conn.execute(sql, args)
    try:
        rows = cur.fetchall()
        cols = tuple(d[0] for d in cur.description or ())
        return Result(cols, [tuple(r) for r in rows], max(cur.rowcount, 0))
    finally:
        cur.close()


def sqlite_error(exc: sqlite3.Error, shown: str) -> MemorydError:
    text = " ".join(str(exc).split()) or type(exc).__name__
    name = getattr(exc, "sqlite_errorname", "")
    if name in ("SQLITE_BUSY", "SQLITE_LOCKED") or "database is locked" in text:
        return ArchiveError(f"{shown} is busy (locked by another process): {text}", transient=True)
    if name in ("SQLITE_NOTADB", "SQLITE_CORRUPT") or "not a database" in text:
        return ArchiveError(f"{shown} is not a usable database: {text}")
    if name in ("SQLITE_FULL", "SQLITE_IOERR", "SQLITE_CANTOPEN", "SQLITE_READONLY"):
        return ArchiveError(f"cannot write {shown}: {text}")
    return database_error(text, shown)
