"""sync.schema: v1 tables and indexes, idempotent and cheap when current, newer schema refused."""
from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from memoryd.sync.remote.db import Database, connect
from memoryd.sync.remote.result import Result
from memoryd.sync.remote.schema import SCHEMA_VERSION, current_version, ensure_schema
from memoryd.tiers.base.config import Config
from memoryd.tiers.base.errors import ArchiveError


class CountingDatabase(Database):
    """The real Database, counting round trips."""

    def __init__(self, inner: Database) -> None:
        super().__init__(inner.url, inner._backend)
        self.round_trips = 0

    def execute(self, sql: str, args: Any = None) -> Result:
        self.round_trips += 1
        return super().execute(sql, args)

    def batch(self, stmts: Any) -> list[Result]:
        self.round_trips += 1
        return super().batch(stmts)


@pytest.fixture
def db(db_url: str, tmp_path: Path):
    handle = connect(Config(home=tmp_path / "home", db_url=db_url))
    yield handle
    handle.close()


def names(db: Database, kind: str) -> set[str]:
    return {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = ?", [kind]).rows}


def test_fresh_database_gets_the_sealed_schema_only(db: Database) -> None:
    assert current_version(db) == 0
    assert ensure_schema(db) == SCHEMA_VERSION == 4
    tables = names(db, "table")
    assert {"schema_meta", "critical_state", "critical_versions", "memory_log", "critical_log"} <= tables
    assert not tables & {"cold_memories", "cold_fts", "cold_trigram"}  # no plaintext archive on a server any more
    assert {"memory_log_agent_seq", "memory_log_ref"} <= names(db, "index")
    if db.is_file:
        cols = [r[1] for r in db.execute("PRAGMA table_info(memory_log)").rows]
        assert cols == ["seq", "agent_id", "ref", "kind", "version", "digest", "data", "device_id", "created_at", "epoch"]


def test_ensure_schema_idempotent_and_one_round_trip(db: Database) -> None:
    ensure_schema(db)
    counting = CountingDatabase(db)
    assert ensure_schema(counting) == SCHEMA_VERSION
    assert counting.round_trips == 1
    assert db.execute("SELECT COUNT(*) FROM schema_meta").scalar() == SCHEMA_VERSION


def test_log_sequence_is_assigned_by_the_server_and_never_reused(db: Database) -> None:
    ensure_schema(db)
    row = ("INSERT INTO memory_log (agent_id, ref, kind, version, digest, data, device_id, created_at) "
           "VALUES (?, 'r', 'put', 1, ?, 'x', 'dev', 0)")
    db.batch([(row, ["a", "d1"]), (row, ["b", "d1"])])
    db.execute("DELETE FROM memory_log WHERE agent_id = 'b'")
    db.execute(row, ["a", "d2"])
    assert [r[0] for r in db.execute("SELECT seq FROM memory_log ORDER BY seq").rows] == [1, 3]
    with pytest.raises(ArchiveError):  # the same memory, kind and content once: a retried upload adds nothing
        db.execute(row, ["a", "d2"])


def test_newer_schema_is_refused(db: Database) -> None:
    ensure_schema(db)
    db.execute("INSERT INTO schema_meta (version, applied_at) VALUES (?, 0)", [SCHEMA_VERSION + 6])
    with pytest.raises(ArchiveError) as err:
        ensure_schema(db)
    assert err.value.message.startswith(
        f"database schema v{SCHEMA_VERSION + 6} is newer than this memoryd (v{SCHEMA_VERSION}); upgrade memoryd")
    assert err.value.exit_code == 1


def test_concurrent_migrations_on_one_file(tmp_path: Path) -> None:
    url = f"file:{tmp_path / 'race.db'}"
    errors: list[BaseException] = []
    versions: list[int] = []

    def migrate() -> None:
        handle = connect(Config(home=tmp_path, db_url=url))
        try:
            versions.append(ensure_schema(handle))
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)
        finally:
            handle.close()

    threads = [threading.Thread(target=migrate) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and versions == [SCHEMA_VERSION] * 6
    handle = connect(Config(home=tmp_path, db_url=url))
    assert handle.execute("SELECT version FROM schema_meta").rows == [(1,), (2,), (3,), (4,)]
    handle.close()
