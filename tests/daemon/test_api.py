"""daemon/api.py: one table of operations, typed errors for unknown ones, and the transport picked in one place."""
from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from memoryd.daemon import api, client, server
from memoryd.daemon.errors import UnknownOperationError
from memoryd.daemon.transport import DaemonTransport, InProcessTransport
from memoryd.tiers.base.config import load_config
from memoryd.tiers.base.errors import UsageError


@pytest.fixture
def sock_path():
    d = Path(tempfile.mkdtemp(prefix="mda-", dir="/tmp"))
    yield d / "s.sock"
    for p in d.iterdir():
        p.unlink()
    d.rmdir()


def test_unknown_operations_are_a_typed_usage_error(config) -> None:
    local = api.in_process(config)
    for name in ("nope", "", "__class__"):
        with pytest.raises(UnknownOperationError) as err:
            local.call(name, {})
        assert isinstance(err.value, UsageError) and err.value.exit_code == 2
        assert err.value.message == f"unknown operation {name!r}"
    with pytest.raises(UnknownOperationError):
        local.serve("tree_add", {"path": "a"})  # the caller's own work: never served on the socket
    assert local.call("ping", {}) == {"pong": True}


def test_the_table_names_every_operation_once() -> None:
    assert all(name == op.name for name, op in api.OPERATIONS.items())
    served = {name for name, op in api.OPERATIONS.items() if op.served}
    assert served == {"ping", "init", "store", "retrieve", "consolidate", "forget", "status", "sync", "ingest_daily",
                      "ingest_transcript", "openclaw_sync", "openclaw_status", "flush", "hot_change", "hot_show",
                      "tree_show", "embed",
                      "harness_take", "harness_sync", "harness_status", "harness_context"}  # issue 31: the hooks' ops


def test_the_client_reraises_an_unknown_operation_by_its_class(sock_path, home) -> None:
    def older_daemon(op: str, params: dict) -> object:
        raise UnknownOperationError.named(op)

    srv = server.SocketServer(sock_path, older_daemon)
    srv.start()
    try:
        cfg = load_config({"MEMORYD_HOME": str(home), "MEMORYD_SOCKET": str(sock_path)})
        with pytest.raises(UnknownOperationError) as err:
            client.try_daemon(cfg, "flush", {})
        assert err.value.exit_code == 2
    finally:
        srv.stop()


def test_an_older_daemon_falls_back_to_this_process(sock_path, home) -> None:
    asked: list[str] = []

    def older_daemon(op: str, params: dict) -> object:
        asked.append(op)
        if op == "hot_show":
            raise UnknownOperationError.named(op)
        return {"from": "daemon"}

    srv = server.SocketServer(sock_path, older_daemon)
    srv.start()
    try:
        cfg = load_config({"MEMORYD_HOME": str(home), "MEMORYD_SOCKET": str(sock_path)})
        remote = api.connect(cfg)
        assert isinstance(remote.transport, DaemonTransport)
        assert remote.status() == {"from": "daemon"}
        shown = remote.hot_show(agent_id="default")  # the daemon does not know it: run here
        assert shown["agent_id"] == "default" and "markdown" in shown
        assert remote.urls(agent_id="default") == {"urls": []}  # never asked of the daemon
        assert asked == ["status", "hot_show"]
        remote.close()
    finally:
        srv.stop()
    assert isinstance(api.connect(cfg).transport, InProcessTransport)  # no socket file: in this process
    assert api.connect(cfg, follow=True).hot_show(agent_id="default")["agent_id"] == "default"  # nobody listens
