"""The database connection: a thin synchronous Database over file: (sqlite3) or a server (libsql-client).

    connect(config) -> Database
      file:                  sqlite3 directly (WAL, busy timeout, durable commits): sync/remote/sqlite_file.py
      http(s)://             libsql-client Hrana-over-HTTP (no interactive transactions; batch is atomic)
      ws(s):// libsql://     libsql-client Hrana-over-WebSocket (libsql:// = wss://, ?tls=0 = ws://)
                             both in sync/remote/libsql.py, imported only for a server URL

Every third-party exception is translated by the backends into ArchiveError / RemoteError (and the
subclasses of sync/remote/errors.py), naming the URL without its token (memoryd.tiers.cold.db_url).
"""
from __future__ import annotations

import logging
from dataclasses import replace
from typing import Any, Iterable, Mapping

from memoryd.tiers.base.config import Config
from memoryd.tiers.base.errors import ConfigError
from memoryd.tiers.cold.db_url import DbUrl, parse_db_url, redact_url

from memoryd.sync.remote import namespaces

from memoryd.sync.remote.result import Args, Result, Stmt
from memoryd.sync.remote.sqlite_file import FileBackend

log = logging.getLogger("memoryd.sync")

DEFAULT_TIMEOUT = 15.0  # seconds per statement/batch (incl. connecting)
DEFAULT_CONNECT_TIMEOUT = 5.0


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
    return config.db.timeout, config.db.connect_timeout  # checked at load


def connect(config: Config, *, url: str | None = None, token: str | None = None, check: bool = True,
            agent_id: str | None = None, admin: bool = False) -> Database:
    """Open the configured database (or `url`); remote URLs are checked with one round trip unless
    `check` is False (when the caller's first statement will do that anyway). Under the namespace layout
    (sync/remote/namespaces.py) `agent_id` picks the agent's own namespace; `admin` uses MEMORYD_ADMIN_TOKEN."""
    parsed = _parse(config, url, token, agent_id, admin)
    timeout, connect_timeout = _timeouts(config)
    if parsed.is_file:
        return Database(parsed, FileBackend(parsed, timeout))
    from memoryd.sync.remote.libsql import RemoteBackend  # pulls in libsql_client + aiohttp (~250 ms)

    backend = RemoteBackend(parsed, timeout=timeout, connect_timeout=connect_timeout)
    if check:
        try:
            backend.ping()
        except BaseException:
            backend.close()
            raise
    return Database(parsed, backend)


def _parse(config: Config, url: str | None, token: str | None, agent_id: str | None, admin: bool) -> DbUrl:
    raw = url or config.db_url
    token_name = "MEMORYD_ADMIN_TOKEN" if admin else "MEMORYD_DB_TOKEN"
    tok = token if url else (token or (config.admin_token if admin else config.db_token))
    if not namespaces.uses_namespaces(config, raw):
        if namespaces.TEMPLATE in raw:
            raise ConfigError(f"{redact_url(raw)} names {namespaces.TEMPLATE} but is a file")
        return replace(parse_db_url(raw, tok), token_name=token_name)
    if agent_id is None:
        raise ConfigError("with one namespace per agent ([sync] layout = \"namespace\" or a {agent} URL), "
                          "a connection needs the agent it is for")
    namespaces.ensure_namespace(config, agent_id)
    return namespaces.agent_url(raw, tok, agent_id, token_name=token_name)
