"""The libsql-client backend for server URLs: an event-loop thread, timeouts, and error translation.

Imported only when a remote URL is used (libsql_client + aiohttp cost ~250 ms). Errors that leave
this module are memoryd errors naming the redacted URL; the token never appears in them.
"""
from __future__ import annotations

import asyncio
import concurrent.futures
import threading
import time
from typing import Any, Awaitable, Callable, TypeVar

import aiohttp
import libsql_client

from memoryd.tiers.base.backoff import Backoff
from memoryd.tiers.base.errors import ArchiveError, MemorydError, RemoteError, TokenError

from memoryd.tiers.cold.db_url import DbUrl

from memoryd.sync.remote.errors import database_error
from memoryd.sync.remote.result import Result

T = TypeVar("T")

AUTH_HINT = "check MEMORYD_DB_TOKEN"
_AUTH_CODES = ("AUTH", "JWT", "UNAUTHORIZED")


BUSY_RETRY_SECONDS = 5.0
BUSY_BACKOFF = Backoff(base=0.02, cap=0.5)  # the one policy (tiers/base/backoff.py): 20, 40, 80 … 500 ms


class RemoteBackend:
    """One libsql-client Client driven from a private event-loop thread."""

    def __init__(self, url: DbUrl, *, timeout: float, connect_timeout: float) -> None:
        self.url = url
        self.timeout = timeout
        self.connect_timeout = connect_timeout
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="memoryd-libsql", daemon=True)
        self._thread.start()
        self._closed = False
        self._client: Any = None
        try:
            self._client = self._submit(self._create, connect_timeout)
        except BaseException:
            self._stop_loop()
            raise

    async def _create(self) -> Any:
        # The client must be built on the loop: the WebSocket client starts tasks in its constructor.
        client = libsql_client.create_client(self.url.client_url, auth_token=self.url.token)
        if self.url.headers:
            _add_headers(client, dict(self.url.headers))
        return client

    def _submit(self, factory: Callable[[], Awaitable[T]], timeout: float) -> T:
        if self._closed:
            raise ArchiveError(f"database {self.url.display} is closed")

        async def run() -> T:
            return await asyncio.wait_for(factory(), timeout)

        fut = asyncio.run_coroutine_threadsafe(run(), self._loop)
        try:
            return fut.result(timeout + 5)
        except (asyncio.TimeoutError, concurrent.futures.TimeoutError):
            fut.cancel()
            raise RemoteError(f"timed out after {timeout:g}s talking to {self.url.display}") from None
        except MemorydError:
            raise
        except Exception as exc:  # noqa: BLE001 - translated, never leaked
            raise self._translate(exc) from None

    def ping(self) -> None:
        self.execute("SELECT 1", [])

    def execute(self, sql: str, args: list[Any]) -> Result:
        rs = self._busy_retry(lambda: self._submit(lambda: self._client.execute(sql, args), self.timeout))
        return _result(rs)

    def batch(self, stmts: list[tuple[str, list[Any]]]) -> list[Result]:
        items = [(sql, args) for sql, args in stmts]
        return [_result(rs) for rs in self._busy_retry(
            lambda: self._submit(lambda: self._client.batch(items), self.timeout))]

    def _busy_retry(self, call: Callable[[], T]) -> T:
        """sqld answers "database is locked" while another client writes; the statement (or the
        whole atomic batch) did not run, so trying again shortly is safe. Bounded: then transient."""
        deadline, attempts = time.monotonic() + min(self.timeout, BUSY_RETRY_SECONDS), 0
        while True:
            try:
                return call()
            except RemoteError as exc:
                attempts += 1
                delay = BUSY_BACKOFF.delay(attempts)
                if "is busy" not in exc.message or time.monotonic() + delay > deadline:
                    raise
            time.sleep(delay)

    def close(self) -> None:
        if self._closed:
            return
        try:
            if self._client is not None:
                self._submit(self._client.close, self.connect_timeout)
        except MemorydError:
            pass  # closing a dead connection is not worth an error
        finally:
            self._closed = True
            self._stop_loop()

    def _stop_loop(self) -> None:
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(5)
        if not self._thread.is_alive():
            self._loop.close()

    # -- error translation -------------------------------------------------------------------
    def _translate(self, exc: BaseException) -> MemorydError:
        error = self._translate_plain(exc)
        hint = _scheme_hint(self.url, exc, error)
        return type(error)(f"{error.message}; {hint}", transient=error.transient) if hint else error

    def _translate_plain(self, exc: BaseException) -> MemorydError:
        shown = self.url.display
        if isinstance(exc, aiohttp.WSServerHandshakeError) and exc.status in (401, 403):
            return _auth_error(self.url, exc.status)
        if isinstance(exc, aiohttp.WSServerHandshakeError) and exc.status == 404 and self.url.namespace:
            return _namespace_missing(self.url)
        websocket = self.url.scheme in ("ws", "wss")
        if websocket and isinstance(exc, aiohttp.ClientConnectionError) and not isinstance(
                exc, aiohttp.ClientConnectorError):
            return self._diagnose_closed()  # sqld drops the socket on auth failure: find out why
        if isinstance(exc, (aiohttp.ClientConnectionError, ConnectionError, OSError)):
            return RemoteError(f"cannot reach {shown}: {_reason(exc)}")
        if isinstance(exc, aiohttp.ClientResponseError):
            if exc.status in (401, 403):
                return _auth_error(self.url, exc.status)
            return RemoteError(f"{shown} answered HTTP {exc.status}", transient=exc.status >= 500)
        if isinstance(exc, libsql_client.LibsqlError):
            return self._translate_libsql(exc)
        if isinstance(exc, aiohttp.ClientError):
            return RemoteError(f"cannot talk to {shown}: {_reason(exc)}")
        return ArchiveError(f"unexpected failure talking to {shown}: {type(exc).__name__}")

    def _translate_libsql(self, exc: Any) -> MemorydError:
        shown = self.url.display
        code = str(getattr(exc, "code", "") or "")
        text = " ".join(str(getattr(exc, "explanation", exc)).split())
        if code == "SERVER_ERROR" and "HTTP status" in text:
            status = _status(text)
            if status in (401, 403):
                return _auth_error(self.url, status)
            if status == 404 and self.url.namespace:
                return _namespace_missing(self.url)
            return RemoteError(f"{shown} answered HTTP {status or '?'}", transient=status is None or status >= 500)
        if any(part in code.upper() for part in _AUTH_CODES):
            return _auth_error(self.url, 401)
        if code == "HRANA_WEBSOCKET_ERROR":
            return self._diagnose_closed()
        if code == "CLIENT_CLOSED":
            return RemoteError(f"connection to {shown} was closed")
        if "database is locked" in text or "SQLITE_BUSY" in text.upper():
            return RemoteError(f"{shown} is busy (another writer holds the database): {text}", transient=True)
        return database_error(text, shown)

    def _diagnose_closed(self) -> MemorydError:
        """sqld closes the WebSocket on auth failures without saying why: ask over HTTP instead."""
        shown = self.url.display

        async def probe() -> int:
            headers = {"authorization": f"Bearer {self.url.token}"} if self.url.token else {}
            headers.update(self.url.headers)
            timeout = aiohttp.ClientTimeout(total=self.connect_timeout)
            async with aiohttp.ClientSession(headers=headers, timeout=timeout) as session:
                base = self.url.http_url.rstrip("/")
                for sql in ("SELECT 1", "DELETE FROM sqlite_master WHERE 0"):  # read, then a no-op write
                    body = {"stmt": {"sql": sql}}
                    async with session.post(f"{base}/v1/execute", json=body) as resp:
                        if resp.status in (401, 403, 404):
                            return resp.status
            return 0

        try:
            status = asyncio.run_coroutine_threadsafe(probe(), self._loop).result(self.connect_timeout + 2)
        except Exception as exc:  # noqa: BLE001 - the server is gone: a transient failure
            return RemoteError(f"cannot reach {shown}: connection closed ({_reason(exc)})")
        if status == 404:
            return _namespace_missing(self.url) if self.url.namespace else RemoteError(f"{shown} answered HTTP 404")
        if status:
            return _auth_error(self.url, status)
        return RemoteError(f"connection to {shown} was closed by the server")


