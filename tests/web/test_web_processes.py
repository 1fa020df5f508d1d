"""`memoryd web` as a real process, and the real daemon serving the view with `[web] enabled = true`."""
from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Iterator

import pytest

from clock import wait_for
from webhelp import Session, seed

MEMORYD = str(Path(sys.executable).parent / "memoryd")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def env(home: Path, kw_config) -> Iterator[dict[str, str]]:
    sock_dir = Path(tempfile.mkdtemp(prefix="mdw-", dir="/tmp"))  # sun_path is short; tmp_path is not
    e = dict(os.environ)
    e.update({"MEMORYD_SOCKET": str(sock_dir / "d.sock"), "PYTHONUNBUFFERED": "1"})
    e.pop("NOTIFY_SOCKET", None)
    seed(kw_config, cold=10)
    yield e
    shutil.rmtree(sock_dir, ignore_errors=True)


def _ctrl_c_as_on_a_terminal() -> None:
    """A job started in the background (nohup … &) inherits SIGINT ignored, and Python keeps it so."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _first_line(proc: subprocess.Popen) -> str:
    line = proc.stdout.readline().strip()
    assert line.startswith("http://127.0.0.1:"), line
    return line


def test_memoryd_web_prints_the_url_once_and_serves_until_interrupted(env) -> None:
    proc = subprocess.Popen([MEMORYD, "web", "--port", "0"], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, preexec_fn=_ctrl_c_as_on_a_terminal)
    try:
        url = _first_line(proc)
        s = Session(url)
        s.login()
        assert s.get("/warm")[0] == 200
    finally:
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=10)
    assert proc.returncode == 0
    assert s.token not in out + err  # printed once: the first line only
    assert "Ctrl-C" in err and "read-only" in err


def test_memoryd_web_refuses_a_busy_port(env) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        done = subprocess.run([MEMORYD, "web", "--port", str(busy.getsockname()[1])], env=env,
                              capture_output=True, text=True, timeout=30)
    assert done.returncode == 1 and "cannot listen on 127.0.0.1" in done.stderr and not done.stdout


def test_the_daemon_serves_the_view_when_enabled(env, home: Path) -> None:
    port = free_port()
    (home / "config.toml").write_text(f"[web]\nenabled = true\nport = {port}\nallow_edits = true\n")
    daemon = subprocess.Popen([MEMORYD, "daemon"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                              text=True)
    try:
        state = home / "web.json"
        wait_for(lambda: state.exists() or daemon.poll() is not None, timeout=20)
        assert daemon.poll() is None
        assert state.stat().st_mode & 0o777 == 0o600
        printed = subprocess.run([MEMORYD, "web"], env=env, capture_output=True, text=True, timeout=30)
        assert printed.returncode == 0 and "the daemon serves" in printed.stderr
        url = printed.stdout.strip()
        assert url.startswith(f"http://127.0.0.1:{port}/?token=")
        s = Session(url)
        s.login()
        status, _, body = s.get("/hot")
        assert status == 200 and 'value="lesson"' in body  # allow_edits from the daemon's config
        time.sleep(0.2)
    finally:
        daemon.send_signal(signal.SIGTERM)
        _, err = daemon.communicate(timeout=15)
    assert daemon.returncode == 0
    assert not (home / "web.json").exists()
    assert s.token not in err and "web view on 127.0.0.1" in err


def test_memoryd_web_stops_cleanly_on_sigterm(env) -> None:
    proc = subprocess.Popen([MEMORYD, "web", "--port", "0"], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    url = _first_line(proc)
    assert Session(url).get("/")[0] == 403  # serving (and refusing a request without the token)
    proc.send_signal(signal.SIGTERM)
    try:
        proc.communicate(timeout=10)
    except subprocess.TimeoutExpired:  # say where it waits (faulthandler on SIGUSR1), then fail
        proc.send_signal(signal.SIGUSR1)
        time.sleep(1)
        proc.kill()
        _, err = proc.communicate()
        raise AssertionError(f"memoryd web did not stop on SIGTERM; its threads:\n{err}") from None
    assert proc.returncode == 0
