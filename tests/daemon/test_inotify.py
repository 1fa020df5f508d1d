"""daemon/inotify.py: changes at any depth the watcher classifies, folders made while watching, no
wake-up while idle, an immediate wake for stop and reload, a removed root ends the watch."""
from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from memoryd.daemon import inotify
from memoryd.daemon.inotify import ADDED, DELETED, MODIFIED, Waker, WatchLost
from waiting import eventually


class Collector:
    """Runs a watch in a thread of its own (as the daemon does) and keeps every change set it yields."""

    def __init__(self, roots: list[Path], timeout_ms: int = 3_600_000) -> None:
        self.stop, self.waker = threading.Event(), Waker()
        self.sets: list[set[tuple[int, str]]] = []
        self.error: BaseException | None = None
        self.tid = 0
        self._changes = inotify.watch([str(r) for r in roots], self.stop, timeout_ms, 1000, self.waker)
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        self.tid = threading.get_native_id()
        try:
            for changes in self._changes:
                self.sets.append(changes)
        except BaseException as exc:
            self.error = exc

    def seen(self) -> set[tuple[int, str]]:
        return set().union(*self.sets) if self.sets else set()

    def wait_for(self, item: tuple[int, str], timeout: float = 5.0) -> None:
        eventually(lambda: item in self.seen(), timeout=timeout, step=0.01, what=f"change {item}")

    def blocked(self) -> bool:
        """The watch thread sleeps in the kernel (its poll), not running."""
        return bool(self.tid) and Path(f"/proc/self/task/{self.tid}/stat").read_text().split(") ")[-1][0] == "S"

    def switches(self) -> int:
        status = Path(f"/proc/self/task/{self.tid}/status").read_text()
        return sum(int(line.split()[1]) for line in status.splitlines() if "ctxt_switches" in line)

    def close(self) -> None:
        self.stop.set()
        self.waker.wake()
        self.thread.join(5)
        assert not self.thread.is_alive()


pytestmark = pytest.mark.skipif(not inotify.available(), reason="inotify is Linux-only; watchfiles is used elsewhere")


def test_changes_at_depth_and_in_folders_made_while_watching(tmp_path: Path) -> None:
    agents = tmp_path / "agents"
    (agents / "main" / "agent").mkdir(parents=True)
    c = Collector([agents])
    try:
        store = agents / "main" / "agent" / "openclaw-agent.sqlite-wal"
        store.write_bytes(b"x")
        c.wait_for((ADDED, str(store)))
        with store.open("ab") as f:
            f.write(b"y")
        c.wait_for((MODIFIED, str(store)))
        # an agent that appears: its folders are watched, and a file written before that counts
        sessions = agents / "second" / "sessions"
        sessions.mkdir(parents=True)
        (sessions / "a.jsonl").write_text("{}\n")
        c.wait_for((ADDED, str(sessions / "a.jsonl")))
        (sessions / "a.jsonl").rename(sessions / "a.jsonl.reset.2026")
        c.wait_for((ADDED, str(sessions / "a.jsonl.reset.2026")))
        assert (DELETED, str(sessions / "a.jsonl")) in c.seen()
    finally:
        c.close()
    assert c.error is None


def test_an_idle_watch_does_not_wake_and_stop_or_reload_wakes_it_at_once(tmp_path: Path) -> None:
    c = Collector([tmp_path])
    try:
        eventually(c.blocked, what="the watch thread asleep in its poll")
        before = c.switches()
        time.sleep(1.5)  # the window measured, not a wait for an event
        assert c.switches() - before <= 1  # watchfiles at step=200 would wake about 7 times here
        c.waker.wake()  # a reload: the watch returns an empty set at once, the caller re-reads its layout
        eventually(lambda: c.sets, timeout=2, step=0.005, what="the empty set a wake returns")
        assert c.sets == [set()]
    finally:
        c.close()


def test_a_burst_of_writes_comes_as_one_set_after_it_settles(tmp_path: Path) -> None:
    c = Collector([tmp_path])
    try:
        for i in range(20):
            (tmp_path / f"2026-01-{i + 1:02d}.md").write_text("- a note\n")
        c.wait_for((ADDED, str(tmp_path / "2026-01-20.md")))
        marker = tmp_path / "after-the-burst.md"
        marker.write_text("- later\n")  # a later change: every set of the burst came before its set
        c.wait_for((ADDED, str(marker)))
        burst = [s for s in c.sets if any(path != str(marker) for _, path in s)]
        assert len(burst) <= 2 and len({path for _, path in c.seen()} - {str(marker)}) == 20
    finally:
        c.close()


def test_a_removed_root_ends_the_watch_so_the_watcher_rebuilds_it(tmp_path: Path) -> None:
    root = tmp_path / "memory"
    root.mkdir()
    c = Collector([root])
    root.rmdir()
    c.thread.join(5)
    assert isinstance(c.error, WatchLost) and "removed" in str(c.error)


def test_a_missing_root_fails_before_the_first_change(tmp_path: Path) -> None:
    with pytest.raises(OSError, match="inotify_add_watch"):
        inotify.watch([str(tmp_path / "nope")], threading.Event(), 1000, 1000, Waker())
