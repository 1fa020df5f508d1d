"""The passage a memory is embedded from (by default its own text; with NEIGHBOURS its neighbouring turns, the
bench's variant), with the real model and the real local index; and the time rule, through the real ranking."""
from __future__ import annotations

import datetime as dt
import os
import sqlite3
from pathlib import Path

import pytest

from memhelp import AgentMemory
from memoryd.tiers.base.config import load_config
from memoryd.tiers.cold.source import open_index
from memoryd.tiers.retrieval import embed, passage
from memoryd.tiers.retrieval.filters import Filters

DAY = "2025-05-28"
SESSION = ["Hugo: Welcome back! How was the trip to Florence?", "Ana: Ten days went way too fast.",
           "Hugo: " + "The museums must have been wonderful, " * 8, "Ana: Anyway, how is work going?"]
OTHER = "Ana: The staging server listens on port 8089"   # same day, another section: never a neighbour


def _config(mode: str):
    config = load_config(dict(os.environ))
    return config.with_(sections={**config.sections, "retrieval": {**config.section("retrieval"), "mode": mode}})


def _turns() -> list[dict]:
    created = int(dt.datetime(2025, 5, 28, 12, tzinfo=dt.timezone.utc).timestamp())
    rows = [(t, 10 + i, "18:15") for i, t in enumerate(SESSION)] + [(OTHER, 30, "21:00")]
    # archived out of order, as warm evicts by score: neighbours are found by session and line, not by rowid
    return [{"id": f"t{line}", "text": text, "category": "notes", "importance": 0.5, "created_at": created,
             "metadata": {"source": f"memory/{DAY}.md#L{line}", "date": DAY, "time": at}}
            for text, line, at in reversed(rows)]


def _vectors(home: Path) -> dict[str, bytes]:
    conn = sqlite3.connect(home / "cold.db")
    try:
        return {mid: bytes(vec) for mid, vec in
                conn.execute("SELECT m.id, v.vec FROM memories m JOIN vectors v ON v.rowid = m.rowid")}
    finally:
        conn.close()


@pytest.fixture
def neighbours(monkeypatch: pytest.MonkeyPatch) -> None:
    """The recipe with one neighbour on each side (off by default: measured weaker on bench/recall)."""
    monkeypatch.setattr(passage, "NEIGHBOURS", 1)


def test_a_turn_is_embedded_with_its_neighbours_and_keeps_its_own_text(home: Path, neighbours: None) -> None:
    config = _config("keyword")  # bulk ingest: no vector made on arrival
    with open_index(config) as index:
        index.put("default", _turns())
        assert index.vectors.fill("default") == len(SESSION) + 1
    vectors, model = _vectors(home), embed.load()
    cut = " ".join(SESSION[2].split())[:passage.NEIGHBOUR_CHARS - 1] + "…"
    expected = {"t11": (f"{SESSION[0]} | {SESSION[1]} | {cut}", SESSION[1]),
                "t10": (f"{SESSION[0]} | {SESSION[1]}", SESSION[0]),   # the first turn: nothing before it
                "t30": (OTHER, OTHER)}                                   # alone in its section: its own text
    for mid, (text, own) in expected.items():
        rows, scales = embed.unpack([vectors[mid]], model.dim)
        made = embed.similarities(rows, scales, model.passages([text])[0])[0]
        bare = embed.similarities(rows, scales, model.passages([own])[0])[0]
        assert made > 0.99 and (made > bare or text == own), mid   # the passage, not the bare text, was embedded
    # only the embedding sees the passage: what retrieve returns is the memory's own text
    mem = AgentMemory(_config("hybrid"), "default", archive=open_index(_config("hybrid")))
    try:
        found = mem.retrieve("how long was the Florence trip", 5)
    finally:
        mem.archive.close()
    assert {r["text"] for r in found} <= set(SESSION) | {OTHER} and SESSION[1] in {r["text"] for r in found}


