"""The local index (the cold archive on every device): rows, terms, exact BM25 search, forgets, safety."""
from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any, Iterator

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from memoryd.tiers.cold.index import PAGE, LocalIndex
from memoryd.tiers.cold.index_schema import LOCAL_VERSION
from memoryd.tiers.retrieval import analyzer
from memoryd.tiers.base.errors import ArchiveError, UsageError

NOW = 1_800_000_000.0
DAY = 86400.0
HOSTILE = ["'", '"', "%", "_", "*", "NEAR(", "NEAR(a b)", "AND", "OR", "NOT", "a AND", "AND b", '"unbalanced',
           "unbalanced'", "100%", "50%_off", "x*", "^start", "col:value", "text:apple", "{text}: apple",
           "'; DROP TABLE memories; --", "\" OR 1=1 --", "') OR ('1'='1", "\\", "\\%", "(((", ")",
           "-", "+", "apple\x00pie", "🍎", "\u200b", "a" * 3000, "SELECT * FROM memories", "NEAR(苹果"]


def entry(mid: str, text: str, category: str = "notes", importance: float = 0.5, age_days: float = 1.0,
          **extra: Any) -> dict[str, Any]:
    base = dict(id=mid, text=text, category=category, importance=importance, created_at=NOW - age_days * DAY,
                access_count=0, metadata={})
    return {**base, **extra}


def find(index: LocalIndex, agent: str, query: str, limit: int = 10) -> list[dict[str, Any]]:
    return index.search(agent, analyzer.query_terms(query), limit)


@pytest.fixture
def index(tmp_path: Path) -> Iterator[LocalIndex]:
    ix = LocalIndex(tmp_path / "cold.db", clock=lambda: NOW)
    yield ix
    ix.close()


SAMPLE = [
    entry("e1", "I love eating apples in the morning", "food/fruit", 0.8),
    entry("e2", "我喜欢吃苹果和香蕉", "食物/水果", 0.6),
    entry("e3", "Database migration to libSQL uses an FTS5 index", "projects/memoryd", 0.9),
    entry("e4", "東京の天気は晴れです", "travel/japan", 0.5),
    entry("e5", "It's 100% done; \"quoted\" NEAR(x) AND y * z", "misc", 0.3),
    entry("e6", "Run `pip install -e .` then pytest -q", "projects/memoryd/howto", 0.7,
          metadata={"commands": ["pip install -e ."]}),
]


def test_put_get_roundtrip_and_idempotent(index: LocalIndex) -> None:
    assert index.put("a1", SAMPLE) == len(SAMPLE)
    assert index.put("a1", SAMPLE) == 0  # a repeat insert (crash between insert and warm removal) is harmless
    assert index.count("a1") == len(SAMPLE)
    got = index.get("a1", ["e6", "missing", "e2"])
    assert [g["id"] for g in got] == ["e6", "e2"]
    assert got[0]["metadata"] == {"commands": ["pip install -e ."]}
    assert got[1]["text"] == "我喜欢吃苹果和香蕉" and got[1]["category"] == "食物/水果"
    assert got[1]["created_at"] == int(NOW - DAY) and got[1]["importance"] == 0.6
    assert [h["id"] for h in find(index, "a1", "apples")] == ["e1"]  # the terms index holds no duplicates


def test_put_replaces_by_id_and_reindexes(index: LocalIndex) -> None:
    index.put("a1", [entry("x", "old wording about pears")])
    index.put("a1", [entry("x", "new wording about plums", importance=0.9)])
    assert find(index, "a1", "pears") == []
    assert [h["id"] for h in find(index, "a1", "plums")] == ["x"]
    assert index.get("a1", ["x"])[0]["importance"] == 0.9
    assert index.term_stats("a1", ["plum", "pear"]) == (1, len(analyzer.document("new wording about plums", "notes")),
                                                       {"plum": 1})


