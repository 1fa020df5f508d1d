"""A URL with the wrong transport for its server fails with a one-line hint naming the URL to use."""
from __future__ import annotations

import datetime as dt
import socket
import ssl
import threading
from pathlib import Path

import pytest

from memoryd.sync.remote.db import connect
from memoryd.tiers.base.config import Config
from memoryd.tiers.base.errors import RemoteError


def _config(tmp_path: Path, url: str) -> Config:
    return Config(home=tmp_path / "home", db_url=url, sections={"db": {"timeout": 5, "connect_timeout": 3}})


@pytest.mark.parametrize("scheme", ["libsql", "https", "wss"])
def test_tls_url_against_a_plain_http_sqld_names_the_url_to_use(sqld, tmp_path: Path, scheme: str) -> None:
    port = sqld.http_url.rsplit(":", 1)[1]
    with pytest.raises(RemoteError) as err:
        connect(_config(tmp_path, f"{scheme}://127.0.0.1:{port}"))
    message = err.value.message
    assert f"use http://127.0.0.1:{port} or ws://127.0.0.1:{port}" in message and "\n" not in message


@pytest.fixture
def tls_server(tmp_path: Path):
    """A TLS listener on loopback (self-signed) that closes whatever it gets: a stand-in for a TLS host."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = dt.datetime.now(dt.timezone.utc)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(1).not_valid_before(now).not_valid_after(now + dt.timedelta(days=1)).sign(key, hashes.SHA256()))
    (tmp_path / "c.pem").write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    (tmp_path / "k.pem").write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                                       serialization.NoEncryption()))
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(tmp_path / "c.pem", tmp_path / "k.pem")
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(8)
    sock.settimeout(0.2)
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = sock.accept()
            except OSError:
                continue
            try:
                ctx.wrap_socket(conn, server_side=True).close()  # a plain-HTTP client fails the handshake
            except (ssl.SSLError, OSError):
                conn.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield sock.getsockname()[1]
    stop.set()
    thread.join(2)
    sock.close()


@pytest.mark.parametrize("scheme", ["http", "ws"])
def test_plain_url_against_a_tls_server_suggests_tls(tls_server: int, tmp_path: Path, scheme: str) -> None:
    with pytest.raises(RemoteError) as err:
        connect(_config(tmp_path, f"{scheme}://127.0.0.1:{tls_server}"))
    assert f"use https://127.0.0.1:{tls_server} or libsql://127.0.0.1:{tls_server}" in err.value.message


def test_init_and_local_work_offline_then_the_first_sync_creates_the_schema(tmp_path: Path) -> None:
    """A laptop on a train: init, store, retrieve and consolidate with the server unreachable; sync later."""
    import json
    import os
    import shutil
    import subprocess
    import sys

    from sqld_server import SqldServer, sqld_binary

    (tmp_path / "sqld").mkdir()
    server = SqldServer(sqld_binary(), tmp_path / "sqld")
    url = server.http_url  # not started yet: nothing listens
    exe = shutil.which("memoryd", path=str(Path(sys.executable).parent)) or "memoryd"
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMORYD_")}
    env.update(MEMORYD_HOME=str(tmp_path / "home"), MEMORYD_DB_URL=url)

    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([exe, *args], env=env, capture_output=True, text=True, timeout=60)

    for args in (["init"], ["store", "packed the charger for the train", "--category", "travel"],
                 ["consolidate", "--mode", "daily"], ["status"]):
        assert run(*args).returncode == 0, (args, run(*args).stderr)
    assert json.loads(run("retrieve", "charger", "--json").stdout)["results"]
    # archived memories made offline (an import of cold lines) wait in the local index for the first sync
    assert run("export", str(tmp_path / "x.jsonl")).returncode == 0
    lines = (tmp_path / "x.jsonl").read_text().splitlines()
    warm = json.loads(next(line for line in lines if json.loads(line).get("type") == "warm"))["entry"]
    cold = [json.dumps({"type": "cold", "entry": dict(warm, id=f"c01dc01dc01d000{i}", text=f"old trip {i}")})
            for i in range(3)]
    (tmp_path / "cold.jsonl").write_text("\n".join([lines[0], *cold]) + "\n")
    assert run("import", str(tmp_path / "cold.jsonl")).returncode == 0
    assert json.loads(run("status", "--json").stdout)["agents"][0]["cold"]["count"] == 3
    offline = run("sync")
    assert offline.returncode == 1 and "cannot reach" in offline.stderr  # queued, said in one line
    server.start()
    try:
        assert run("sync").returncode == 0
        names = {r[0] for r in connect(Config(home=tmp_path, db_url=url)).execute(
            "SELECT name FROM sqlite_master WHERE type = 'table'").rows}
        assert {"critical_state", "memory_log"} <= names
        uploaded = connect(Config(home=tmp_path, db_url=url)).execute(
            "SELECT (SELECT count(*) FROM critical_state), (SELECT count(*) FROM memory_log)").rows[0]
        assert tuple(uploaded) == (1, 3)  # the critical state and every cold memory made offline
    finally:
        server.stop()
