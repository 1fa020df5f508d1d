"""npm packages the tests need (the MCP Inspector, Claude Code, Codex), installed once into a test cache folder.

One install at a time (pytest-xdist workers ask at once: the others wait on the lock and find it there), all or
nothing (a killed install leaves only a .tmp dir behind), npm itself from Debian's package when missing and the
tests run as root; a failure is one line.
"""
from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
from pathlib import Path
from typing import Callable


class NpmMissing(RuntimeError):
    """npm, or an install with it, could not be had; the message is one line."""


def npm(needed_for: str) -> str:
    """npm, from Debian's package when missing and the tests run as root."""
    found = shutil.which("npm")
    if found is None and hasattr(os, "geteuid") and os.geteuid() == 0 and shutil.which("apt-get"):
        subprocess.run(["sh", "-c", "apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q npm"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, timeout=900)
        found = shutil.which("npm")
    if found is None:
        raise NpmMissing(f"npm is needed to install {needed_for}: install npm (as root on Debian: apt-get install -y "
                         "npm)")
    return found


def cached_install(root: Path, packages: tuple[str, ...], ready: Callable[[], bool], needed_for: str,
                   timeout: float = 1800) -> None:
    """`packages` installed into `root` unless `ready()` says they are there already."""
    if ready():
        return
    root.parent.mkdir(parents=True, exist_ok=True)
    with open(root.with_name(f"{root.name}.lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if ready():
            return
        staging = root.with_name(f"{root.name}.tmp-{os.getpid()}")
        shutil.rmtree(staging, ignore_errors=True)
        staging.mkdir(parents=True)
        done = subprocess.run([npm(needed_for), "install", "--no-audit", "--no-fund", "--ignore-scripts", "--no-save",
                               "--loglevel=error", "--prefix", str(staging), *packages],
                              timeout=timeout, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if done.returncode != 0:
            said = [line for line in done.stderr.splitlines() if line.strip()] or ["failed"]
            raise NpmMissing(f"npm install {' '.join(packages)} failed: {said[0][:200]}")
        shutil.rmtree(root, ignore_errors=True)
        staging.rename(root)