def test_the_same_id_twice_in_one_put_is_two_puts_in_a_row(tmp_path: Path) -> None:
    """put() looks existing rows up once per call: a later copy in the same call must see the earlier one."""
    plums = entry("x", "new wording about plums", importance=0.9)
    copies = [entry("x", "old wording about pears"), entry("y", "a neighbour"), plums, dict(plums, access_count=3)]
    one, each = LocalIndex(tmp_path / "one.db", clock=lambda: NOW), LocalIndex(tmp_path / "each.db", clock=lambda: NOW)
    try:
        assert one.put("a1", copies) == sum(each.put("a1", [c]) for c in copies) == 3
        for ix in (one, each):
            assert find(ix, "a1", "pears") == [] and [h["id"] for h in find(ix, "a1", "plums")] == ["x"]
        rows = "SELECT rowid, id, text, importance, access_count FROM memories ORDER BY rowid"
        assert one.read(rows, []) == each.read(rows, []) and len(one.read(rows, [])) == 2
        stats = one.term_stats("a1", ["plum", "pear", "neighbour"])
        assert stats == each.term_stats("a1", ["plum", "pear", "neighbour"]) and stats[2] == {"plum": 1, "neighbour": 1}
    finally:
        one.close()
        each.close()


def test_agents_are_isolated_even_with_same_ids(index: LocalIndex) -> None:
    index.put("a1", [entry("same", "shared secret recipe")])
    index.put("a2", [entry("same", "shared secret recipe", importance=0.1)])
    assert index.count("a1") == index.count("a2") == 1
    index.delete_ids("a2", ["same"])
    assert index.count("a2") == 0 and index.count("a1") == 1
    assert find(index, "a2", "recipe") == []
    assert [h["id"] for h in find(index, "a1", "recipe")] == ["same"]
    assert index.term_stats("a1", ["recip"])[2] == {"recip": 1}  # statistics are each agent's own


def test_bad_entries_write_nothing(index: LocalIndex) -> None:
    good = entry("ok", "fine entry")
    for bad in ({"id": "b"}, dict(good, id=""), dict(good, created_at="soon"), dict(good, metadata=[1]),
                dict(good, importance=float("nan"))):
        with pytest.raises(UsageError):
            index.put("a1", [good, bad])
    assert index.count("a1") == 0
    for call in (lambda: index.count("../etc"), lambda: index.search('x"; DROP', ["a"]),
                 lambda: index.put("a b", [good])):
        with pytest.raises(UsageError):
            call()


@pytest.mark.parametrize("query, expected", [
    ("apples", "e1"), ("APPLES morning", "e1"), ("apple", "e1"), ("苹果", "e2"), ("香蕉", "e2"), ("喜欢吃苹果", "e2"),
    ("我很喜欢吃苹果", "e2"), ("天気", "e4"), ("東京の天気", "e4"), ("migrations", "e3"), ("migrating", "e3"),
    ("libsql", "e3"), ("howto", "e6"), ("pip install", "e6"), ("fruit", "e1"), ("水果", "e2"),
])
def test_search_stems_cjk_and_categories(index: LocalIndex, query: str, expected: str) -> None:
    index.put("a1", SAMPLE)
    hits = find(index, "a1", query)
    assert hits and hits[0]["id"] == expected
    assert hits == sorted(hits, key=lambda h: -h["bm25"]) and all(h["bm25"] > 0 for h in hits)


@pytest.mark.parametrize("query", HOSTILE)
def test_hostile_queries_never_error(index: LocalIndex, query: str) -> None:
    index.put("a1", SAMPLE)
    assert isinstance(find(index, "a1", query), list)
    assert isinstance(index.search("a1", [query, '"', "*"]), list)  # raw strings as terms: still plain text
    assert index.count("a1") == len(SAMPLE)  # and nothing was dropped or injected


def test_hostile_text_is_found_literally(index: LocalIndex) -> None:
    index.put("a1", SAMPLE)
    for q in ("NEAR(x)", "100%", '"quoted"', "done; AND"):
        assert find(index, "a1", q)[0]["id"] == "e5", q


def test_exact_bm25_has_no_newest_n_cut(index: LocalIndex) -> None:
    """An old memory holding the rare word is found, however many newer ones share the common word."""
    index.put("a1", [entry("rare", "the quarterly report mentions zanzibar", age_days=900)])
    index.put("a1", [entry(f"n{i}", f"quarterly report number {i}", age_days=i / 100) for i in range(3000)])
    hits = find(index, "a1", "quarterly report zanzibar", limit=3)
    assert hits[0]["id"] == "rare"


