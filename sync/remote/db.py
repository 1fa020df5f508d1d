"""libSQL connection: URL parsing/redaction and a thin sync Database over file: (sqlite3) or a server.

    connect(config) -> Database
      file:                  sqlite3 directly (WAL, busy timeout, durable commits); no 250 ms import
      http(s)://             libsql-client Hrana-over-HTTP (no interactive transactions; batch is atomic)
      ws(s):// libsql://     libsql-client Hrana-over-WebSocket (libsql:// = wss://, ?tls=0 = ws://)

Every third-party exception is translated here into ArchiveError / RemoteError, naming the URL
without its token. The token is kept in a repr=False field and never formatted into a message.
"""
from __future__ import annotations

import logging
import os
import sqlite3
import threading
import time
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

from memoryd.tiers.base.atomic import ensure_private_dir
from memoryd.tiers.base.config import Config
from memoryd.tiers.base.errors import ArchiveError, ConfigError, MemorydError, StoreError

log = logging.getLogger("memoryd.sync")

Args = Sequence[Any] | Mapping[str, Any] | None
Stmt = tuple[str, Args]

DEFAULT_TIMEOUT = 15.0  # seconds per statement/batch (incl. connecting)
DEFAULT_CONNECT_TIMEOUT = 5.0


@dataclass(frozen=True)
class DbUrl:
    """A parsed MEMORYD_DB_URL. `scheme` is the transport: file, http, https, ws or wss."""

    scheme: str
    path: str = ""  # file path for file:, URL path otherwise
    netloc: str = ""  # host[:port], without userinfo
    token: str | None = field(default=None, repr=False)
    display: str = ""  # what errors and logs show (redacted)

    @property
    def is_file(self) -> bool:
        return self.scheme == "file"

    @property
    def client_url(self) -> str:
        """The URL handed to libsql-client (no query, no userinfo, no token)."""
        if self.is_file:
            return f"file:{self.path}"
        return urllib.parse.urlunparse((self.scheme, self.netloc, self.path, "", "", ""))

    @property
    def http_url(self) -> str:
        """The Hrana-over-HTTP URL of the same server (used to diagnose WebSocket failures)."""
        scheme = {"ws": "http", "wss": "https"}.get(self.scheme, self.scheme)
        return urllib.parse.urlunparse((scheme, self.netloc, self.path, "", "", ""))


def redact_url(url: str) -> str:
    """The URL without userinfo, query or fragment (where tokens hide); safe for logs and errors."""
    try:
        parts = urllib.parse.urlsplit(url)
    except ValueError:
        return "<invalid url>"
    if parts.scheme == "file" or url.startswith("file:"):
        return "file:" + (parts.path or url[5:].split("?", 1)[0])
    host = parts.hostname or ""
    if ":" in host:  # IPv6 literal
        host = f"[{host}]"
    try:
        port = parts.port
    except ValueError:
        port = None
    netloc = f"{host}:{port}" if port else host
    return urllib.parse.urlunsplit((parts.scheme, netloc, parts.path, "", ""))


def parse_db_url(url: str, token: str | None = None) -> DbUrl:
    """Parse and validate a database URL; `token` (MEMORYD_DB_TOKEN) wins over ?authToken=."""
    if not isinstance(url, str) or not url.strip():
        raise ConfigError("MEMORYD_DB_URL is empty")
    url = url.strip()
    shown = redact_url(url)
    if url.startswith("file:"):
        return _parse_file_url(url, shown)
    try:
        parts = urllib.parse.urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError on a bad port
    except ValueError:
        raise ConfigError(f"invalid database URL {shown}") from None
    scheme = parts.scheme.lower()
    query = dict(urllib.parse.parse_qsl(parts.query, keep_blank_values=True))
    unknown = set(query) - {"authToken", "tls"}
    if unknown:
        raise ConfigError(f"unsupported query parameter(s) {', '.join(sorted(unknown))} in {shown}")
    if scheme == "libsql":  # as Turso users expect: TLS WebSocket unless ?tls=0
        scheme = "ws" if query.get("tls") == "0" else "wss"
    elif scheme not in ("http", "https", "ws", "wss"):
        raise ConfigError(f"unsupported database URL scheme in {shown}: use file:, libsql://, https://, http://, ws:// or wss://")
    if not parts.hostname:
        raise ConfigError(f"database URL {shown} has no host")
    if parts.username or parts.password:
        raise ConfigError(f"database URL {shown} must not carry user:password; set MEMORYD_DB_TOKEN")
    netloc = parts.hostname if ":" not in parts.hostname else f"[{parts.hostname}]"
    if parts.port:
        netloc += f":{parts.port}"
    tok = token or query.get("authToken") or None
    return DbUrl(scheme=scheme, path=parts.path, netloc=netloc, token=tok, display=shown)


def _parse_file_url(url: str, shown: str) -> DbUrl:
    rest = url[len("file:"):]
    if "?" in rest or "#" in rest:
        raise ConfigError(f"file: database URL {shown} must not have a query or fragment")
    if rest.startswith("//"):
        authority, _, rest = rest[2:].partition("/")
        if authority not in ("", "localhost"):
            raise ConfigError(f"file: database URL {shown} must not name a host")
        rest = "/" + rest
    path = urllib.parse.unquote(rest)
    if not path:
        raise ConfigError("file: database URL has no path")
    path = str(Path(path).expanduser())
    return DbUrl(scheme="file", path=path, display=f"file:{path}")


