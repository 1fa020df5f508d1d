"""Daemon parts on their own: watcher pieces, quiet timer, socket server/client, lifecycle (the scheduler: test_scheduler.py)."""
from __future__ import annotations

import json
import logging
import os
import socket
import tempfile
import threading
import time
from pathlib import Path

import pytest

from memoryd.daemon import client, lifecycle, server, watcher
from memoryd.tiers.base.config import load_config
from memoryd.tiers.base.errors import ConfigError, IPCError, MemorydError, StoreError, UsageError
from waiting import eventually


# -- watcher pieces ----------------------------------------------------------------------
def test_classify_paths(config, tmp_path, monkeypatch):
    monkeypatch.delenv("MEMORYD_WORKSPACE")
    state = tmp_path / "openclaw"
    (state / "workspace" / "memory").mkdir(parents=True)
    (state / "agents" / "bot-1" / "agent").mkdir(parents=True)
    s = watcher.WatchSettings.from_config(load_config({**os.environ, "OPENCLAW_STATE_DIR": str(state)}))
    monkeypatch.setenv("OPENCLAW_STATE_DIR", str(state))
    layout = watcher.Layout.of(s)
    notes = state / "workspace" / "memory"
    assert watcher.classify(notes / "2026-03-10.md", layout) == ("note", "main")
    assert watcher.classify(notes / "2026-03-10-1530.md", layout) == ("note", "main")
    assert watcher.classify(notes / "2026-03-10-vendor-pitch.md", layout) == ("note", "main")
    assert watcher.classify(notes / "notes.md", layout) is None
    agent_dir = state / "agents" / "bot-1"
    assert watcher.classify(agent_dir / "agent" / "openclaw-agent.sqlite-wal", layout) == ("store", "bot-1")
    assert watcher.classify(agent_dir / "agent" / "openclaw-agent.sqlite.generation-lock.sqlite", layout) is None
    t = agent_dir / "sessions" / "abc.jsonl"
    assert watcher.classify(t, layout) == ("transcript", "bot-1")
    assert watcher.classify(t.with_name("abc.jsonl.reset.2026-03-10T10-00-00Z"), layout) == ("transcript", "bot-1")
    assert watcher.classify(agent_dir / "x.jsonl", layout) is None
    assert watcher.classify(state / "agents" / ".." / "sessions" / "a.jsonl", layout) is None
    assert set(layout.roots()) == {state / "agents", notes, state / "workspace-bot-1" / "memory"}


def test_watch_settings_from_config_toml(home, config):
    (home).mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text('[watch]\nsessions_dir = "/x/agents"\nquiet_seconds = 7\nnotes_agent = "bot"\n')
    s = watcher.WatchSettings.from_config(load_config(dict(os.environ)))
    assert (s.sessions_dir, s.quiet_seconds, s.notes_agent) == (Path("/x/agents"), 7.0, "bot")
    (home / "config.toml").write_text('[watch]\nquiet_seconds = 0\n')
    with pytest.raises(ConfigError):
        watcher.WatchSettings.from_config(load_config(dict(os.environ)))


def test_quiet_timer_fires_once_after_quiet():
    """On a hand-driven monotonic clock: a touch moves the deadline, each key fires once, in deadline order.
    A key touched with delay 0 is the later event that proves what did not fire before it."""
    now = [100.0]
    fired: list[str] = []
    timer = watcher.QuietTimer(0.3, fired.append, monotonic=lambda: now[0])
    timer.start()
    try:
        timer.touch("a")  # due at 100.3
        now[0] = 100.2
        timer.touch("a")  # still talking: due at 100.5
        timer.touch("b", delay=0.05)  # due at 100.25
        now[0] = 100.4  # past a's first deadline, before its second
        timer.touch("c", delay=0)  # due now: fires after anything due before it
        eventually(lambda: fired == ["b", "c"], timeout=5)
        now[0] = 100.5
        timer.touch("d", delay=0.01)  # due at 100.51, after a's one live deadline
        now[0] = 100.6
        timer.touch("e", delay=0)  # the last event: everything due before it has fired by then
        eventually(lambda: "e" in fired, timeout=5)
    finally:
        timer.stop()
    assert fired == ["b", "c", "a", "d", "e"]  # a once, at its moved deadline; its stale entry never fires
    assert timer.pending() == 0


# -- socket server and client -----------------------------------------------------------------
@pytest.fixture
def sock_path():
    d = Path(tempfile.mkdtemp(prefix="mdu-", dir="/tmp"))
    yield d / "s.sock"
    for p in d.iterdir():
        p.unlink()
    d.rmdir()


def _handler(op, params):
    if op == "echo":
        return params
    if op == "usage":
        raise UsageError("bad thing\nsecond line")
    if op == "store":
        raise StoreError("disk gone", transient=True)
    raise RuntimeError("boom")