def test_limit_and_empty_queries(index: LocalIndex) -> None:
    index.put("a1", [entry(f"n{i}", f"note number {i} about rust") for i in range(30)])
    assert len(find(index, "a1", "rust", limit=7)) == 7
    assert find(index, "a1", "") == find(index, "a1", "   ") == find(index, "a1", "!!!") == []
    assert find(index, "nobody", "rust") == []


def test_touch_counts_access(index: LocalIndex) -> None:
    index.put("a1", SAMPLE)
    index.touch("a1", ["e1", "e1", "e3", "nope"])
    index.touch("a1", ["e1"])
    got = {g["id"]: g for g in index.get("a1", ["e1", "e3", "e2"])}
    assert (got["e1"]["access_count"], got["e3"]["access_count"], got["e2"]["access_count"]) == (2, 1, 0)
    assert got["e1"]["last_access"] == int(NOW)
    assert find(index, "a1", "apples")[0]["id"] == "e1"  # touching does not disturb the index


def test_counts_categories_and_dates(index: LocalIndex) -> None:
    index.put("a1", SAMPLE + [entry("e7", "another fruit fact", "food/fruit", metadata={"date": "2025-05-07"})])
    assert index.count("a1") == 7
    assert index.category_counts("a1")["food/fruit"] == 2
    assert sum(index.category_counts("a1").values()) == 7
    assert index.category_counts("nobody") == {} and index.count("nobody") == 0
    may = index.dated("a1", 1746576000.0, 1746662400.0)  # 2025-05-07 (UTC), a note's own date
    assert [e["id"] for e in may] == ["e7"] and may[0]["day"] == "2025-05-07"


def test_forget_removes_terms_and_keeps_stale_copies_out(index: LocalIndex) -> None:
    index.put("a1", SAMPLE)
    assert index.delete_ids("a1", ["e1", "e2", "ghost"]) == 2
    assert index.delete_ids("a1", ["e1"]) == 0
    assert find(index, "a1", "apples") == [] and find(index, "a1", "苹果") == []
    assert index.count("a1") == len(SAMPLE) - 2
    assert index.put("a1", [SAMPLE[0]]) == 0  # an older copy (another device, a crash) stays forgotten
    assert index.put("a1", [dict(SAMPLE[0], created_at=NOW + 10)]) == 1  # stored anew after the forget
    assert [h["id"] for h in find(index, "a1", "apples")] == ["e1"]


def test_delete_created_between(index: LocalIndex) -> None:
    index.put("a1", [entry(f"d{i}", f"day {i} memo", age_days=i) for i in range(10)])
    gone = index.delete_created_between("a1", NOW - 5 * DAY, NOW - 2 * DAY)  # start <= created_at < end
    assert gone == ["d3", "d4", "d5"]
    assert index.count("a1") == 7
    assert all(h["id"] not in gone for h in find(index, "a1", "memo", 50)) and len(find(index, "a1", "memo", 50)) == 7


def test_iter_entries_pages_in_id_order(index: LocalIndex) -> None:
    n = PAGE * 2 + 17
    batch = [entry(f"{i:05d}", f"bulk memory {i}") for i in range(n)]
    index.put("a1", batch)
    index.put("a2", batch[:3])
    ids = [e["id"] for e in index.iter_entries("a1")]
    assert ids == sorted(b["id"] for b in batch)
    assert [e["id"] for e in index.iter_entries("nobody")] == []


def test_put_is_atomic_on_database_failure(index: LocalIndex, tmp_path: Path) -> None:
    index.put("a1", [entry("keep", "kept text")])
    with index.tx() as conn:
        conn.execute("CREATE TRIGGER refuse BEFORE INSERT ON memories WHEN new.text = 'poison' "
                     "BEGIN SELECT RAISE(ABORT, 'refused'); END")
    with pytest.raises(ArchiveError):
        index.put("a1", [entry(f"p{i}", f"fine {i}") for i in range(250)] + [entry("bad", "poison")])
    assert index.count("a1") == 1 and find(index, "a1", "fine") == []


