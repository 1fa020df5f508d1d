"""sync.db: URL parsing and redaction, file permissions, atomic batches, timeouts, outages."""
from __future__ import annotations

import socket
import stat
import threading
from pathlib import Path

import pytest

from memoryd.sync.remote.db import connect
from memoryd.tiers.cold.db_url import parse_db_url, redact_url
from memoryd.tiers.base.config import Config
from memoryd.tiers.base.errors import ArchiveError, ConfigError, RemoteError

from sqld_server import SqldServer

SECRET = "s3cr3t-T0KEN-value"


def cfg(tmp_path: Path, url: str, token: str | None = None, **db: float) -> Config:
    return Config(home=tmp_path / "home", db_url=url, db_token=token, sections={"db": dict(db)} if db else {})


@pytest.mark.parametrize("url, scheme, client", [
    ("libsql://my-db.turso.io", "wss", "wss://my-db.turso.io"),
    ("libsql://127.0.0.1:8080?tls=0", "ws", "ws://127.0.0.1:8080"),
    ("https://db.example.com/", "https", "https://db.example.com/"),
    ("http://127.0.0.1:8080", "http", "http://127.0.0.1:8080"),
    ("ws://localhost:9", "ws", "ws://localhost:9"),
    ("wss://h.example:443", "wss", "wss://h.example:443"),
    ("file:/tmp/x/cold.db", "file", "file:/tmp/x/cold.db"),
    ("file:///tmp/x/cold.db", "file", "file:/tmp/x/cold.db"),
])
def test_parse_accepts_every_scheme(url: str, scheme: str, client: str) -> None:
    parsed = parse_db_url(url)
    assert parsed.scheme == scheme
    assert parsed.client_url == client


@pytest.mark.parametrize("url", ["", "ftp://x", "postgres://h/db", "http://", "file:", "file://evil.host/x",
                                 "http://u:p@h:1", "http://h:99999", "http://h?foo=1", "file:/x?mode=ro"])
def test_parse_refuses_bad_urls(url: str) -> None:
    with pytest.raises(ConfigError):
        parse_db_url(url)


def test_token_from_query_is_used_but_never_shown() -> None:
    parsed = parse_db_url(f"libsql://db.turso.io?authToken={SECRET}")
    assert parsed.token == SECRET
    assert SECRET not in parsed.display and SECRET not in repr(parsed) and SECRET not in parsed.client_url
    assert parse_db_url(f"https://h?authToken={SECRET}", token="env-wins").token == "env-wins"


@pytest.mark.parametrize("url, shown", [
    (f"https://user:{SECRET}@h.example:8443/p?authToken={SECRET}#frag", "https://h.example:8443/p"),
    (f"libsql://db.turso.io?authToken={SECRET}", "libsql://db.turso.io"),
    ("file:/a/b.db", "file:/a/b.db"),
])
def test_redact_url(url: str, shown: str) -> None:
    assert redact_url(url) == shown


