"""sqld's data directory read raw, as someone who later gets its files would: every row at every commit.

sqld keeps each page it ever wrote in its replication log (`wallog`: a 64-byte header, then frames of
frame_no, checksum, page_no, size_after and one page) until it compacts it, and SQLite's own WAL
(`data-wal`: frames over the main `data` file). replay() rebuilds the database as it stood at every commit
of both logs (and the main file itself), opens each image with sqlite3 and returns every row of every
table. scan() adds what a byte search finds in every file (free pages, stats.json, snapshots): sealed
envelopes (base64 of the `MDS1` magic) and key-like strings. open_all() then tries every key on every
envelope, with the associated data the row it sits in names (the way an attacker would).
"""
from __future__ import annotations

import base64
import binascii
import re
import sqlite3
import struct
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

from memoryd.sync.crypto.seal import MAGIC, open_envelope
from memoryd.tiers.base.errors import CryptoError

PAGE = 4096
SQLITE_MAGIC = b"SQLite format 3\x00"
LIBSQL_MAGIC = b"SQLDWAL"
ENVELOPE_B64 = base64.b64encode(MAGIC)[:5]  # b"TURTM": every sealed envelope's base64 starts so
_ENVELOPE_RX = re.compile(rb"TURTM[A-Za-z0-9+/]{40,}={0,2}")
_HEX32_RX = re.compile(rb"(?<![0-9a-f])[0-9a-f]{32}(?![0-9a-f])")
_KEYLIKE_RX = re.compile(rb"(?<![0-9a-fA-F])[0-9a-fA-F]{64}(?![0-9a-fA-F])|md[kr]1(?:-[a-z2-7]{1,4}){10,}")


@dataclass(frozen=True)
class Row:
    """One row of one table, as some image of the database held it."""
    table: str
    values: tuple[tuple[str, Any], ...]

    def get(self, name: str) -> Any:
        return dict(self.values).get(name)


@dataclass
class Envelope:
    """A sealed envelope found somewhere, with the associated data to try it under."""
    text: str
    where: str
    aads: list[tuple[str, str, int]] = field(default_factory=list)  # (agent_id, kind, version)

    @property
    def raw(self) -> bytes:
        return base64.b64decode(self.text + "=" * (-len(self.text) % 4))


def files(data_dir: Path) -> list[Path]:
    return sorted(p for p in data_dir.rglob("*") if p.is_file())


def _pages(blob: bytes) -> dict[int, bytes]:
    return {i // PAGE + 1: blob[i:i + PAGE] for i in range(0, len(blob) - PAGE + 1, PAGE)}


def _image(pages: dict[int, bytes], size: int) -> bytes:
    return b"".join(pages.get(n, b"\0" * PAGE) for n in range(1, size + 1))


def libsql_images(blob: bytes) -> Iterator[bytes]:
    """Every committed database image in a sqld replication log, from an empty database on."""
    pages: dict[int, bytes] = {}
    pos = 64
    while pos + 24 + PAGE <= len(blob):
        _frame_no, _sum, page_no, size_after = struct.unpack_from("<QQII", blob, pos)
        pages[page_no] = blob[pos + 24: pos + 24 + PAGE]
        pos += 24 + PAGE
        if size_after:
            yield _image(pages, size_after)


def sqlite_wal_images(main: bytes, wal: bytes) -> Iterator[bytes]:
    """The main file, then every committed image its WAL frames make of it."""
    pages = _pages(main)
    if main:
        yield main
    if len(wal) < 32 or struct.unpack_from(">I", wal, 0)[0] & 0xFFFFFFFE != 0x377F0682:
        return
    size = struct.unpack_from(">I", wal, 8)[0]
    pos = 32
    while pos + 24 + size <= len(wal):
        page_no, commit = struct.unpack_from(">II", wal, pos)
        pages[page_no] = wal[pos + 24: pos + 24 + size]
        pos += 24 + size
        if commit:
            yield _image(pages, commit)


def rows_of(image: bytes) -> set[Row]:
    """Every row of every ordinary table of one database image (an unreadable image yields none)."""
    out: set[Row] = set()
    with tempfile.NamedTemporaryFile(suffix=".db") as tmp:
        tmp.write(image)
        tmp.flush()
        try:
            conn = sqlite3.connect(f"file:{tmp.name}?immutable=1", uri=True)
        except sqlite3.Error:
            return out
        try:
            tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' "
                                                  "AND sql NOT LIKE 'CREATE VIRTUAL%'")]
            for table in tables:
                try:
                    cur = conn.execute(f'SELECT * FROM "{table}"')
                    names = [d[0] for d in cur.description]
                    out.update(Row(table, tuple(zip(names, r))) for r in cur)
                except sqlite3.Error:
                    continue
        except sqlite3.Error:
            pass
        finally:
            conn.close()
    return out


def replay(data_dir: Path) -> set[Row]:
    """Every row sqld's files ever held: each commit of its replication log, of SQLite's WAL, and the main file."""
    out: set[Row] = set()
    for path in files(data_dir):
        head = path.read_bytes()[:16]
        if head.startswith(LIBSQL_MAGIC):
            for image in libsql_images(path.read_bytes()):
                out |= rows_of(image)
        elif head == SQLITE_MAGIC:
            wal = path.with_name(path.name + "-wal")
            for image in sqlite_wal_images(path.read_bytes(), wal.read_bytes() if wal.exists() else b""):
                out |= rows_of(image)
    return out


# Which associated data an envelope in a row of each table was sealed with; other tables may add theirs.
AadRule = Callable[[Row], Iterable[tuple[str, str, int]]]


def _epoch(row: Row) -> str:
    epoch = int(row.get("epoch") or 0)
    return f"@e{epoch}" if epoch else ""  # epoch 0 keeps the kinds of schema v1/v2


