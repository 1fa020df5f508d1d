"""A libSQL namespace per agent: the agent id → namespace name mapping, the URL each agent's requests go to,
and sqld's admin API (create a namespace, set the keys that verify its tokens).

Names. sqld namespaces and Turso databases are DNS labels in practice (`{ns}.host`, `{db}-org.turso.io`):
lowercase letters, digits and single hyphens, at most 63 characters. An agent id (1-64 of A-Z a-z 0-9 _ -)
that is already such a label is its own namespace ("alice", "proj-x"); every other id ("Alice", "a_b",
"default" (sqld's own default namespace), 64 characters) becomes `<slug>--<16 base32 of SHA-256(id)>`, the
slug being the id lowercased with runs of other characters as one "-", cut to 40. Plain names never hold
"--", derived ones always do, so a plain id and a derived one never meet; two derived names meet only if
80 bits of SHA-256 do. migrate-namespaces refuses a namespace already holding another agent's rows.

Routing (`agent_url`). With `{agent}` in MEMORYD_DB_URL the name goes into the URL (Turso:
`libsql://{agent}-myorg.turso.io`; sqld: `http://{agent}.db.example.com:8080`, which sqld reads from the
Host header). A `*.localhost` host is reached on 127.0.0.1 with its name kept in the Host header
(RFC 6761: localhost names are loopback; glibc does not always resolve them). Without `{agent}` the URL is
the server's and every request names the namespace in sqld's `x-namespace-bin` header (base64, unpadded).
"""
from __future__ import annotations

import base64
import hashlib
import json
import re
import urllib.error
import urllib.request
from dataclasses import replace

from memoryd.tiers.base.config import Config, validate_agent_id
from memoryd.tiers.base.errors import ConfigError, RemoteError
from memoryd.tiers.cold.db_url import DbUrl, parse_db_url, redact_url

TEMPLATE = "{agent}"
NAMESPACE_HEADER = "x-namespace-bin"  # sqld's gRPC-style binary metadata key, also read over HTTP/WebSocket
_PLAIN = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
RESERVED = frozenset({"default"})  # sqld's default namespace: the single-database layout lives there
_SLUG_MAX = 40


def namespace_name(agent_id: str) -> str:
    """The agent's namespace (see the module docstring for the mapping and why it cannot collide)."""
    validate_agent_id(agent_id)
    if len(agent_id) <= 63 and _PLAIN.fullmatch(agent_id) and agent_id not in RESERVED:
        return agent_id
    slug = re.sub(r"[^a-z0-9]+", "-", agent_id.lower()).strip("-")[:_SLUG_MAX].strip("-") or "agent"
    digest = base64.b32encode(hashlib.sha256(agent_id.encode("utf-8")).digest()).decode("ascii").lower()[:16]
    return f"{slug}--{digest}"


def uses_namespaces(config: Config, url: str | None = None) -> bool:
    """Whether this server URL keeps each agent in its own namespace (a `{agent}` URL always does)."""
    raw = url or config.db_url
    if raw.startswith("file:"):
        return False
    return TEMPLATE in raw or config.sync.layout == "namespace"


def agent_url(url: str, token: str | None, agent_id: str, *, token_name: str = "MEMORYD_DB_TOKEN") -> DbUrl:
    """The URL, headers and display of one agent's namespace on the server named by `url`."""
    ns = namespace_name(agent_id)
    if TEMPLATE in url:
        parsed = parse_db_url(url.replace(TEMPLATE, ns), token)
        host, _, port = parsed.netloc.rpartition(":") if parsed.netloc.count(":") == 1 else (parsed.netloc, "", "")
        if host.endswith(".localhost"):
            loopback = f"127.0.0.1:{port}" if port else "127.0.0.1"
            return replace(parsed, netloc=loopback, headers=(("host", parsed.netloc),), namespace=ns,
                           token_name=token_name)
        return replace(parsed, namespace=ns, token_name=token_name)
    return named_url(url, token, ns, token_name=token_name)