def test_file_db_created_private_and_batch_is_atomic(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "dir" / "cold.db"
    db = connect(cfg(tmp_path, f"file:{path}"))
    try:
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
        db.execute("CREATE TABLE t (a INTEGER PRIMARY KEY)")
        with pytest.raises(ArchiveError):
            db.batch([("INSERT INTO t VALUES (?)", [1]), ("INSERT INTO t VALUES (?)", [1])])
        assert db.execute("SELECT COUNT(*) FROM t").scalar() == 0
        db.batch([("INSERT INTO t VALUES (?)", [1]), ("INSERT INTO t VALUES (:a)", {"a": 2})])
        assert db.execute("SELECT a FROM t WHERE a >= :low ORDER BY a", {"low": 1}).rows == [(1,), (2,)]
        # The WAL and shared-memory files hold memories too: same private mode.
        assert {stat.S_IMODE(p.stat().st_mode) for p in path.parent.iterdir()} == {0o600}
    finally:
        db.close()
    with pytest.raises(ArchiveError, match="closed"):
        db.execute("SELECT 1")


def test_file_not_a_database(tmp_path: Path) -> None:
    path = tmp_path / "junk.db"
    path.write_bytes(b"this is not sqlite at all" * 100)
    with pytest.raises(ArchiveError, match="not a usable database"):
        db = connect(cfg(tmp_path, f"file:{path}"))
        db.execute("SELECT * FROM sqlite_master")


def test_file_db_shared_between_threads(tmp_path: Path) -> None:
    db = connect(cfg(tmp_path, f"file:{tmp_path / 'c.db'}"))
    db.execute("CREATE TABLE t (a INTEGER)")
    errors: list[BaseException] = []

    def work(k: int) -> None:
        try:
            for i in range(50):
                db.batch([("INSERT INTO t VALUES (?)", [k * 1000 + i])])
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert db.execute("SELECT COUNT(*) FROM t").scalar() == 200
    db.close()


@pytest.mark.parametrize("kind", ["http", "ws"])
def test_remote_batch_is_atomic(sqld: SqldServer, tmp_path: Path, kind: str) -> None:
    sqld.start()
    sqld.wipe()
    db = connect(cfg(tmp_path, sqld.http_url if kind == "http" else sqld.ws_url))
    try:
        db.execute("CREATE TABLE t (a INTEGER PRIMARY KEY)")
        with pytest.raises(ArchiveError) as err:
            db.batch([("INSERT INTO t VALUES (?)", [1]), ("INSERT INTO t VALUES (?)", [1])])
        assert "127.0.0.1" in str(err.value)
        assert db.execute("SELECT COUNT(*) FROM t").scalar() == 0
        db.batch([("INSERT INTO t VALUES (:a)", {"a": 5})])
        assert db.execute("SELECT a FROM t WHERE a = :a", {":a": 5}).rows == [(5,)]
        assert "Database(" in repr(db)
    finally:
        db.close()


@pytest.mark.parametrize("scheme", ["http", "ws"])
def test_unreachable_server_is_transient_remote_error(tmp_path: Path, scheme: str) -> None:
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(RemoteError) as err:
        connect(cfg(tmp_path, f"{scheme}://127.0.0.1:{port}", token=SECRET, connect_timeout=2))
    assert err.value.transient
    assert f"{scheme}://127.0.0.1:{port}" in err.value.message
    assert SECRET not in err.value.message and "\n" not in err.value.message


@pytest.mark.parametrize("scheme", ["http", "ws"])
def test_silent_server_times_out(tmp_path: Path, scheme: str) -> None:
    # A real socket that accepts connections and never answers.
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    port = listener.getsockname()[1]
    try:
        with pytest.raises(RemoteError, match="timed out") as err:
            connect(cfg(tmp_path, f"{scheme}://127.0.0.1:{port}", timeout=0.5, connect_timeout=0.5))
        assert err.value.transient
    finally:
        listener.close()


@pytest.mark.parametrize("kind", ["http", "ws"])
def test_server_down_then_back(killable_sqld: SqldServer, tmp_path: Path, kind: str) -> None:
    killable_sqld.start()
    db = connect(cfg(tmp_path, killable_sqld.http_url if kind == "http" else killable_sqld.ws_url, timeout=3, connect_timeout=2))
    try:
        db.execute("CREATE TABLE IF NOT EXISTS t (a INTEGER)")
        killable_sqld.kill()
        with pytest.raises(RemoteError) as err:
            db.execute("INSERT INTO t VALUES (1)")
        assert err.value.transient
        killable_sqld.start()
        db.execute("INSERT INTO t VALUES (2)")  # the same handle reconnects
        assert db.execute("SELECT COUNT(*) FROM t WHERE a = 2").scalar() >= 1
    finally:
        db.close()
        killable_sqld.start()
