"""Single database → a namespace per agent: copy each agent's rows into its namespace, read them back and
compare digests, and only then delete them from the single database (resumable: every step is idempotent).

    for each agent found in the single database (or the ones asked for):
      1. create its namespace (admin API, when configured) and the schema there
      2. refuse a namespace already holding another agent's rows (a name collision, sync/remote/namespaces.py)
      3. copy every table's rows of the agent: INSERT OR IGNORE, memory_log with its `seq` kept (devices'
         pull cursors stay valid), in batches
      4. verify: every source row's digest is among the namespace's rows (a subset: a rerun after step 5 of
         a killed run finds fewer source rows, never more target rows missing)
      5. delete the agent's verified rows from the single database, each by its rowid and only if it still
         holds what was verified (a row a device changed meanwhile stays, and the run says so)

A kill -9 at any point leaves every source row of an agent either still there (the rerun's copy ignores
it, its verification passes) or gone with its copy verified. The journal ($MEMORYD_HOME/migrations/namespaces.json)
records each agent's last step for `--json` and for tests that kill at a step.
"""
from __future__ import annotations

import hashlib
import json
import logging
import time
from typing import Any, Callable

from memoryd.tiers.base.atomic import atomic_write_json
from memoryd.tiers.base.config import Config
from memoryd.tiers.base.errors import ArchiveError, ConfigError

from memoryd.tiers.cold.db_url import DbUrl

from memoryd.sync.remote import namespaces
from memoryd.sync.remote.db import Database
from memoryd.sync.remote.schema import SCHEMA_VERSION, current_version, ensure_schema

log = logging.getLogger("memoryd.sync")

BATCH = 200  # rows per INSERT (or DELETE) batch: a few hundred KB of sealed rows per request
_LONG = 256  # characters: a longer value is matched by its length when its row is deleted
_SKIP = ("schema_meta", "sqlite_sequence")
_SOURCE_NAMESPACE = "default"  # where a server started again with --enable-namespaces keeps the single database


def journal_path(config: Config) -> Any:
    return config.home / "migrations" / "namespaces.json"


def _journal(config: Config) -> dict[str, Any]:
    try:
        return json.loads(journal_path(config).read_text(encoding="utf-8"))
    except (FileNotFoundError, ValueError):
        return {"agents": {}}


def _mark(config: Config, doc: dict[str, Any], agent_id: str, step: str, **extra: Any) -> None:
    doc["agents"][agent_id] = {"step": step, "at": int(time.time()), **extra}
    atomic_write_json(journal_path(config), doc)


def _token(config: Config) -> tuple[str | None, str]:
    if config.admin_token:
        return config.admin_token, "MEMORYD_ADMIN_TOKEN"
    return config.db_token, "MEMORYD_DB_TOKEN"


def _open(config: Config, url: DbUrl) -> Database:
    from memoryd.sync.remote.libsql import RemoteBackend  # libsql_client: only for a server

    return Database(url, RemoteBackend(url, timeout=config.db.timeout, connect_timeout=config.db.connect_timeout))


def open_source(config: Config) -> Database:
    """The single database, as an operator opens it (MEMORYD_ADMIN_TOKEN if set, else MEMORYD_DB_TOKEN): on a
    server restarted with --enable-namespaces it is the `default` namespace, named explicitly."""
    if config.db_url.startswith("file:") or namespaces.TEMPLATE in config.db_url:
        raise ConfigError("namespace migrate needs MEMORYD_DB_URL to be the server's own URL (not file:, no {agent})")
    token, name = _token(config)
    return _open(config, namespaces.named_url(config.db_url, token, _SOURCE_NAMESPACE, token_name=name))


def open_target(config: Config, agent_id: str) -> Database:
    namespaces.ensure_namespace(config, agent_id)
    token, name = _token(config)
    return _open(config, namespaces.agent_url(config.db_url, token, agent_id, token_name=name))


def agent_tables(db: Database) -> list[tuple[str, list[str]]]:
    """Every table with an agent_id column, with its columns (the schema's, whatever its version)."""
    names = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").rows]
    out = []
    for name in names:
        if name in _SKIP or name.startswith(("sqlite_", "libsql_", "_litestream")):
            continue
        cols = [r[1] for r in db.execute(f'PRAGMA table_info("{name}")').rows]
        if "agent_id" in cols:
            out.append((name, cols))
    return out


def agents_in(db: Database, tables: list[tuple[str, list[str]]]) -> list[str]:
    found: set[str] = set()
    for name, _ in tables:
        found.update(r[0] for r in db.execute(f'SELECT DISTINCT agent_id FROM "{name}"').rows)
    return sorted(found)


def _rows(db: Database, table: str, cols: list[str], agent_id: str, *, rowid: bool = False) -> list[tuple[Any, ...]]:
    listed = ", ".join((["rowid"] if rowid else []) + [f'"{c}"' for c in cols])
    return db.execute(f'SELECT {listed} FROM "{table}" WHERE agent_id = ?', [agent_id]).rows


