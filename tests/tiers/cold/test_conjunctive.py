"""tiers/cold/conjunctive.py: the top rows of an OR query over common words, from AND queries, are exactly
FTS5's own (ids and scores), whichever way the search ends: settled by the bound, or handed back."""
from __future__ import annotations

import random
from typing import Any, Iterator

import pytest

from memoryd.tiers.cold import conjunctive, index_search
from memoryd.tiers.cold.index import LocalIndex
from memoryd.tiers.retrieval import analyzer

COMMON = ["alpha", "bravo", "charlie", "delta"]
MIDDLE = [f"mid{c}" for c in "abcdefgh"]
RARE = [f"zeta{i}" for i in range(400)]


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalIndex]:
    rng = random.Random(11)
    rows = []
    for i in range(4000):
        words = rng.choices(COMMON, k=rng.randint(0, 3)) + rng.choices(MIDDLE, k=rng.randint(0, 2))
        words += rng.sample(RARE, rng.randint(0, 2)) + ["filler"] * rng.randint(0, 12)
        rng.shuffle(words)
        rows.append({"id": f"r{i:05d}", "text": " ".join(words) or "filler", "category": "notes",
                     "importance": 0.5, "created_at": 1.7e9})
    ix = LocalIndex(tmp_path_factory.mktemp("conj") / "cold.db")
    ix.put("a1", rows)
    yield ix
    ix.close()


QUERIES = ["alpha bravo", "alpha bravo charlie", "alpha zeta7", "bravo charlie zeta12 zeta99", "delta mida midb",
           "alpha bravo charlie delta", "mida midb midc", "charlie zeta250 midh", "alpha bravo charlie delta mida midb"]


def full(index: LocalIndex, terms: list[str], limit: int) -> list[tuple[str, float]]:
    with index._guard() as conn:
        return [(e["id"], e["bm25"]) for e in index_search.top_any(conn, "a1", terms, [], limit)]


def runs(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Count how each conjunctive search ended (a row per search: the result, or None)."""
    ended: list[Any] = []
    real = conjunctive.TopK.run

    def run(self: conjunctive.TopK, limit: int) -> Any:
        ended.append(real(self, limit))
        return ended[-1]

    monkeypatch.setattr(conjunctive.TopK, "run", run)
    return ended


@pytest.mark.parametrize("limit,fetch", [(1, 20), (10, 20), (40, 50)])
def test_the_same_rows_and_scores_as_the_full_query(index: LocalIndex, monkeypatch: pytest.MonkeyPatch,
                                                   limit: int, fetch: int) -> None:
    monkeypatch.setattr(conjunctive, "CHEAP_POSTINGS", 0)  # a small index: take the AND route anyway
    monkeypatch.setattr(conjunctive, "FETCH", fetch)  # small fetches: cuts, refinements and give-ups happen here too
    ended = runs(monkeypatch)
    for q in QUERIES:
        terms = analyzer.query_terms(q)
        want = full(index, terms, limit)
        got = index.search("a1", terms, limit)
        assert [round(h["bm25"], 9) for h in got] == [round(s, 9) for _, s in want], q
        tied = {}  # FTS5 orders equal scores as it likes: compare the ids score by score
        for mid, s in want:
            tied.setdefault(round(s, 9), set()).add(mid)
        assert all(h["id"] in tied[round(h["bm25"], 9)] for h in got), q
    settled = [e for e in ended if e is not None]
    assert len(settled) >= 3, "the bound never settled: the test would not see the AND route at all"


def test_a_search_the_bound_cannot_settle_is_handed_to_the_full_query(index: LocalIndex,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(conjunctive, "CHEAP_POSTINGS", 0)
    monkeypatch.setattr(conjunctive, "FETCH", 2)
    monkeypatch.setattr(conjunctive, "MORE_SETS", 0)
    ended = runs(monkeypatch)
    terms = analyzer.query_terms("alpha bravo charlie delta")
    got = index.search("a1", terms, 40)
    assert ended == [None]  # two rows per AND query cannot prove a top 40
    assert [round(h["bm25"], 9) for h in got] == [round(s, 9) for _, s in full(index, terms, 40)]


def test_cheap_or_long_queries_take_the_full_query(index: LocalIndex, monkeypatch: pytest.MonkeyPatch) -> None:
    ended = runs(monkeypatch)
    index.search("a1", analyzer.query_terms("alpha bravo"), 10)  # 4,000 rows: under CHEAP_POSTINGS
    monkeypatch.setattr(conjunctive, "CHEAP_POSTINGS", 0)
    index.search("a1", analyzer.query_terms("alpha bravo charlie delta mida midb midc"), 10)  # 7 terms
    index.search("a1", analyzer.query_terms("alpha"), 10)  # one term: its own list is the answer
    index.search("a1", analyzer.query_terms("北京烤鸭"), 10)  # CJK: bigrams and their characters overlap
    assert ended == []


def test_the_bound_counts_what_a_left_out_row_could_still_score() -> None:
    """Hand-made: 'a' alone is asked and complete, the pair cut at 5.0: a row with both terms left out
    scores at most 5.0; a row with only 'b' (too common to be asked alone first) at most M(b)."""
    rows = {("a",): [(1, 9.0)], ("a", "b"): [(1, 9.0), (2, 5.0)]}
    top = conjunctive.TopK(["a", "b"], {"a": 10, "b": 9000}, 100_000, 10.0,
                           lambda s, n: rows.get(tuple(s), [])[:n], lambda ids: {})
    conjunctive.FETCH, fetch = 2, conjunctive.FETCH
    try:
        for s in top.first:
            top._ask(s)
    finally:
        conjunctive.FETCH = fetch
    bound, worst = top._bound()
    assert worst == frozenset({"b"}) and bound == pytest.approx(top.most["b"])
    assert top.asked[frozenset({"a", "b"})] == (False, 5.0) and top.asked[frozenset({"a"})] == (True, 9.0)


def test_a_set_the_bound_points_at_again_is_asked_for_more_rows(index: LocalIndex,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """A pair whose first rows all outscore what else could: its next rows are fetched (4x), not the full query."""
    monkeypatch.setattr(conjunctive, "CHEAP_POSTINGS", 0)
    monkeypatch.setattr(conjunctive, "SINGLE_MAX", 0)  # only the pairs are asked first
    monkeypatch.setattr(conjunctive, "FETCH", 3)
    fetches: list[int] = []
    real = conjunctive.TopK._ask

    def ask(self: conjunctive.TopK, s: frozenset[str]) -> None:
        real(self, s)
        fetches.append(self.fetched[s])

    monkeypatch.setattr(conjunctive.TopK, "_ask", ask)
    ended = runs(monkeypatch)
    terms = analyzer.query_terms("zeta7 zeta12")
    got = index.search("a1", terms, 10)
    assert ended and ended[-1] is not None and 12 in fetches
    assert [round(h["bm25"], 9) for h in got] == [round(s, 9) for _, s in full(index, terms, 10)]
