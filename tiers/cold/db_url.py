"""MEMORYD_DB_URL parsed and checked: with `file:` the local index is that file (it is the archive), else a server.

The cold tier reads it to find its own file; sync/remote connects with it. Tokens are kept in a repr=False
field and never formatted into a message: `display` (and redact_url) is what errors and logs show.
"""
from __future__ import annotations

import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path

from memoryd.tiers.base.errors import ConfigError


@dataclass(frozen=True)
class DbUrl:
    """A parsed MEMORYD_DB_URL. `scheme` is the transport: file, http, https, ws or wss."""

    scheme: str
    path: str = ""  # file path for file:, URL path otherwise
    netloc: str = ""  # host[:port], without userinfo
    token: str | None = field(default=None, repr=False)
    display: str = ""  # what errors and logs show (redacted)
    # Set by sync/remote/namespaces.py for the namespace layout: headers every request carries (the sqld
    # namespace, or the Host of a `{agent}.localhost` name reached on loopback) and the namespace's name.
    headers: tuple[tuple[str, str], ...] = ()
    namespace: str | None = None
    token_name: str = "MEMORYD_DB_TOKEN"  # the setting the token came from, for the message when it is refused

    @property
    def is_file(self) -> bool:
        return self.scheme == "file"

    @property
    def client_url(self) -> str:
        """The URL handed to the server client (no query, no userinfo, no token)."""
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
