"""Linux inotify as the watcher's event source: the thread sleeps in poll() until something changes.

watchfiles' `watch()` wakes every `step` ms to look for changes its Rust thread collected, so an idle
daemon wakes 5 times a second at step=200 and a note waits up to a second at step=1000. Here the
kernel wakes us: no wake-up at all while nothing changes, and changes are handed over 50 ms after the
last one (at most `debounce_ms` after the first). Same contract as watchfiles.watch with
yield_on_timeout: sets of (Change value, path), an empty set on timeout. Used where inotify works
(Linux); elsewhere, or when it fails (no watches left), the watcher uses watchfiles.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import errno
import os
import select
import struct
import time
from pathlib import Path
from typing import Any, Callable, Iterator

ADDED, MODIFIED, DELETED = 1, 2, 3  # watchfiles.Change values
IN_MODIFY, IN_ATTRIB, IN_CLOSE_WRITE = 0x2, 0x4, 0x8
IN_MOVED_FROM, IN_MOVED_TO, IN_CREATE, IN_DELETE = 0x40, 0x80, 0x100, 0x200
IN_DELETE_SELF, IN_MOVE_SELF, IN_Q_OVERFLOW, IN_IGNORED, IN_ISDIR = 0x400, 0x800, 0x4000, 0x8000, 0x40000000
IN_ONLYDIR, IN_NONBLOCK, IN_CLOEXEC = 0x1000000, 0o4000, 0o2000000
MASK = (IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE | IN_MOVED_FROM | IN_MOVED_TO | IN_CREATE | IN_DELETE
        | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR)
HEADER = struct.Struct("iIII")  # struct inotify_event: wd, mask, cookie, len (then the name)
SETTLE_S = 0.05  # hand changes over once none came for this long
MAX_DEPTH = 4  # what the watcher classifies lies at most this deep under a root


class WatchLost(Exception):
    """A watched root went away, or the kernel dropped events: the caller rebuilds the watch."""


_libc: ctypes.CDLL | None = None


def _lib() -> ctypes.CDLL:
    global _libc
    if _libc is None:
        _libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
    return _libc


def available() -> bool:
    """Can this process use inotify (Linux, with an instance left)?"""
    try:
        fd = _lib().inotify_init1(IN_NONBLOCK | IN_CLOEXEC)
    except (OSError, AttributeError):
        return False
    if fd < 0:
        return False
    os.close(fd)
    return True


class Inotify:
    """One inotify instance watching directory trees (down to MAX_DEPTH), plus a pipe to wake it."""

    def __init__(self, roots: list[str]) -> None:
        self.fd = _lib().inotify_init1(IN_NONBLOCK | IN_CLOEXEC)
        if self.fd < 0:
            raise OSError(ctypes.get_errno(), "inotify_init1: " + os.strerror(ctypes.get_errno()))
        self.roots = [Path(r) for r in roots]
        self.dirs: dict[int, tuple[Path, int]] = {}  # wd → (directory, depth)
        self._wake_r, self._wake_w = os.pipe2(os.O_NONBLOCK | os.O_CLOEXEC)
        try:
            for root in self.roots:
                self._add_tree(root, 0, None)
        except BaseException:
            self.close()
            raise

    def _add_tree(self, folder: Path, depth: int, found: set[tuple[int, str]] | None) -> None:
        """Watch `folder` and its subfolders. A folder that appeared while we watch (`found` given):
        the files already in it count as added, as they may have been written before its watch."""
        wd = _lib().inotify_add_watch(self.fd, os.fsencode(folder), MASK)
        if wd < 0:
            code = ctypes.get_errno()
            if code in (errno.ENOENT, errno.ENOTDIR) and depth > 0:
                return  # gone again before we got to it
            raise OSError(code, f"inotify_add_watch {folder}: {os.strerror(code)}")
        self.dirs[wd] = (folder, depth)
        try:
            entries = list(os.scandir(folder))
        except OSError:
            return
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                if depth < MAX_DEPTH:
                    self._add_tree(Path(entry.path), depth + 1, found)
            elif found is not None:
                found.add((ADDED, entry.path))

    def wake(self) -> None:
        """Make a waiting `watch` return at once (stop or reload)."""
        try:
            os.write(self._wake_w, b"x")
        except OSError:
            pass

    def close(self) -> None:
        for fd in (self.fd, self._wake_r, self._wake_w):
            try:
                os.close(fd)
            except OSError:
                pass

    def watch(self, timeout_s: float, debounce_s: float) -> set[tuple[int, str]]:
        """Block until changes arrive (grouped), the timeout passes (empty set) or `wake` is called."""
        poller = select.poll()
        poller.register(self.fd, select.POLLIN)
        poller.register(self._wake_r, select.POLLIN)
        changes: set[tuple[int, str]] = set()
        deadline = time.monotonic() + timeout_s
        first: float | None = None
        while True:
            now = time.monotonic()
            if first is None:
                wait = deadline - now
                if wait <= 0:
                    return changes
            else:
                wait = min(SETTLE_S, first + debounce_s - now)
                if wait <= 0:
                    return changes
            ready = dict(poller.poll(max(0, int(wait * 1000) + 1)))
            if self._wake_r in ready:
                self._drain_wake()
                return changes
            if self.fd not in ready:
                if first is not None:
                    return changes  # settled
                continue
            before = len(changes)
            self._read(changes)
            if first is None and len(changes) > before:
                first = time.monotonic()

    def _drain_wake(self) -> None:
        try:
            while os.read(self._wake_r, 64):
                pass
        except OSError:
            pass

    def _read(self, changes: set[tuple[int, str]]) -> None:
        try:
            data = os.read(self.fd, 64 * 1024)
        except BlockingIOError:
            return
        pos = 0
        while pos + HEADER.size <= len(data):
            wd, mask, _cookie, size = HEADER.unpack_from(data, pos)
            name = data[pos + HEADER.size:pos + HEADER.size + size].rstrip(b"\0")
            pos += HEADER.size + size
            self._event(wd, mask, os.fsdecode(name), changes)

    def _event(self, wd: int, mask: int, name: str, changes: set[tuple[int, str]]) -> None:
        if mask & IN_Q_OVERFLOW:
            raise WatchLost("the kernel dropped file events (queue overflow)")
        folder, depth = self.dirs.get(wd, (None, 0))
        if folder is None:
            return
        if mask & (IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED):
            del self.dirs[wd]
            if depth == 0:
                raise WatchLost(f"{folder} was removed")
            return
        path = folder / name
        if mask & IN_ISDIR:
            if mask & (IN_CREATE | IN_MOVED_TO) and depth < MAX_DEPTH:
                self._add_tree(path, depth + 1, changes)  # files written before the watch count too
            return
        if mask & (IN_CREATE | IN_MOVED_TO):
            changes.add((ADDED, str(path)))
        elif mask & (IN_DELETE | IN_MOVED_FROM):
            changes.add((DELETED, str(path)))
        else:
            changes.add((MODIFIED, str(path)))


class Waker:
    """Lets other threads end the current wait of a watch (stop, reload); a no-op between watches."""

    def __init__(self) -> None:
        self.target: Callable[[], None] | None = None

    def wake(self) -> None:
        target = self.target
        if target is not None:
            target()


def watch(roots: list[str], stop: Any, timeout_ms: int, debounce_ms: int, waker: Waker) -> Iterator[set[tuple[int, str]]]:
    """watchfiles.watch's shape over inotify: yields change sets (empty on timeout or wake) until `stop` is set.

    The watches are made here, so a failure (no inotify watches left) raises before the first change."""
    notify = Inotify(roots)
    waker.target = notify.wake
    return _changes(notify, stop, timeout_ms / 1000, debounce_ms / 1000, waker)


def _changes(notify: Inotify, stop: Any, timeout_s: float, debounce_s: float, waker: Waker) -> Iterator[set[tuple[int, str]]]:
    try:
        while not stop.is_set():
            changes = notify.watch(timeout_s, debounce_s)
            if stop.is_set():
                return
            yield changes
    finally:
        waker.target = None
        notify.close()