@dataclass
class Result:
    """Rows of one statement, as plain tuples (no third-party types leak out)."""

    columns: tuple[str, ...]
    rows: list[tuple[Any, ...]]
    rows_affected: int = 0

    def dicts(self) -> list[dict[str, Any]]:
        return [dict(zip(self.columns, row)) for row in self.rows]

    def scalar(self, default: Any = None) -> Any:
        return self.rows[0][0] if self.rows and self.rows[0] else default


class Database:
    """A synchronous handle on one database; safe to share between threads."""

    def __init__(self, url: DbUrl, backend: Any) -> None:
        self.url = url
        self._backend = backend

    @property
    def display_url(self) -> str:
        return self.url.display

    @property
    def is_file(self) -> bool:
        return self.url.is_file

    def execute(self, sql: str, args: Args = None) -> Result:
        """One statement; `args` positional (?) or named (:name)."""
        return self._backend.execute(sql, _args(args))

    def batch(self, stmts: Iterable[Stmt]) -> list[Result]:
        """Run the statements in one transaction: all of them or none."""
        items = [(sql, _args(args)) for sql, args in stmts]
        return self._backend.batch(items) if items else []

    def close(self) -> None:
        self._backend.close()

    def __enter__(self) -> "Database":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Database({self.url.display!r})"


def _args(args: Args) -> Any:
    if isinstance(args, Mapping):
        return {str(k).lstrip(":$@"): v for k, v in args.items()}
    return list(args or ())


def _timeouts(config: Config) -> tuple[float, float]:
    section = config.section("db")
    try:
        timeout = float(section.get("timeout", DEFAULT_TIMEOUT))
        connect_timeout = float(section.get("connect_timeout", DEFAULT_CONNECT_TIMEOUT))
    except (TypeError, ValueError):
        raise ConfigError("config.toml [db] timeout/connect_timeout must be numbers") from None
    if timeout <= 0 or connect_timeout <= 0:
        raise ConfigError("config.toml [db] timeouts must be positive")
    return timeout, connect_timeout


def connect(config: Config, *, url: str | None = None, token: str | None = None, check: bool = True) -> Database:
    """Open the configured database (or `url`); remote URLs are checked with one round trip unless
    `check` is False (when the caller's first statement will do that anyway)."""
    parsed = parse_db_url(url or config.db_url, token if url else (token or config.db_token))
    timeout, connect_timeout = _timeouts(config)
    if parsed.is_file:
        return Database(parsed, _FileBackend(parsed, timeout))
    from memoryd.sync.remote.libsql import RemoteBackend  # pulls in libsql_client + aiohttp (~250 ms)

    backend = RemoteBackend(parsed, timeout=timeout, connect_timeout=connect_timeout)
    if check:
        try:
            backend.ping()
        except BaseException:
            backend.close()
            raise
    return Database(parsed, backend)


class _FileBackend:
    """sqlite3 on a local file: one connection guarded by a lock, WAL, FULL sync (durable commits)."""

    def __init__(self, url: DbUrl, timeout: float) -> None:
        self.url = url
        path = Path(url.path)
        try:
            ensure_private_dir(path.parent)
        except StoreError as exc:
            raise ArchiveError(f"cannot open {url.display}: {exc.message}") from None
        self._lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None
        try:
            try:  # never open and close an existing file: it would drop this process's POSIX locks on it
                os.close(os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600))  # (see index_schema)
            except FileExistsError:
                pass
            if (path.stat().st_mode & 0o777) != 0o600:
                os.chmod(path, 0o600)
            conn = sqlite3.connect(path, timeout=timeout, isolation_level=None, check_same_thread=False)
            enable_wal(conn, timeout)
            conn.execute("PRAGMA synchronous=FULL")
            conn.execute(f"PRAGMA busy_timeout={int(timeout * 1000)}")
        except OSError as exc:
            raise ArchiveError(f"cannot open {url.display}: {exc.strerror or exc}") from None
        except sqlite3.Error as exc:
            raise _sqlite_error(exc, url.display) from None
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
                raise _sqlite_error(exc, self.url.display) from None

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
                raise _sqlite_error(exc, self.url.display) from None

    def close(self) -> None:
        with self._lock:
            conn, self._conn = self._conn, None
        if conn is not None:
            conn.close()


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


def _run(conn: sqlite3.Connection, sql: str, args: Any) -> Result:
    cur = conn.execute(sql, args)
    try:
        rows = cur.fetchall()
        cols = tuple(d[0] for d in cur.description or ())
        return Result(cols, [tuple(r) for r in rows], max(cur.rowcount, 0))
    finally:
        cur.close()


def _sqlite_error(exc: sqlite3.Error, shown: str) -> MemorydError:
    text = " ".join(str(exc).split()) or type(exc).__name__
    name = getattr(exc, "sqlite_errorname", "")
    if name in ("SQLITE_BUSY", "SQLITE_LOCKED") or "database is locked" in text:
        return ArchiveError(f"{shown} is busy (locked by another process): {text}", transient=True)
    if name in ("SQLITE_NOTADB", "SQLITE_CORRUPT") or "not a database" in text:
        return ArchiveError(f"{shown} is not a usable database: {text}")
    if name in ("SQLITE_FULL", "SQLITE_IOERR", "SQLITE_CANTOPEN", "SQLITE_READONLY"):
        return ArchiveError(f"cannot write {shown}: {text}")
    return ArchiveError(f"database error on {shown}: {text}")
