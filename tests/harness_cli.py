"""Claude Code and Codex from npm: the real CLIs, installed once into a test cache (tests/fixtures/harnesses).

Both ship their native binaries as npm optional dependencies, so nothing is fetched at run time; the
system Node (>= 20) runs Codex's launcher. .ci/run installs them up front; a developer's first test
run installs them here (about a minute, ~800 MB).
"""
from __future__ import annotations

import os
from pathlib import Path

from npm_cache import cached_install

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
    """(the claude script, the codex script), installing both when missing (tests/npm_cache.py)."""
    root = cache_dir()
    claude, codex = _paths(root)
    cached_install(root, PACKAGES, lambda: claude.exists() and codex.exists(), "Claude Code and Codex for the "
                   "harness tests")
    return claude, codex


if __name__ == "__main__":
    for path in harness_bins():
        print(path)