def test_a_changed_recipe_remakes_the_vectors_and_never_mixes_two(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = _config("hybrid")
    with open_index(config) as index:
        index.put("default", _turns())
        assert index.vectors.counts("default") == (5, 5) and index.meta("vectors:model") == embed.signature()
    old = embed.signature()
    assert "/p1-" not in old   # the plain recipe keeps the signature vectors had before recipes: none remade
    monkeypatch.setattr(passage, "NEIGHBOURS", 1)   # another recipe (a later release)
    assert embed.signature() == old + "/p1-nd-n1x160"
    with open_index(config) as index:
        index.vectors.check_model()
        assert index.vectors.counts("default") == (0, 5)   # dropped, not mixed
        assert index.vectors.fill("default") == 5 and index.meta("vectors:model") == embed.signature()


def test_a_warm_vector_moves_to_the_index_only_when_made_from_the_same_passage(home: Path, neighbours: None) -> None:
    config = _config("hybrid")
    alone, turn = _turns()[0], _turns()[2]  # t30 has no neighbour; t12 has two
    live = dict(passage.live_items([alone, turn]))
    assert live == {"t30": OTHER, "t12": SESSION[2]}  # its neighbours are not in warm
    with open_index(config) as index:
        index.vectors.live("default", list(live.items()), embed.load)
        index.put("default", _turns())
    vectors, model = _vectors(home), embed.load()
    conn = sqlite3.connect(home / "cold.db")
    cached = dict(conn.execute("SELECT id, vec FROM live_vectors"))
    conn.close()
    assert vectors["t30"] == bytes(cached["t30"])          # the same passage: reused as it was
    assert vectors["t12"] != bytes(cached["t12"])          # with neighbours in the index: made again
    rows, scales = embed.unpack([vectors["t12"]], model.dim)
    with_them = f"{SESSION[1]} | {SESSION[2]} | {SESSION[3]}"
    assert embed.similarities(rows, scales, model.passages([with_them])[0])[0] > 0.99


def test_an_openclaw_turn_has_its_session_neighbours_in_order(neighbours: None, monkeypatch: pytest.MonkeyPatch) -> None:
    rows = [(1, "c", "2025-01-02", {"session_id": "s1", "seq": 3}), (2, "a", "2025-01-02", {"session_id": "s1", "seq": 1}),
            (3, "x", "2025-01-02", {"session_id": "s2", "seq": 2}), (4, "b", "2025-01-02", {"session_id": "s1", "seq": 2}),
            (5, "n", "2025-01-02", {})]
    found = passage.contexts(rows, {4, 5})
    assert (found[4].before, found[4].after) == (["a"], ["c"]) and (found[5].before, found[5].after) == ([], [])
    assert passage.passage("b", found[4]) == "a | b | c" and passage.passage("n", found[5]) == "n"
    monkeypatch.setattr(passage, "DATED", True)
    assert passage.passage("b", found[4]) == "2025-01-02: a | b | c"


def _ask(mem: AgentMemory, query: str) -> list[str]:
    return [r["text"] for r in mem.retrieve(query, 3)]


def test_questions_about_time_prefer_the_latest_and_a_memory_that_says_when(home: Path) -> None:
    asked = dt.datetime(2025, 11, 20, 12, tzinfo=dt.timezone.utc).timestamp()
    config = _config("keyword")
    mem = AgentMemory(config, "default", archive=open_index(config), clock=lambda: asked)
    mem.init()
    said = [("Maya works at Bluefin Logistics as a nurse", "2025-06-02"),
            ("Maya works at Orbital Foods as a data analyst", "2025-10-17"),
            ("Maya hurt her knee playing tennis yesterday", "2025-09-03"),
            ("Maya hurt her knee once and it still bothers her knee", "2025-09-10")]
    mem.archive.put("default", [
        {"id": f"m{i}", "text": t, "category": "notes", "importance": 0.5, "metadata": {"date": d},
         "created_at": int(dt.datetime.fromisoformat(d).replace(tzinfo=dt.timezone.utc).timestamp())}
        for i, (t, d) in enumerate(said)])
    try:
        plain = _ask(mem, "Maya works at")
        assert said[0][0] in plain and said[1][0] in plain  # no cue names the old job: both kept, none hidden
        assert said[0][0] in [r["text"] for r in mem.retrieve("Maya works at", 5, filters=Filters(history=True))]
        assert _ask(mem, "Where does Maya work now?")[0] == said[1][0]           # the latest
        assert _ask(mem, "Maya knee")[0] == said[3][0]                           # the plain BM25 order ...
        assert _ask(mem, "When did Maya hurt her knee?")[0] == said[2][0]        # ... and the one saying when
        top = mem.retrieve("When did Maya hurt her knee?", 1)[0]
        assert top["ranking"]["time_rule"] == pytest.approx(1.2)
    finally:
        mem.archive.close()


def test_the_default_passage_is_the_memory_itself(home: Path) -> None:
    with open_index(_config("keyword")) as index:
        index.put("default", _turns())
        assert index.vectors.fill("default") == 5
    vectors, model = _vectors(home), embed.load()
    rows, scales = embed.unpack([vectors["t11"]], model.dim)
    assert embed.similarities(rows, scales, model.passages([SESSION[1]])[0])[0] > 0.99
    assert passage.live_items(_turns()[:2]) == [("t30", OTHER), ("t13", SESSION[3])]