def digest(row: tuple[Any, ...]) -> str:
    return hashlib.sha256(json.dumps(list(row), separators=(",", ":"), default=str).encode()).hexdigest()


def _refuse_other_agents(target: Database, tables: list[tuple[str, list[str]]], agent_id: str, ns: str) -> None:
    for name, _ in tables:
        other = target.execute(f'SELECT agent_id FROM "{name}" WHERE agent_id != ? LIMIT 1', [agent_id]).rows
        if other:
            raise ArchiveError(f"namespace {ns} already holds rows of agent {other[0][0]!r}, not {agent_id!r}: "
                               f"refusing to mix two agents in one namespace")


def _copy(source_rows: list[tuple[Any, ...]], target: Database, table: str, cols: list[str]) -> int:
    listed = ", ".join(f'"{c}"' for c in cols)
    sql = f'INSERT OR IGNORE INTO "{table}" ({listed}) VALUES ({", ".join("?" * len(cols))})'
    for start in range(0, len(source_rows), BATCH):
        target.batch([(sql, list(row)) for row in source_rows[start:start + BATCH]])
    return len(source_rows)


def _verify(source_rows: list[tuple[Any, ...]], target: Database, table: str, cols: list[str], agent_id: str) -> None:
    have = {digest(row) for row in _rows(target, table, cols, agent_id)}
    missing = sum(1 for row in source_rows if digest(row) not in have)
    if missing:
        raise ArchiveError(f"{missing} of {len(source_rows)} rows of {table} did not read back identical from "
                           f"agent {agent_id}'s namespace, nothing of the agent was deleted: a device changed them "
                           f"in the single database or already writes to the namespace (copies never overwrite); "
                           f"stop its daemon and run the migration again")


def _delete_stmts(table: str, cols: list[str], rows: list[tuple[Any, ...]], agent_id: str) -> list[Any]:
    """Delete exactly the verified rows: by rowid, if every column still holds what was verified (a long
    value, such as a ciphertext, compared by length: sending it back would double the traffic, and a
    rewritten row changes its version or time too)."""
    out = []
    for rowid, *values in rows:
        conds, args = [], []
        for col, value in zip(cols, values):
            if isinstance(value, str) and len(value) > _LONG:
                conds.append(f'length("{col}") = ?')
                args.append(len(value))
            else:
                conds.append(f'"{col}" IS ?')
                args.append(value)
        out.append((f'DELETE FROM "{table}" WHERE rowid = ? AND agent_id = ? AND {" AND ".join(conds)}',
                    [rowid, agent_id, *args]))
    return out


def migrate_agent(config: Config, source: Database, agent_id: str, doc: dict[str, Any],
                  step: Callable[[str, str], None]) -> dict[str, Any]:
    tables = agent_tables(source)
    ns = namespaces.namespace_name(agent_id)
    target = open_target(config, agent_id)
    try:
        ensure_schema(target)
        _refuse_other_agents(target, agent_tables(target), agent_id, ns)
        with_ids = {name: (cols, _rows(source, name, cols, agent_id, rowid=True)) for name, cols in tables}
        snapshot = {name: (cols, [row[1:] for row in rows]) for name, (cols, rows) in with_ids.items()}
        copied = {name: _copy(rows, target, name, cols) for name, (cols, rows) in snapshot.items()}
        _mark(config, doc, agent_id, "copied", namespace=ns, rows=copied)
        step(agent_id, "copied")
        for name, (cols, rows) in snapshot.items():
            _verify(rows, target, name, cols, agent_id)
        _mark(config, doc, agent_id, "verified", namespace=ns, rows=copied)
        step(agent_id, "verified")
        deletes = [stmt for name, (cols, rows) in with_ids.items() for stmt in _delete_stmts(name, cols, rows, agent_id)]
        for start in range(0, len(deletes), BATCH):
            source.batch(deletes[start:start + BATCH])
        left = sum(len(_rows(source, name, cols, agent_id)) for name, cols in tables)
        _mark(config, doc, agent_id, "done" if not left else "rows-arrived", namespace=ns, rows=copied, left=left)
        step(agent_id, "done")
        return {"agent_id": agent_id, "namespace": ns, "rows": copied, "left_in_single": left}
    finally:
        target.close()


def migrate(config: Config, agents: list[str] | None = None, step: Callable[[str, str], None] | None = None
            ) -> dict[str, Any]:
    """Move every agent (or `agents`) of the single database into its own namespace; rerun to resume."""
    began = time.monotonic()
    doc = _journal(config)
    source = open_source(config)
    try:
        if current_version(source) < SCHEMA_VERSION:
            ensure_schema(source)  # the forward migration `init` does: the copy is of the current schema
        todo = agents if agents else agents_in(source, agent_tables(source))
        done = [migrate_agent(config, source, a, doc, step or (lambda _a, _s: None)) for a in todo]
    finally:
        source.close()
    return {"agents": done, "seconds": round(time.monotonic() - began, 3), "journal": str(journal_path(config))}
