"""A shredding forget's scrub of the local index: after it, the index file and its WAL hold no byte of the
forgotten memory (text, or its terms in FTS5 segments), while another process keeps the file open."""
from __future__ import annotations

import sqlite3
import time
from pathlib import Path

from memoryd.daemon.engine import Engine
from memoryd.tiers.base.config import Config
from memoryd.tiers.cold.index_file import index_path
from memoryd.tiers.cold.scrub import SCRUB_MARK, scrub
from memoryd.tiers.memory.consolidate import consolidate
from memoryd.tiers.memory.forget import forget_id
from memoryd.tiers.retrieval import analyzer

SECRET = "the qqxyzzycanary vault opens with 31-7-42"
DAY = 86400.0


def raw(path: Path, needles: list[bytes]) -> dict[str, list[bytes]]:
    """Which needles each of the index's files (db, -wal) holds, read as bytes."""
    out = {}
    for p in (path, path.with_name(path.name + "-wal")):
        data = p.read_bytes() if p.exists() else b""
        out[p.name] = [n for n in needles if n in data]
    return out


def test_scrub_leaves_no_byte_of_a_forgotten_memory_in_the_index_files(config: Config) -> None:
    past = time.time() - 40 * DAY
    with Engine(config).memory("ag", clock=lambda: past) as mem:
        mem.init()
        mem.store_many([(f"filler fact {i} about the garden hose number {i}", "misc", 0.3, None) for i in range(60)])
        mid = mem.store(SECRET, "vault", 0.3)["id"]
    with Engine(config).memory("ag") as mem:
        consolidate(mem, "quick")
    path = index_path(config)
    reader = sqlite3.connect(path)  # another process with the index open (the daemon): the WAL stays
    reader.execute("SELECT COUNT(*) FROM memories").fetchall()
    terms = [t.encode() for t in analyzer.document(SECRET, "vault") if "qqxyzzy" in t]
    needles = [b"qqxyzzycanary vault", *terms]
    assert terms and any(raw(path, needles).values())
    with Engine(config).memory("ag") as mem:
        forget_id(mem, mid)
        assert any(raw(path, needles).values())  # the finding: a plain delete leaves the bytes behind
        found = {r["id"] for r in mem.retrieve("garden hose", limit=100)}
        before = time.time()
        assert scrub(mem.archive, "ag") == {"wal_busy": 0}
        assert float(mem.archive.meta(SCRUB_MARK.format(agent="ag"))) >= before
        assert not any(raw(path, needles).values()), raw(path, needles)
        assert found and {r["id"] for r in mem.retrieve("garden hose", limit=100)} == found  # the rest: as before
        assert len(mem.archive.search("ag", ["garden"], limit=100)) == 60
    reader.close()