def _log_aad(row: Row) -> Iterable[tuple[str, str, int]]:
    yield str(row.get("agent_id")), f"memory:{row.get('kind')}:{row.get('ref')}{_epoch(row)}", int(row.get("version") or 0)


def _critical_aad(row: Row) -> Iterable[tuple[str, str, int]]:
    yield str(row.get("agent_id")), f"critical{_epoch(row)}", int(row.get("version") or 0)


def _change_aad(row: Row) -> Iterable[tuple[str, str, int]]:
    yield str(row.get("agent_id")), f"critical-change:{row.get('device_id')}{_epoch(row)}", 1


AAD_RULES: dict[str, AadRule] = {"memory_log": _log_aad, "critical_state": _critical_aad,
                                 "critical_versions": _critical_aad, "critical_log": _change_aad}


def envelopes(rows: Iterable[Row], rules: dict[str, AadRule] | None = None) -> list[Envelope]:
    """The sealed envelopes in these rows, each with the associated data its row names."""
    rules = {**AAD_RULES, **(rules or {})}
    found: dict[str, Envelope] = {}
    for row in rows:
        for name, value in row.values:
            if isinstance(value, str) and value.encode()[:5] == ENVELOPE_B64:
                env = found.setdefault(value, Envelope(value, f"{row.table}.{name}"))
                rule = rules.get(row.table)
                for aad in (rule(row) if rule else ()):
                    if aad not in env.aads:
                        env.aads.append(aad)
    return list(found.values())


def scan(data_dir: Path, agents: Iterable[str], versions: Iterable[int],
         epochs: Iterable[int] = (0,)) -> tuple[list[Envelope], set[str]]:
    """A byte search of every file: envelopes (with guessed associated data: a 32-hex ref near it, the
    critical kind at the versions and epochs seen) and key-like strings (64 hex digits, recovery strings)."""
    agents, versions = list(agents), list(versions)
    tags = [f"@e{e}" if e else "" for e in epochs]
    found: dict[str, Envelope] = {}
    keylike: set[str] = set()
    for path in files(data_dir):
        blob = path.read_bytes()
        keylike.update(m.group().decode() for m in _KEYLIKE_RX.finditer(blob))
        for m in _ENVELOPE_RX.finditer(blob):
            text = m.group().decode()
            env = found.setdefault(text, Envelope(text, f"{path.name}@{m.start()}"))
            refs = {r.group().decode() for r in _HEX32_RX.finditer(blob, max(0, m.start() - 400), m.start())}
            for agent in agents:
                env.aads.extend((agent, f"memory:{op}:{ref}{t}", 1) for ref in refs for op in ("put", "forget")
                                for t in tags)
                env.aads.extend((agent, f"critical{t}", v) for v in versions for t in tags)
    return list(found.values()), keylike


def key_material(strings: Iterable[str]) -> set[bytes]:
    """32-byte secrets written as 64 hex digits, data-key strings (mdk1-) or recovery keys (mdr1-)."""
    from memoryd.sync.crypto.keys import import_recovery, parse_key_material
    from memoryd.tiers.base.errors import UsageError

    out = set()
    for s in strings:
        for parse in (parse_key_material, lambda t: import_recovery(t, "mdr1")):
            try:
                out.add(parse(s))
            except (UsageError, ValueError, binascii.Error, CryptoError):
                continue
    return out


def secrets_in(folder: Path) -> set[bytes]:
    """Every 32-byte secret a device keeps under `folder` (its MEMORYD_HOME): raw 32-byte files, hex strings
    and key strings in any file (key files, device key stores, a pending key pair, anything else)."""
    raw: set[bytes] = set()
    strings: set[str] = set()
    for path in files(folder):
        blob = path.read_bytes()
        if len(blob) == 32:
            raw.add(blob)
        strings.update(m.group().decode() for m in _KEYLIKE_RX.finditer(blob))
    return raw | key_material(strings)


def unwrap_all(rows: Iterable[Row], privates: Iterable[bytes]) -> set[bytes]:
    """Every data key a wrap (key_wraps rows at any commit) gives up to any of these private keys."""
    from memoryd.sync.crypto.wrap import unwrap

    privates = list(privates)
    out = set()
    for row in rows:
        if row.table != "key_wraps":
            continue
        for private in privates:
            try:
                out.add(unwrap(str(row.get("wrapped")), private, agent_id=str(row.get("agent_id")),
                               epoch=int(row.get("epoch") or 0), recipient=str(row.get("recipient"))))
            except (CryptoError, ValueError):
                continue
    return out


def recover(rows: set[Row], envs: list[Envelope], secrets: set[bytes]) -> dict[str, bytes]:
    """What an attacker holding `secrets` and sqld's files opens: the secrets as data keys, and every data key
    a wrap in the history gives up to the secrets as private keys."""
    return open_all(envs, secrets | unwrap_all(rows, secrets))


def try_open(env: Envelope, keys: Iterable[bytes]) -> bytes | None:
    """The plaintext if any key opens the envelope under any of its associated data."""
    try:
        raw = env.raw
    except (binascii.Error, ValueError):
        return None
    for key in keys:
        for agent, kind, version in env.aads:
            try:
                return open_envelope(key, raw, agent_id=agent, kind=kind, version=version)
            except CryptoError:
                continue
    return None


def open_all(envs: Iterable[Envelope], keys: Iterable[bytes]) -> dict[str, bytes]:
    """envelope text → plaintext, for every envelope some key opens."""
    keys = list(keys)
    out = {}
    for env in envs:
        plain = try_open(env, keys)
        if plain is not None:
            out[env.text] = plain
    return out