def test_newer_local_schema_is_refused(tmp_path: Path) -> None:
    LocalIndex(tmp_path / "c.db").close()
    conn = sqlite3.connect(tmp_path / "c.db")
    conn.execute(f"PRAGMA user_version={LOCAL_VERSION + 1}")
    conn.close()
    with pytest.raises(ArchiveError, match="newer than this memoryd"):
        LocalIndex(tmp_path / "c.db")


def test_a_v4_index_gains_the_restatement_column_and_queues_arrivals_without_a_trigger(tmp_path: Path) -> None:
    """v4 indexed the restatement key as an expression over the metadata and queued arrivals by a trigger;
    opened by v5, the rows held keep their keys (a lookup by key finds them) and a put still queues."""
    ix = LocalIndex(tmp_path / "c.db", clock=lambda: NOW)
    ix.put("a1", [entry("k1", "The gate code is on the fridge", metadata={"restate_key": "key-one"}),
                  entry("k2", "No key for this one")])
    ix.close()
    conn = sqlite3.connect(tmp_path / "c.db")  # back to what v4 held
    conn.execute("DROP INDEX memories_restate_key")
    conn.execute("ALTER TABLE memories DROP COLUMN restate")
    conn.execute("CREATE INDEX memories_restate ON memories(agent_id, (CASE WHEN json_valid(metadata) THEN "
                 "json_extract(metadata, '$.restate_key') END))")
    conn.execute("CREATE TRIGGER entity_q_put AFTER INSERT ON memories BEGIN "
                 "INSERT OR IGNORE INTO entity_queue VALUES (new.agent_id, new.id); END")
    conn.execute("DELETE FROM entity_queue")
    conn.execute("PRAGMA user_version=4")
    conn.commit()
    conn.close()
    ix = LocalIndex(tmp_path / "c.db", clock=lambda: NOW)
    try:
        assert ix.read("PRAGMA user_version") == [(LOCAL_VERSION,)]
        assert [m["id"] for m in ix.by_restate_key("a1", ["key-one"])] == ["k1"]
        assert ix.read("SELECT name FROM sqlite_master WHERE name IN ('entity_q_put', 'memories_restate')") == []
        ix.put("a1", [entry("k3", "The gate code changed", metadata={"restate_key": "key-three"})])
        assert [m["id"] for m in ix.by_restate_key("a1", ["key-three", "key-one"])] in (["k1", "k3"], ["k3", "k1"])
        assert ix.read("SELECT id FROM entity_queue") == [("k3",)]  # queued by the put, not by the old trigger
    finally:
        ix.close()


def test_file_is_private(index: LocalIndex) -> None:
    index.put("a1", SAMPLE)
    assert (index.path.stat().st_mode & 0o777) == 0o600


@pytest.fixture(scope="module")
def prop_index(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalIndex]:
    ix = LocalIndex(tmp_path_factory.mktemp("prop") / "cold.db", clock=lambda: NOW)
    ix.put("p", SAMPLE)
    yield ix
    ix.close()


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.text(max_size=80))
def test_any_query_is_safe(prop_index: LocalIndex, query: str) -> None:
    assert all(h["bm25"] > 0 for h in find(prop_index, "p", query))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.text(st.characters(blacklist_categories=("Cn", "Cs", "Co", "Cc")), min_size=1, max_size=12))
@example("ᬆ")    # a letter whose NFKD form ends in a spacing mark (ᬅ + ᬵ): FTS5 splits words at marks
@example("ᬆᬓ")
def test_stored_text_is_found_by_itself(prop_index: LocalIndex, query: str) -> None:
    """Whatever text is archived, searching for that text finds it (stems, CJK, punctuation)."""
    prop_index.put("self", [entry("t", f"{query}")])
    try:
        if analyzer.query_terms(query):
            assert [h["id"] for h in find(prop_index, "self", query)] == ["t"]
        else:
            assert find(prop_index, "self", query) == []
    finally:
        prop_index.forget("self", ["t"])
        with prop_index.tx() as conn:
            conn.execute("DELETE FROM tombstones WHERE agent_id = 'self'")


