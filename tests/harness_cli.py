"""Claude Code and Codex from npm: the real CLIs, installed once into a test cache (tests/fixtures/harnesses).

Both ship their native binaries as npm optional dependencies, so nothing is fetched at run time; the
system Node (>= 20) runs Codex's launcher. .ci/run installs them up front; a developer's first test
run installs them here (about a minute, ~800 MB).
"""
from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
from pathlib import Path

from mcp_inspector import _npm  # npm itself, from Debian's package as root when missing (one line otherwise)

CLAUDE_VERSION, CODEX_VERSION = "2.1.332", "0.171.0"
PACKAGES = (f"@anthropic-ai/claude-code@{CLAUDE_VERSION}", f"@openai/codex@{CODEX_VERSION}")


def cache_dir() -> Path:
    root = os.environ.get("MEMORYD_TEST_CACHE") or str(Path.home() / ".cache" / "memoryd-tests")
    return Path(root) / f"harnesses-claude-{CLAUDE_VERSION}-codex-{CODEX_VERSION}"


def _paths(root: Path) -> tuple[Path, Path]:
    # Claude Code's bin/claude.exe is a placeholder its postinstall replaces; the native binary of the
    # platform package is the same program, run directly (no install scripts needed).
    modules = root / "node_modules"
    return modules / "@anthropic-ai" / "claude-code-linux-x64" / "claude", modules / ".bin" / "codex"


def harness_bins() -> tuple[Path, Path]:
    """(the claude script, the codex script), installing both when missing; one install at a time (pytest-xdist
    workers ask at once), the others waiting on the lock and then finding it there."""
    root = cache_dir()
    claude, codex = _paths(root)
    if claude.exists() and codex.exists():
        return claude, codex
    root.parent.mkdir(parents=True, exist_ok=True)
    with open(root.with_name(f"{root.name}.lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if claude.exists() and codex.exists():
            return claude, codex
        return _install(root)


def _install(root: Path) -> tuple[Path, Path]:
    npm = _npm()
    staging = root.with_name(f"{root.name}.tmp-{os.getpid()}")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    done = subprocess.run([npm, "install", "--no-audit", "--no-fund", "--ignore-scripts", "--no-save",
                           "--loglevel=error", "--prefix", str(staging), *PACKAGES],
                          timeout=1800, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if done.returncode != 0:
        said = [line for line in done.stderr.splitlines() if line.strip()] or ["failed"]
        raise RuntimeError(f"npm install {' '.join(PACKAGES)} failed: {said[0][:200]}")
    shutil.rmtree(root, ignore_errors=True)
    staging.rename(root)  # all or nothing: a killed install leaves only a .tmp dir behind
    return _paths(root)


if __name__ == "__main__":
    for path in harness_bins():
        print(path)
