"""The local index's SQLite file on this device: where it lives, created private, opened with WAL and durable commits."""
from __future__ import annotations

import os
import sqlite3
import time
from pathlib import Path

from memoryd.tiers.base.atomic import ensure_private_dir
from memoryd.tiers.base.config import Config
from memoryd.tiers.base.errors import ArchiveError, MemorydError, StoreError

from memoryd.tiers.cold.db_url import parse_db_url

BUSY_MS = 15000


def index_path(config: Config) -> Path:
    """With a `file:` URL the local index is that file (it is the archive); else `$MEMORYD_HOME/cold.db`."""
    url = parse_db_url(config.db_url)  # URL parsing only: no network client
    return Path(url.path) if url.is_file else config.home / "cold.db"


def create_private(path: Path) -> None:
    """Create the file 0600 (its dir 0700), but never open and close an existing one: closing any descriptor
    of it drops every POSIX lock this process holds on it, and another process may then delete the WAL
    that this process's other connection (the daemon's shared one) is still writing to."""
    ensure_private_dir(path.parent)
    try:
        os.close(os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600))
    except FileExistsError:
        pass
    if (path.stat().st_mode & 0o777) != 0o600:
        os.chmod(path, 0o600)


def enable_wal(conn: sqlite3.Connection, timeout: float) -> None:
    """Switching to WAL can fail with "locked" at once (no busy handler) while another connection
    is opening the same fresh file: retry until the timeout."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.01)


def connect(path: Path) -> sqlite3.Connection:
    """Open (creating 0600, dir 0700) with WAL, a busy timeout and durable commits."""
    try:
        create_private(path)
        conn = sqlite3.connect(path, timeout=BUSY_MS / 1000, isolation_level=None, check_same_thread=False)
        conn.execute(f"PRAGMA busy_timeout={BUSY_MS}")
        enable_wal(conn, BUSY_MS / 1000)
        conn.execute("PRAGMA synchronous=FULL")
    except StoreError as exc:
        raise ArchiveError(f"cannot open the local index {path}: {exc.message}") from None
    except OSError as exc:
        raise ArchiveError(f"cannot open the local index {path}: {exc.strerror or exc}") from None
    except sqlite3.Error as exc:
        raise translate(exc, path) from None
    return conn


def translate(exc: sqlite3.Error, where: Path | str) -> MemorydError:
    text = " ".join(str(exc).split()) or type(exc).__name__
    name = getattr(exc, "sqlite_errorname", "")
    if name in ("SQLITE_BUSY", "SQLITE_LOCKED") or "database is locked" in text:
        return ArchiveError(f"local index {where} is busy (locked by another process): {text}", transient=True)
    if name in ("SQLITE_NOTADB", "SQLITE_CORRUPT") or "not a database" in text or "malformed" in text:
        return ArchiveError(f"local index {where} is not a usable database: {text}")
    return ArchiveError(f"local index {where}: {text}")