def test_server_roundtrip_errors_and_cleanup(sock_path, home):
    srv = server.SocketServer(sock_path, _handler)
    srv.start()
    cfg = load_config({"MEMORYD_HOME": str(home), "MEMORYD_SOCKET": str(sock_path)})
    try:
        assert (sock_path.stat().st_mode & 0o777) == 0o600
        assert client.try_daemon(cfg, "echo", {"x": "日本"}) == {"x": "日本"}
        with pytest.raises(UsageError) as err:
            client.try_daemon(cfg, "usage", {})
        assert err.value.exit_code == 2 and err.value.message == "bad thing second line"
        with pytest.raises(StoreError) as err2:
            client.try_daemon(cfg, "store", {})
        assert err2.value.transient and err2.value.exit_code == 1
        with pytest.raises(MemorydError, match="internal error: RuntimeError: boom"):
            client.try_daemon(cfg, "other", {})
        # raw protocol: several lines on one connection, bad JSON answered with exit 2
        with socket.socket(socket.AF_UNIX) as s:
            s.connect(str(sock_path))
            s.sendall(b'{"op":"echo","params":{"n":1}}\nnot json\n{"op":"echo"}\n')
            s.shutdown(socket.SHUT_WR)  # the server answers all three, then sees EOF
            lines = s.makefile("rb").read().split(b"\n")
        replies = [json.loads(x) for x in lines if x]
        assert replies[0] == {"ok": True, "result": {"n": 1}}
        assert replies[1]["ok"] is False and replies[1]["error"]["exit_code"] == 2
        assert replies[2] == {"ok": True, "result": {}}
    finally:
        srv.stop()
    assert not sock_path.exists()
    assert client.try_daemon(cfg, "echo", {}) is None  # nobody listening → in-process


def test_client_none_for_stale_socket_and_ipcerror_for_broken_exchange(sock_path, home):
    cfg = load_config({"MEMORYD_HOME": str(home), "MEMORYD_SOCKET": str(sock_path)})
    stale = socket.socket(socket.AF_UNIX)
    stale.bind(str(sock_path))
    stale.close()  # a socket file left by a killed daemon
    assert client.try_daemon(cfg, "ping") is None
    sock_path.unlink()
    # a listener that reads the request, then hangs up without answering
    lst = socket.socket(socket.AF_UNIX)
    lst.bind(str(sock_path))
    lst.listen(1)

    def hang_up() -> None:
        conn = lst.accept()[0]
        conn.recv(65536)
        conn.close()

    t = threading.Thread(target=hang_up)
    t.start()
    with pytest.raises(IPCError):
        client.try_daemon(cfg, "ping", timeout=2)
    t.join()
    # a listener that never answers → timeout
    with pytest.raises(IPCError, match="did not answer"):
        client.try_daemon(cfg, "ping", timeout=0.3)
    lst.close()


def test_server_refuses_non_socket_and_long_paths(sock_path, home):
    sock_path.write_text("not a socket")
    with pytest.raises(IPCError, match="not a socket"):
        server.SocketServer(sock_path, _handler).start()
    sock_path.unlink()
    with pytest.raises(IPCError, match="too long"):
        server.SocketServer(sock_path.parent / ("x" * 120 + ".sock"), _handler).start()


# -- lifecycle ------------------------------------------------------------------------
def test_instance_lock_refuses_second_and_cleans_pid(tmp_path):
    first = lifecycle.InstanceLock(tmp_path)
    first.acquire()
    assert lifecycle.read_pid(tmp_path) == os.getpid()
    with pytest.raises(lifecycle.AlreadyRunning, match=f"already running \\(pid {os.getpid()}\\)"):
        lifecycle.InstanceLock(tmp_path).acquire()
    first.release()
    assert lifecycle.read_pid(tmp_path) is None
    again = lifecycle.InstanceLock(tmp_path)
    again.acquire()
    again.release()


@pytest.mark.parametrize("abstract", [False, True])
def test_sd_notify_reaches_notify_socket(tmp_path, monkeypatch, abstract):
    recv = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    if abstract:
        name = f"memoryd-test-{os.getpid()}-{time.monotonic_ns()}"
        recv.bind("\0" + name)
        monkeypatch.setenv("NOTIFY_SOCKET", "@" + name)
    else:
        recv.bind(str(tmp_path / "n.sock"))
        monkeypatch.setenv("NOTIFY_SOCKET", str(tmp_path / "n.sock"))
    recv.settimeout(2)
    with recv:
        assert lifecycle.sd_notify("READY=1")
        assert recv.recv(100) == b"READY=1"
    monkeypatch.delenv("NOTIFY_SOCKET")
    assert lifecycle.sd_notify("READY=1") is False


def test_watchdog_interval(monkeypatch):
    monkeypatch.delenv("WATCHDOG_USEC", raising=False)
    assert lifecycle.watchdog_interval() is None
    monkeypatch.setenv("WATCHDOG_USEC", "120000000")
    monkeypatch.setenv("WATCHDOG_PID", str(os.getpid()))
    assert lifecycle.watchdog_interval() == 60.0
    monkeypatch.setenv("WATCHDOG_PID", "1")  # meant for another process
    assert lifecycle.watchdog_interval() is None


def test_log_lines_are_one_line_and_journald_prefixed():
    rec = logging.LogRecord("memoryd.daemon", logging.WARNING, __file__, 1, "two\nlines", None, None)
    assert lifecycle._JournalFormatter(journald=True).format(rec) == "<4>two lines"
    plain = lifecycle._JournalFormatter(journald=False).format(rec)
    assert plain.endswith("WARNING two lines") and "\n" not in plain


def test_signals_wake_the_sleeping_main_loop_without_locks():
    """A signal during sleep() wakes it at once; handlers only set flags (no Event lock to deadlock on)."""
    import os
    import signal as sig

    from memoryd.daemon.lifecycle import Signals

    before = sig.getsignal(sig.SIGTERM)
    s = Signals()
    s.install()
    try:
        threading.Timer(0.1, lambda: os.kill(os.getpid(), sig.SIGHUP)).start()
        t0 = time.monotonic()
        s.sleep(30)
        assert s.reload and not s.stopping and time.monotonic() - t0 < 5
        s.reload = False
        os.kill(os.getpid(), sig.SIGTERM)
        s.sleep(30)
        assert s.stopping
    finally:
        s.restore()
    assert sig.getsignal(sig.SIGTERM) == before
