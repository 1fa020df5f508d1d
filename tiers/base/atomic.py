"""Crash-safe local files: atomic write (temp, fsync, rename, fsync dir), per-agent lock, quarantine."""
from __future__ import annotations

import errno
import fcntl
import json
import logging
import os
import re
import stat
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterator

from memoryd.tiers.base.errors import CorruptStateError, StoreError

log = logging.getLogger("memoryd.tiers")


def ensure_private_dir(path: Path) -> Path:
    """Create `path` (and parents) with mode 0700; tighten it if it already exists."""
    try:  # the common case, a state dir already made right: one stat, not one per parent (hot on every write)
        st = path.stat()
        if stat.S_ISDIR(st.st_mode) and (st.st_mode & 0o777) == 0o700:
            return path
    except OSError:
        pass
    try:
        for missing in [p for p in reversed(path.parents) if not p.exists()] + [path]:
            missing.mkdir(mode=0o700, exist_ok=True)  # parents too: mkdir(parents=True) would use the umask
        if (path.stat().st_mode & 0o777) != 0o700:
            os.chmod(path, 0o700)
    except OSError as exc:
        raise StoreError(f"cannot create directory {path}: {exc.strerror}") from None
    return path


def fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_synced(path: Path, data: bytes, mode: int = 0o600, durable: bool = True) -> None:
    """Write `data` to `path` (created or truncated) and fsync it unless not `durable`: the first half of an atomic write."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        if durable:
            os.fsync(fd)
    finally:
        os.close(fd)


def atomic_write_bytes(path: Path, data: bytes, mode: int = 0o600, private_dir: bool = True,
                       durable: bool = True) -> None:
    """Write `data` so that a crash at any instant leaves the old file or the new one.

    private_dir: create/tighten the parent to 0700 (our state dirs); False for a file the user named.
    durable=False: no fsync (still never torn) — for derived or bookkeeping files whose last update
    a power cut may take back (rendered MEMORY.md, counters, caches).
    """
    if private_dir:
        ensure_private_dir(path.parent)
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    try:
        write_synced(tmp, data, mode, durable)
        os.replace(tmp, path)
        if durable:
            fsync_dir(path.parent)
    except OSError as exc:
        try:
            tmp.unlink()
        except OSError:
            pass
        raise StoreError(f"cannot write {path}: {exc.strerror or exc}") from None


# `.<name>.tmp-<pid>` (atomic_write_bytes), `.<name>.new-<pid>` (key creation), `.<name>.bak-<pid>` (older versions)
_LEFTOVER = re.compile(r"\..+\.(?:tmp|new|bak)-([0-9]+)")  # fullmatch only


def leftover_pid(name: str) -> int | None:
    """The writer's pid when `name` is one of our temp files, else None."""
    m = _LEFTOVER.fullmatch(name)
    return int(m.group(1)) if m else None


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True  # another thread of ours may be writing it
    try:
        os.kill(pid, 0)
    except (ProcessLookupError, OverflowError):  # gone, or a pid no system gives out
        return False
    except PermissionError:  # another user's process
        return True
    return True


def remove_leftovers(directory: Path, prefix: str = ".", recursive: bool = False) -> int:
    """Delete temp files of writers that died mid-write: our own temp-name pattern only, and only
    when the writer's process is gone. Call while holding the lock of `directory` (where it has one).

    recursive: also the subfolders, except those with a lock of their own (`.lock`, `*.lock`): their
    writers hold that lock, not ours. prefix: only names starting with it (one agent's key files)."""
    removed = 0
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return 0
    for entry in entries:
        pid = leftover_pid(entry.name) if entry.name.startswith(prefix) else None
        if pid is not None and not _alive(pid) and entry.is_file(follow_symlinks=False):
            try:
                os.unlink(entry.path)
                removed += 1
            except OSError:
                pass
        elif recursive and entry.is_dir(follow_symlinks=False) and not _has_lock(Path(entry.path)):
            removed += remove_leftovers(Path(entry.path), prefix, recursive)
    return removed


def _has_lock(directory: Path) -> bool:
    try:
        return any(name == ".lock" or name.endswith(".lock") for name in os.listdir(directory))
    except OSError:
        return True  # unreadable: leave it alone


# json.dumps with these options builds a new encoder per call; warm's size cap calls this per entry
_CANONICAL = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), sort_keys=True, allow_nan=False)


def dumps(obj: Any) -> bytes:
    """The canonical JSON encoding used for every state file (and for size limits)."""
    return _CANONICAL.encode(obj).encode("utf-8")


def atomic_write_json(path: Path, obj: Any, durable: bool = True) -> None:
    atomic_write_bytes(path, dumps(obj), durable=durable)


def atomic_write_text(path: Path, text: str, private_dir: bool = True, durable: bool = True) -> None:
    atomic_write_bytes(path, text.encode("utf-8"), private_dir=private_dir, durable=durable)


def quarantine(path: Path, reason: str) -> Path:
    """Move a corrupt file aside as `<name>.corrupt-<time>` and warn; returns the new path."""
    stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime())
    target = path.with_name(f"{path.name}.corrupt-{stamp}-{os.getpid()}")
    os.replace(path, target)
    log.warning("corrupt state file %s (%s) moved aside to %s; rebuilding", path, reason, target.name)
    return target


def read_json(path: Path, default: Callable[[], Any], validate: Callable[[Any], None] | None = None) -> Any:
    """Load a JSON state file; missing → default(); corrupt → quarantined, then default()."""
    return read_json_raw(path, default, validate)[0]


def read_json_raw(path: Path, default: Callable[[], Any],
                  validate: Callable[[Any], None] | None = None) -> tuple[Any, bytes | None]:
    """read_json() and the bytes it parsed (None when the default was used)."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return default(), None
    except OSError as exc:
        raise StoreError(f"cannot read {path}: {exc.strerror}") from None
    try:
        obj = json.loads(raw.decode("utf-8"))
        if validate is not None:
            validate(obj)
        return obj, raw
    except (ValueError, UnicodeDecodeError, TypeError, KeyError, RecursionError, CorruptStateError) as exc:
        quarantine(path, type(exc).__name__)  # RecursionError: nested too deep for json.loads (or the check)
        return default(), None


class FileLock:
    """An exclusive advisory lock (flock) on a lock file; re-entrant within one object."""

    def __init__(self, path: Path, sweep: bool = True) -> None:
        self.path = path
        self._fd: int | None = None
        self._depth = 0
        self._swept = not sweep  # the first hold removes dead writers' temp files in the lock's folder

    def acquire(self, blocking: bool = True) -> bool:
        if self._depth:
            self._depth += 1
            return True
        ensure_private_dir(self.path.parent)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | (0 if blocking else fcntl.LOCK_NB))
        except OSError as exc:
            os.close(fd)
            if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN):
                return False
            raise StoreError(f"cannot lock {self.path}: {exc.strerror}") from None
        self._fd, self._depth = fd, 1
        if not self._swept:
            self._swept = True
            remove_leftovers(self.path.parent, recursive=True)
        return True

    def owned(self) -> bool:
        """Whether this object holds the lock (a nested acquire would only count up)."""
        return self._depth > 0

    def release(self) -> None:
        if not self._depth:
            return
        self._depth -= 1
        if self._depth == 0 and self._fd is not None:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None

    @contextmanager
    def held(self) -> Iterator[None]:
        self.acquire()
        try:
            yield
        finally:
            self.release()