def _add_headers(client: Any, headers: dict[str, str]) -> None:
    """libsql-client 0.3.1 (pinned) takes no headers, but both its clients send every request, the WebSocket
    handshake included, through one aiohttp session made in the constructor and first used after it: its
    default headers are the one place. Refuse rather than silently reach the server's default namespace."""
    session = getattr(client, "_session", None)
    if session is None or not hasattr(session, "headers"):
        raise ArchiveError("this libsql-client cannot name a namespace per request (memoryd pins 0.3.1)")
    session.headers.update(headers)


def _auth_error(url: DbUrl, status: int) -> RemoteError:
    shown, name = url.display, url.token_name
    if status == 403:
        return TokenError(f"token is read-only for {shown}: writing needs a read-write {name}")
    if url.namespace:
        return TokenError(f"authentication failed for {shown}: {name} does not open namespace {url.namespace}")
    return TokenError(f"authentication failed for {shown}: check {name}")


def _namespace_missing(url: DbUrl) -> RemoteError:
    # sqld answers 404 both for a namespace that does not exist and for one this token may not open
    return TokenError(f"namespace {url.namespace} is not on {url.display} or {url.token_name} does not open it: "
                      f"the operator creates it (or set [sync] namespace_admin_url) and mints a token for it")


def _status(text: str) -> int | None:
    for word in text.replace(",", " ").split():
        if word.isdigit() and len(word) == 3:
            return int(word)
    return None


def _reason(exc: BaseException) -> str:
    if isinstance(exc, (asyncio.TimeoutError, concurrent.futures.TimeoutError)):
        return "timed out"
    if isinstance(exc, aiohttp.ClientConnectorError):
        return exc.os_error.strerror or "connection refused"
    text = getattr(exc, "strerror", None) or str(exc) or type(exc).__name__
    return " ".join(str(text).split())[:200]


def _result(rs: Any) -> Result:
    return Result(tuple(rs.columns), [tuple(row) for row in rs.rows], int(rs.rows_affected or 0))


_TLS_ON_PLAIN = ("wrong_version_number", "wrong version number", "record layer failure", "packet length too long",
                 "unknown protocol", "http_request")
_PLAIN_ON_TLS = ("server disconnected", "connection reset", "400", "bad request", "plain http request")


def _scheme_hint(url: Any, exc: BaseException, error: MemorydError) -> str | None:
    """The common URL mistake: TLS (libsql://, https://, wss://) against a plain-HTTP server such as a
    local sqld, or the reverse. Name the URL to use instead."""
    text = f"{exc} {error.message}".lower()
    host = url.netloc
    if url.scheme in ("https", "wss") and any(t in text for t in _TLS_ON_PLAIN):
        return (f"the server does not speak TLS (a local sqld serves plain HTTP): use http://{host} "
                f"or ws://{host} (or libsql://{host}?tls=0)")
    if url.scheme in ("http", "ws") and "auth" not in text and any(t in text for t in _PLAIN_ON_TLS):
        return f"if the server uses TLS (Turso does), use https://{host} or libsql://{host}"
    return None
