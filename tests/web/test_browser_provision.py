"""tests/browser.py: the browser tests find a system chromium, else install one the platform's way once, else
fail with one line saying what to install (the real Playwright installer, its download host unreachable)."""
from __future__ import annotations

import json
import os
import socket
from pathlib import Path

import pytest

from browser import WHAT_TO_INSTALL, NoBrowser, Provision, chromium, install_command


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]  # closed once the socket is: a connection is refused at once


def _without_browser(tmp_path: Path, root: bool = False) -> Provision:
    """A machine with no chromium: nothing on PATH or at the system path, Playwright's cache empty and its
    download host refusing connections (this workplace cannot reach it anyway)."""
    (tmp_path / "bin").mkdir(exist_ok=True)
    env = {k: v for k, v in os.environ.items() if k != "MEMORYD_CHROMIUM"}
    env.update(PLAYWRIGHT_BROWSERS_PATH=str(tmp_path / "pw"), MEMORYD_TEST_CACHE=str(tmp_path / "cache"),
               PLAYWRIGHT_DOWNLOAD_HOST=f"http://127.0.0.1:{_closed_port()}")
    return Provision(system_paths=(), path=str(tmp_path / "bin"), root=root, env=env)


def test_no_browser_anywhere_fails_with_one_line_and_tries_the_install_once(tmp_path: Path) -> None:
    how = _without_browser(tmp_path)
    assert install_command(how)[-3:] == ["playwright", "install", "chromium"]  # not root: Playwright's installer
    with pytest.raises(NoBrowser) as first:
        chromium(how)
    message = str(first.value)
    assert "\n" not in message and message.startswith(WHAT_TO_INSTALL), message
    assert "apt-get install -y chromium" in message and "playwright install chromium" in message
    assert "(tried: install chromium: Error: connect ECONNREFUSED" in message, message  # the installer's words
    memo = json.loads(how.memo().read_text())
    with pytest.raises(NoBrowser) as second:  # remembered: the installer is not run again within the hour
        chromium(how)
    assert str(second.value) == message and json.loads(how.memo().read_text()) == memo  # same failure, same time


def test_a_browser_on_path_or_named_is_used_as_it_is(tmp_path: Path) -> None:
    how = _without_browser(tmp_path)
    fake_home = tmp_path / "bin" / "chromium"  # found by name on PATH: never started here
    fake_home.write_text("#!/bin/sh\n")
    fake_home.chmod(0o755)
    assert chromium(how) == str(fake_home)
    how.env["MEMORYD_CHROMIUM"] = "/bin/sh"
    assert chromium(how) == "/bin/sh"
    assert not how.memo().exists()  # nothing installed, nothing remembered


def test_as_root_with_apt_the_debian_package_is_installed(tmp_path: Path) -> None:
    how = _without_browser(tmp_path, root=True)
    how.path = os.pathsep.join(d for d in ("/usr/bin", "/bin", "/usr/sbin", "/sbin") if os.path.isdir(d))
    if not any(os.path.exists(os.path.join(d, "apt-get")) for d in how.path.split(os.pathsep)):
        assert install_command(how)[-3:] == ["playwright", "install", "chromium"]  # no apt: Playwright's way
    else:
        assert install_command(how)[-1].endswith("apt-get install -y -q chromium")
