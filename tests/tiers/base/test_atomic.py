"""Unit tests for tiers.atomic: atomic writes, canonical JSON, quarantine, the lock, permissions."""
from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from memoryd.tiers.base.atomic import (FileLock, atomic_write_bytes, atomic_write_json, dumps, ensure_private_dir,
                                  read_json)


def _mode(p: Path) -> int:
    return stat.S_IMODE(p.stat().st_mode)


def test_atomic_write_leaves_no_temp_files(tmp_path: Path) -> None:
    target = tmp_path / "d" / "state.json"
    for i in range(5):
        atomic_write_json(target, {"i": i, "text": "北京"})
    assert json.loads(target.read_text("utf-8")) == {"i": 4, "text": "北京"}
    assert sorted(p.name for p in target.parent.iterdir()) == ["state.json"]


def test_atomic_write_permissions(tmp_path: Path) -> None:
    target = tmp_path / "priv" / "f.json"
    atomic_write_bytes(target, b"{}")
    assert _mode(target) == 0o600
    assert _mode(target.parent) == 0o700


def test_ensure_private_dir_tightens_existing(tmp_path: Path) -> None:
    d = tmp_path / "loose"
    d.mkdir(mode=0o755)
    os.chmod(d, 0o755)
    ensure_private_dir(d)
    assert _mode(d) == 0o700


def test_atomic_write_failure_leaves_old_file_and_no_temp(tmp_path: Path) -> None:
    from memoryd.tiers.base.errors import StoreError

    target = tmp_path / "x.json"
    atomic_write_json(target, {"v": 1})
    # Make the rename fail: the target name is replaced by a non-empty directory.
    os.unlink(target)
    target.mkdir()
    (target / "child").write_text("x")
    with pytest.raises(StoreError):
        atomic_write_json(target, {"v": 2})
    assert [p.name for p in tmp_path.iterdir()] == ["x.json"]


def test_dumps_is_canonical() -> None:
    a = dumps({"b": 1, "a": ["鸭", 2]})
    assert a == '{"a":["鸭",2],"b":1}'.encode("utf-8")
    assert dumps({"a": ["鸭", 2], "b": 1}) == a


def test_read_json_missing_gives_default(tmp_path: Path) -> None:
    assert read_json(tmp_path / "nope.json", lambda: {"d": 1}) == {"d": 1}


@pytest.mark.parametrize("garbage", [b"{not json", b"\xff\xfe\x00", b"", b'{"a": 1'])
def test_read_json_quarantines_corrupt(tmp_path: Path, garbage: bytes) -> None:
    path = tmp_path / "s.json"
    path.write_bytes(garbage)
    assert read_json(path, lambda: "default") == "default"
    assert not path.exists()
    moved = [p for p in tmp_path.iterdir() if p.name.startswith("s.json.corrupt-")]
    assert len(moved) == 1 and moved[0].read_bytes() == garbage


def test_read_json_quarantines_when_validator_refuses(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    path.write_text('{"entries": 3}')

    def validate(obj: object) -> None:
        if not isinstance(obj["entries"], list):  # type: ignore[index]
            raise TypeError("entries")

    assert read_json(path, lambda: None, validate) is None
    assert any(p.name.startswith("s.json.corrupt-") for p in tmp_path.iterdir())


def test_file_lock_excludes_other_process(tmp_path: Path) -> None:
    lock_path = tmp_path / "a" / ".lock"
    lock = FileLock(lock_path)
    code = ("import sys; from pathlib import Path; from memoryd.tiers.base.atomic import FileLock;"
            f"sys.exit(0 if FileLock(Path({str(lock_path)!r})).acquire(blocking=False) else 3)")
    with lock.held():
        assert _mode(lock_path) == 0o600
        assert subprocess.run([sys.executable, "-c", code]).returncode == 3
    assert subprocess.run([sys.executable, "-c", code]).returncode == 0


def test_file_lock_is_reentrant(tmp_path: Path) -> None:
    lock = FileLock(tmp_path / ".lock")
    with lock.held():
        with lock.held():
            pass
        other = FileLock(tmp_path / ".lock")
        assert other.acquire(blocking=False) is False  # still held by the outer level
    other = FileLock(tmp_path / ".lock")
    assert other.acquire(blocking=False) is True
    other.release()
