"""Harness files on disk (CLAUDE.md, AGENTS.md, a workspace's MEMORY.md): read one safely, swap in new text.

These files belong to the user and to other programs. memoryd writes only through `write_merged`, which
replaces the file atomically and only if it still holds what memoryd read: an edit that lands in
between is handed back to the caller to merge, never overwritten. On Linux the replacement is a
rename exchange (renameat2 RENAME_EXCHANGE), so even an editor's own rename racing ours is caught;
elsewhere the file is re-read just before the rename (a window of microseconds remains).
"""
from __future__ import annotations

import errno
import os
from pathlib import Path
from typing import Callable

from memoryd.tiers.base.atomic import fsync_dir, write_synced
from memoryd.tiers.base.errors import StoreError, UsageError

MAX_HARNESS_BYTES = 4 * 1024 * 1024  # a context file bigger than this is not one memoryd should touch


def resolve_target(path: Path, boundary: Path) -> Path:
    """The real file to write: `path`, or where its symlink points when that stays inside `boundary`."""
    if not boundary.is_dir():
        raise UsageError(f"directory {boundary} does not exist")
    real = path.resolve() if path.is_symlink() else path
    if path.is_symlink() and not real.is_relative_to(boundary.resolve()):
        raise UsageError(f"{path} is a symlink to {real}, outside {boundary}: memoryd does not write through it")
    if real.exists() and not real.is_file():
        raise UsageError(f"{real} is not a regular file")
    if not real.parent.is_dir():
        raise UsageError(f"directory {real.parent} does not exist")
    return real


def read_harness(path: Path) -> bytes | None:
    """The file's bytes (None when it does not exist), refused when it is not UTF-8 text or too big."""
    try:
        with open(path, "rb") as fh:
            data = fh.read(MAX_HARNESS_BYTES + 1)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise StoreError(f"cannot read {path}: {exc.strerror or exc}") from None
    if len(data) > MAX_HARNESS_BYTES:
        raise UsageError(f"{path} is over {MAX_HARNESS_BYTES // (1024 * 1024)} MiB: not a context file memoryd writes into")
    _decode(data, path)
    return data


def _exchange(a: Path, b: Path) -> bool:
    """Atomically swap two paths (Linux renameat2); False where the system or filesystem cannot."""
    import ctypes

    fn = getattr(ctypes.CDLL(None, use_errno=True), "renameat2", None)
    if fn is None:
        return False
    at_fdcwd, rename_exchange = -100, 2
    if fn(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), rename_exchange) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.ENOSYS, errno.EINVAL, errno.EOPNOTSUPP):
        return False
    if err == errno.ENOENT:
        raise FileNotFoundError(err, os.strerror(err), str(b))
    raise OSError(err, os.strerror(err), str(b))


def _write_temp(path: Path, data: bytes, mode: int) -> Path:
    tmp = path.with_name(f".{path.name}.memoryd-{os.getpid()}.tmp")
    tmp.unlink(missing_ok=True)
    write_synced(tmp, data, mode)
    os.chmod(tmp, mode)  # the umask must not change the mode the file had
    return tmp


def _decode(data: bytes, path: Path) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UsageError(f"{path} is not UTF-8 text (byte {exc.start}): memoryd does not write into it") from None


def write_merged(path: Path, merge: Callable[[str], str], attempts: int = 10) -> tuple[bytes | None, bytes]:
    """Write merge(current text) to `path` atomically; returns (bytes before, bytes after).

    When someone edits the file meanwhile, `merge` runs again on their version, so their edit stays.
    """
    on_disk = read_harness(path)
    before = on_disk
    for _ in range(attempts):
        data = merge("" if on_disk is None else _decode(on_disk, path)).encode("utf-8")
        if data == on_disk:
            return before, data
        written, found = _swap(path, on_disk, data)
        if written:
            return before, data
        on_disk = found
    raise StoreError(f"{path} kept changing while memoryd wrote it; nothing was lost, render again")


def _swap(path: Path, expected: bytes | None, data: bytes) -> tuple[bool, bytes | None]:
    """(True, None) once `path` holds `data`; (False, what is there now) when it no longer held `expected`."""
    try:
        mode = path.stat().st_mode & 0o7777
    except FileNotFoundError:
        mode = 0o600  # a new file holds memories: private, like every other file of ours
    try:
        tmp = _write_temp(path, data, mode)
        try:
            written, found = _replace(tmp, path, expected)
        finally:
            tmp.unlink(missing_ok=True)
        if written:
            fsync_dir(path.parent)
        return written, found
    except OSError as exc:
        raise StoreError(f"cannot write {path}: {exc.strerror or exc}") from None


def _replace(tmp: Path, path: Path, expected: bytes | None) -> tuple[bool, bytes | None]:
    if expected is None:  # a new file: link() never replaces one created meanwhile
        try:
            os.link(tmp, path)
            return True, None
        except FileExistsError:
            return False, read_harness(path)
    ours = tmp.stat().st_ino
    try:
        exchanged = _exchange(tmp, path)
    except FileNotFoundError:  # deleted meanwhile
        return False, None
    if not exchanged:  # no atomic exchange here: check, then rename (a window of microseconds)
        current = read_harness(path)
        if current != expected:
            return False, current
        os.replace(tmp, path)
        return True, None
    if tmp.read_bytes() == expected:  # what was at `path` at the instant of the swap
        return True, None
    # Someone wrote meanwhile: put their file back at once (ours was merged into a stale copy).
    _exchange(tmp, path)
    if tmp.stat().st_ino != ours:  # and yet another file was renamed in between: keep the newest in place
        _exchange(tmp, path)
    return False, read_harness(path)
