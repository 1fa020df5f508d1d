"""A real browser for the web view's tests (tests/web/test_web_browser.py), provisioned like sqld and the MCP Inspector.

Where one is looked for, in order: MEMORYD_CHROMIUM; a system chromium (/usr/bin/chromium, or chromium on
PATH); the Chromium build Playwright keeps in its cache. When none is there it is installed the way the platform
allows, once: Debian's package as root (`apt-get install -y chromium`), Playwright's installer elsewhere. A failed
install is remembered for an hour in ~/.cache/memoryd-tests (MEMORYD_TEST_CACHE), so a machine that cannot have
a browser does not pay for the attempt at every run; the tests then fail with one line saying what to install.
.ci/run provisions it up front (`python tests/browser.py`).
"""
from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

SYSTEM_PATHS = ("/usr/bin/chromium",)
NAMES = ("chromium", "chromium-browser")
RETRY_SECONDS = 3600  # a failed install is not tried again within the hour
INSTALL_TIMEOUT = 900
WHAT_TO_INSTALL = ("no browser for the web view's tests: install chromium (as root on Debian: apt-get install -y "
                   "chromium; elsewhere: .venv/bin/python -m playwright install chromium) or set MEMORYD_CHROMIUM")


class NoBrowser(RuntimeError):
    """No browser could be found or installed; the message is one line."""


@dataclass
class Provision:
    """How to look for and install a browser (the defaults are this machine's; a test narrows them)."""
    system_paths: tuple[str, ...] = SYSTEM_PATHS
    path: str = field(default_factory=lambda: os.environ.get("PATH", ""))
    root: bool = field(default_factory=lambda: hasattr(os, "geteuid") and os.geteuid() == 0)
    env: dict[str, str] = field(default_factory=lambda: dict(os.environ))

    def memo(self) -> Path:
        base = self.env.get("MEMORYD_TEST_CACHE") or str(Path.home() / ".cache" / "memoryd-tests")
        return Path(base) / "browser-install.json"


def _executable(path: str | None) -> str | None:
    return path if path and os.path.isfile(path) and os.access(path, os.X_OK) else None


def system_browser(how: Provision) -> str | None:
    """A chromium already on this machine, or the one Playwright installed earlier."""
    explicit = _executable(how.env.get("MEMORYD_CHROMIUM"))
    if explicit:
        return explicit
    for candidate in how.system_paths:
        if _executable(candidate):
            return candidate
    for name in NAMES:
        found = shutil.which(name, path=how.path)
        if found:
            return found
    return _executable(playwright_chromium(how))


def playwright_chromium(how: Provision) -> str | None:
    """Where Playwright keeps (or would keep) its own Chromium build for the installed version."""
    code = ("from playwright.sync_api import sync_playwright\n"
            "with sync_playwright() as p: print(p.chromium.executable_path)")
    try:
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, env=how.env)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout.strip() or None if out.returncode == 0 else None


def install_command(how: Provision) -> list[str]:
    """Debian's package as root (apt-get); Playwright's own installer anywhere else."""
    if how.root and shutil.which("apt-get", path=how.path or None):
        return ["sh", "-c", "apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium"]
    return [sys.executable, "-m", "playwright", "install", "chromium"]


def _recent_failure(how: Provision) -> str | None:
    try:
        memo = json.loads(how.memo().read_text(encoding="utf-8"))
        return memo["error"] if time.time() - float(memo["at"]) < RETRY_SECONDS else None
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _remember_failure(how: Provision, error: str) -> None:
    memo = how.memo()
    memo.parent.mkdir(parents=True, exist_ok=True)
    tmp = memo.with_name(f"{memo.name}.tmp-{os.getpid()}")
    tmp.write_text(json.dumps({"at": time.time(), "error": error}), encoding="utf-8")
    os.replace(tmp, memo)


def _first_error(output: str) -> str:
    """The installer's own words for its failure: apt's `E:` line, Playwright's `Failed…`, else its last line."""
    lines = [line.strip() for line in output.splitlines() if line.strip()] or ["failed"]
    return next((line for line in lines if line.startswith(("E: ", "Failed", "Error: "))), lines[-1])


def install(how: Provision) -> None:
    """Run the platform's installer once; its failure is remembered (see RETRY_SECONDS)."""
    cmd = install_command(how)
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=INSTALL_TIMEOUT, env=how.env,
                             stdin=subprocess.DEVNULL)
        error = None if out.returncode == 0 else _first_error(out.stderr + "\n" + out.stdout)
    except (OSError, subprocess.TimeoutExpired) as exc:
        error = str(exc).splitlines()[0]
    if error:
        _remember_failure(how, f"{' '.join(cmd[-2:])}: {error[:200]}")


def chromium(how: Provision | None = None) -> str:
    """The browser's executable, installing it when the machine has none; NoBrowser (one line) otherwise."""
    how = how or Provision()
    found = system_browser(how)
    if found:
        return found
    how.memo().parent.mkdir(parents=True, exist_ok=True)
    with open(how.memo().with_suffix(".lock"), "w") as lock:  # pytest-xdist workers: one install at a time
        fcntl.flock(lock, fcntl.LOCK_EX)
        found = system_browser(how)  # another worker may have installed it while this one waited
        if found:
            return found
        failed = _recent_failure(how)
        if failed is None:
            install(how)
            found = system_browser(how)
            if found:
                how.memo().unlink(missing_ok=True)
                return found
            failed = _recent_failure(how) or "the installer ran but left no chromium"
    raise NoBrowser(f"{WHAT_TO_INSTALL} (tried: {failed})")


if __name__ == "__main__":
    try:
        print(chromium())
    except NoBrowser as exc:
        sys.exit(f"memoryd tests: {exc}")
