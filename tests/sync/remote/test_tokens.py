"""Tokens against sqld --auth-jwt-key-file: valid, expired, wrong key, read-only, none; over http and ws."""
from __future__ import annotations

import time
from pathlib import Path

import pytest

from memoryd.sync.remote.db import Database, connect
from memoryd.sync.remote.schema import ensure_schema
from memoryd.tiers.base.config import Config
from memoryd.tiers.base.errors import RemoteError

from sqld_server import SqldServer

AUTH_FAILED = "authentication failed for {url}: check MEMORYD_DB_TOKEN"


def url_of(server: SqldServer, kind: str) -> str:
    return {"http": server.http_url, "ws": server.ws_url,
            "libsql": f"libsql://127.0.0.1:{server.port}?tls=0"}[kind]


def shown(server: SqldServer, kind: str) -> str:
    return url_of(server, kind).split("?")[0]


def config(tmp_path: Path, url: str, token: str | None) -> Config:
    return Config(home=tmp_path / "home", db_url=url, db_token=token, sections={"db": {"timeout": 5}})


def open_archive(cfg: Config) -> Database:
    """The cloud database as a sync session meets it: connect, then migrate the schema (first round trip)."""
    db = connect(cfg, check=False)
    try:
        ensure_schema(db)
    except BaseException:
        db.close()
        raise
    return db


def put(db: Database, ref: str) -> None:
    db.execute("INSERT INTO memory_log (agent_id, ref, kind, version, digest, data, device_id, created_at) "
               "VALUES ('a', ?, 'put', 1, ?, 'sealed', 'dev', ?)", [ref, ref, int(time.time())])


def refs(db: Database) -> list[str]:
    return [r[0] for r in db.execute("SELECT ref FROM memory_log WHERE agent_id = 'a' ORDER BY seq").rows]


@pytest.fixture
def authed(sqld_auth: SqldServer) -> SqldServer:
    sqld_auth.start()
    sqld_auth.wipe(sqld_auth.token())  # type: ignore[attr-defined]
    return sqld_auth


@pytest.mark.parametrize("kind", ["http", "ws", "libsql"])
def test_valid_token_works(authed: SqldServer, tmp_path: Path, kind: str) -> None:
    arc = open_archive(config(tmp_path, url_of(authed, kind), authed.token()))  # type: ignore[attr-defined]
    try:
        put(arc, "x")
        assert refs(arc) == ["x"]
    finally:
        arc.close()


def test_token_without_expiry_and_token_in_url(authed: SqldServer, tmp_path: Path) -> None:
    token = authed.token(expires_in=None)  # type: ignore[attr-defined]
    open_archive(config(tmp_path, f"{authed.http_url}?authToken={token}", None)).close()


@pytest.mark.parametrize("kind", ["http", "ws", "libsql"])
@pytest.mark.parametrize("case", ["expired", "wrong_key", "none", "garbage"])
def test_bad_token_is_a_clear_one_line_error(authed: SqldServer, tmp_path: Path, kind: str, case: str) -> None:
    token = {
        "expired": lambda: authed.token(expires_in=-3600),  # type: ignore[attr-defined]
        "wrong_key": lambda: authed.token(wrong_key=True),  # type: ignore[attr-defined]
        "none": lambda: None,
        "garbage": lambda: "not-a-jwt",
    }[case]()
    with pytest.raises(RemoteError) as err:
        open_archive(config(tmp_path, url_of(authed, kind), token))
    assert err.value.message == AUTH_FAILED.format(url=shown(authed, kind))
    # a refused token is input the user must change (another token), not a failure to retry: exit 2
    assert not err.value.transient and err.value.exit_code == 2
    if token:
        assert token not in err.value.message and token not in repr(err.value)


@pytest.mark.parametrize("kind", ["http", "ws"])
def test_read_only_token_reads_but_refuses_writes(authed: SqldServer, tmp_path: Path, kind: str) -> None:
    rw = open_archive(config(tmp_path, url_of(authed, kind), authed.token()))  # type: ignore[attr-defined]
    put(rw, "r")
    rw.close()
    ro_token = authed.token(read_only=True)  # type: ignore[attr-defined]
    ro = open_archive(config(tmp_path, url_of(authed, kind), ro_token))  # schema is current: a read
    try:
        assert refs(ro) == ["r"]
        with pytest.raises(RemoteError) as err:
            put(ro, "w")
        assert err.value.message.startswith(f"token is read-only for {shown(authed, kind)}")
        assert ro_token not in err.value.message and not err.value.transient
        assert refs(ro) == ["r"]
    finally:
        ro.close()


def test_read_only_token_cannot_create_schema(authed: SqldServer, tmp_path: Path) -> None:
    with pytest.raises(RemoteError, match="token is read-only"):
        open_archive(config(tmp_path, authed.http_url, authed.token(read_only=True)))  # type: ignore[attr-defined]


def test_token_never_in_repr(authed: SqldServer, tmp_path: Path) -> None:
    token = authed.token()  # type: ignore[attr-defined]
    cfg = config(tmp_path, authed.ws_url, token)
    db = connect(cfg)
    try:
        assert token not in repr(db) and token not in repr(cfg)
        assert token not in repr(db.url)
    finally:
        db.close()