def named_url(url: str, token: str | None, ns: str, *, token_name: str = "MEMORYD_DB_TOKEN") -> DbUrl:
    """The server at `url` with every request naming namespace `ns` in sqld's header (ignored by an sqld
    without --enable-namespaces: there every request is the default namespace's anyway)."""
    parsed = parse_db_url(url, token)
    # standard alphabet: sqld decodes it so; names of [a-z0-9-] never encode to '+' or '/' anyway
    value = base64.b64encode(ns.encode("utf-8")).decode("ascii").rstrip("=")
    return replace(parsed, headers=((NAMESPACE_HEADER, value),), namespace=ns,
                   display=f"{parsed.display} (namespace {ns})", token_name=token_name)


class NamespaceAdmin:
    """sqld's admin API (`--admin-listen-addr`, optional `--admin-auth-key`): one small JSON call each.
    Plain urllib: an operator's call, not a device's hot path, and nothing here needs aiohttp."""

    def __init__(self, url: str, key: str | None = None, *, timeout: float = 10.0) -> None:
        self.url = url.rstrip("/")
        self._key = key
        self.timeout = timeout
        self.display = redact_url(url)

    def _call(self, method: str, path: str, body: dict | None = None) -> tuple[int, str]:
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(f"{self.url}{path}", data=data, method=method)
        if data is not None:
            req.add_header("content-type", "application/json")
        if self._key:
            req.add_header("authorization", f"basic {self._key}")  # sqld compares the raw key, not user:pass
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                return resp.status, resp.read().decode("utf-8", "replace")
        except urllib.error.HTTPError as exc:
            text = exc.read().decode("utf-8", "replace")
            if exc.code == 401:
                raise ConfigError(f"sqld admin API {self.display} refused the key: check MEMORYD_NAMESPACE_ADMIN_KEY") from None
            return exc.code, text
        except OSError as exc:
            raise RemoteError(f"cannot reach the sqld admin API {self.display}: {getattr(exc, 'reason', exc)}") from None

    def create(self, namespace: str, *, jwt_keys: str | None = None) -> bool:
        """Create the namespace (its own token keys if given, else the server's); False if it existed."""
        status, text = self._call("POST", f"/v1/namespaces/{namespace}/create",
                                  {"jwt_key": jwt_keys} if jwt_keys else {})
        if status == 200:
            return True
        if status == 400 and "already exists" in text:
            return False
        raise RemoteError(f"sqld admin API {self.display} could not create namespace {namespace}: HTTP {status}",
                          transient=status >= 500)

    def exists(self, namespace: str) -> bool:
        status, _ = self._call("GET", f"/v1/namespaces/{namespace}/config")
        if status in (200, 404):
            return status == 200
        raise RemoteError(f"sqld admin API {self.display} answered HTTP {status} for namespace {namespace}")

    def set_jwt_keys(self, namespace: str, jwt_keys: str | None) -> None:
        """Replace the public keys that verify the namespace's tokens (PEMs, concatenated), live: a device
        whose key is left out is cut off at its next request, the others are untouched. None: the server's."""
        status, text = self._call("GET", f"/v1/namespaces/{namespace}/config")
        if status != 200:
            raise RemoteError(f"sqld admin API {self.display}: namespace {namespace} answered HTTP {status}")
        current = json.loads(text)
        body = {k: current.get(k) for k in ("block_reads", "block_writes", "block_reason", "allow_attach")}
        status, _ = self._call("POST", f"/v1/namespaces/{namespace}/config", {**body, "jwt_key": jwt_keys})
        if status != 200:
            raise RemoteError(f"sqld admin API {self.display} could not set the keys of {namespace}: HTTP {status}")


_ENSURED: set[tuple[str, str]] = set()  # (admin URL, namespace) created or found by this process


def ensure_namespace(config: Config, agent_id: str) -> str | None:
    """Create the agent's namespace through the admin API when one is configured (once per process);
    without it the operator creates namespaces. Returns the namespace name."""
    ns = namespace_name(agent_id)
    admin_url = config.sync.namespace_admin_url
    if admin_url and (admin_url, ns) not in _ENSURED:
        NamespaceAdmin(admin_url, config.namespace_admin_key, timeout=config.db.timeout).create(ns)
        _ENSURED.add((admin_url, ns))
    return ns