def test_search_is_driven_by_the_terms_index(index: LocalIndex) -> None:
    """Speed lives in bench/bench_cold.py; here: the plan starts at the terms index, never a table scan."""
    index.put("s", SAMPLE)
    table = '"terms:s"'
    plan = [r[-1] for r in index.read(
        f"EXPLAIN QUERY PLAN SELECT m.id FROM (SELECT rowid, rank FROM {table} WHERE {table} MATCH ? ORDER BY rank "
        "LIMIT 10) r CROSS JOIN memories m ON m.rowid = r.rowid", ['"appl"'])]
    assert plan and not [p for p in plan if p.startswith("SCAN m") or p.startswith("SCAN memories")], plan


def test_terms_stay_consistent_with_the_rows(index: LocalIndex) -> None:
    index.put("a1", SAMPLE)
    index.put("a1", [dict(SAMPLE[0], text="rewritten apple text"), dict(SAMPLE[1], category="新/分类")])
    index.touch("a1", ["e3", "e4"])
    index.delete_ids("a1", ["e5"])
    index.delete_created_between("a1", NOW - 1.5 * DAY, NOW)
    index.put("a2", SAMPLE[:2])
    rows = list(index.iter_entries("a1"))
    docs, n_terms, _ = index.term_stats("a1", [])
    assert docs == len(rows) == index.read("SELECT COUNT(*) FROM \"terms:a1\"")[0][0]
    assert n_terms == sum(len(analyzer.document(r["text"], r["category"])) for r in rows)
    index.rebuild("a1")  # the same statistics from scratch
    assert index.term_stats("a1", [])[:2] == (docs, n_terms)
    with index.tx() as conn:
        conn.execute("INSERT INTO \"terms:a1\"(\"terms:a1\", rank) VALUES ('integrity-check', 0)")


def test_round_one_archive_migrates_in_place(tmp_path: Path) -> None:
    """A round-1 `file:` database (plaintext word + trigram indexes) becomes the local index, in place."""
    path = tmp_path / "cold.db"
    conn = sqlite3.connect(path)
    conn.executescript("""
        CREATE TABLE cold_memories (agent_id TEXT NOT NULL, id TEXT NOT NULL, text TEXT NOT NULL,
          category TEXT NOT NULL, importance REAL, created_at INTEGER NOT NULL, access_count INTEGER NOT NULL DEFAULT 0,
          last_access INTEGER, metadata TEXT, grams TEXT NOT NULL DEFAULT '', PRIMARY KEY (agent_id, id));
        CREATE VIRTUAL TABLE cold_fts USING fts5(text, category, grams, content='cold_memories', content_rowid='rowid');
        CREATE VIRTUAL TABLE cold_trigram USING fts5(text, category, content='cold_memories', content_rowid='rowid',
          tokenize='trigram');
        CREATE TRIGGER cold_ai AFTER INSERT ON cold_memories BEGIN
          INSERT INTO cold_fts(rowid, text, category, grams) VALUES (new.rowid, new.text, new.category, new.grams);
        END;
        CREATE TABLE critical_state (agent_id TEXT PRIMARY KEY, data TEXT NOT NULL, version INTEGER NOT NULL,
          device_id TEXT NOT NULL, updated_at INTEGER NOT NULL);
    """)
    conn.executemany("INSERT INTO cold_memories (agent_id, id, text, category, importance, created_at, metadata) "
                     "VALUES (?, ?, ?, ?, 0.5, ?, ?)",
                     [("a", "m1", "painted the fence green", "home", NOW, '{"date": "2024-03-01"}'),
                      ("a", "m2", "北京烤鸭", "food", NOW, "not json"), ("b", "m1", "other agent", "x", NOW, None)])
    conn.execute("INSERT INTO critical_state VALUES ('a', 'sealed', 3, 'd', 0)")
    conn.commit()
    conn.close()
    ix = LocalIndex(path)
    try:
        assert ix.count("a") == 2 and ix.count("b") == 1
        assert [h["id"] for h in find(ix, "a", "paint")] == ["m1"] and [h["id"] for h in find(ix, "a", "烤鸭")] == ["m2"]
        assert ix.get("a", ["m1"])[0]["day"] == "2024-03-01"
        names = {r[0] for r in ix.read("SELECT name FROM sqlite_master")}
        assert not names & {"cold_memories", "cold_fts", "cold_trigram", "cold_ai"}
        assert ix.read("SELECT version FROM critical_state") == [(3,)]  # the critical state is left alone
    finally:
        ix.close()
