"""Helpers shared by test modules in different folders: the console script on a pseudo-terminal, a home's snapshot."""
from __future__ import annotations

import os
import pty
import shutil
import subprocess
import sys
from pathlib import Path

MEMORYD = shutil.which("memoryd", path=str(Path(sys.executable).parent)) or "memoryd"


def snapshot(root: Path) -> dict[str, tuple[int, bytes]]:
    """Every file and dir under root with its mode and bytes."""
    if not root.exists():
        return {}
    out = {}
    for p in sorted(root.rglob("*")):
        st = p.lstat()
        out[str(p.relative_to(root))] = (st.st_mode, b"" if p.is_dir() else p.read_bytes())
    return out


def run_on_terminal(*args: str, env: dict[str, str]) -> tuple[int, str]:
    """The console script with stdout and stderr on a pseudo-terminal, as a person runs it."""
    leader, follower = pty.openpty()
    proc = subprocess.Popen([MEMORYD, *args], stdout=follower, stderr=follower, stdin=subprocess.DEVNULL,
                            env={**os.environ, **env})
    os.close(follower)
    out = b""
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # EIO: the child closed its end
            break
        if not chunk:
            break
        out += chunk
    os.close(leader)
    return proc.wait(timeout=120), out.decode("utf-8", "replace")
