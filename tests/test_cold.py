"""sync.cold: the Archive suite, run against file:, sqld over http and sqld over ws."""
from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memoryd.sync.cold import PAGE, LibsqlArchive, open_archive
from memoryd.sync.db import connect
from memoryd.tiers.config import Config
from memoryd.tiers.errors import ArchiveError, UsageError

NOW = 1_800_000_000.0
DAY = 86400.0
HOSTILE = ["'", '"', "%", "_", "*", "NEAR(", "NEAR(a b)", "AND", "OR", "NOT", "a AND", "AND b", '"unbalanced',
           "unbalanced'", "100%", "50%_off", "x*", "^start", "col:value", "text:apple", "{text}: apple",
           "'; DROP TABLE cold_memories; --", "\" OR 1=1 --", "') OR ('1'='1", "\\", "\\%", "(((", ")",
           "-", "+", "apple\x00pie", "🍎", "\u200b", "a" * 3000, "SELECT * FROM cold_memories", "NEAR(苹果"]


def entry(mid: str, text: str, category: str = "notes", importance: float = 0.5, age_days: float = 1.0,
          **extra: Any) -> dict[str, Any]:
    base = dict(id=mid, text=text, category=category, importance=importance, created_at=NOW - age_days * DAY,
                access_count=0, metadata={})
    return {**base, **extra}


@pytest.fixture
def archive(db_url: str, tmp_path: Path) -> Iterator[LibsqlArchive]:
    arc = open_archive(Config(home=tmp_path / "home", db_url=db_url), clock=lambda: NOW)
    yield arc
    arc.close()


SAMPLE = [
    entry("e1", "I love eating apples in the morning", "food/fruit", 0.8),
    entry("e2", "我喜欢吃苹果和香蕉", "食物/水果", 0.6),
    entry("e3", "Database migration to libSQL uses an FTS5 trigram index", "projects/memoryd", 0.9),
    entry("e4", "東京の天気は晴れです", "travel/japan", 0.5),
    entry("e5", "It's 100% done; \"quoted\" NEAR(x) AND y * z", "misc", 0.3),
    entry("e6", "Run `pip install -e .` then pytest -q", "projects/memoryd/howto", 0.7,
          metadata={"commands": ["pip install -e ."]}),
]


def test_put_get_roundtrip_and_idempotent(archive: LibsqlArchive) -> None:
    archive.put("a1", SAMPLE)
    archive.put("a1", SAMPLE)  # a repeat insert (crash between insert and warm removal) is harmless
    assert archive.count("a1") == len(SAMPLE)
    got = archive.get("a1", ["e6", "missing", "e2"])
    assert [g["id"] for g in got] == ["e6", "e2"]
    assert got[0]["metadata"] == {"commands": ["pip install -e ."]}
    assert got[1]["text"] == "我喜欢吃苹果和香蕉" and got[1]["category"] == "食物/水果"
    assert got[1]["created_at"] == int(NOW - DAY) and got[1]["importance"] == 0.6
    assert archive.search("a1", "apples")[0]["id"] == "e1"
    assert len(archive.search("a1", "apples")) == 1  # the FTS index holds no duplicates


def test_put_replaces_by_id_and_reindexes(archive: LibsqlArchive) -> None:
    archive.put("a1", [entry("x", "old wording about pears")])
    archive.put("a1", [entry("x", "new wording about plums", importance=0.9)])
    assert archive.search("a1", "pears") == []
    assert [h["id"] for h in archive.search("a1", "plums")] == ["x"]
    assert archive.get("a1", ["x"])[0]["importance"] == 0.9


def test_agents_are_isolated_even_with_same_ids(archive: LibsqlArchive) -> None:
    archive.put("a1", [entry("same", "shared secret recipe")])
    archive.put("a2", [entry("same", "shared secret recipe", importance=0.1)])
    assert archive.count("a1") == archive.count("a2") == 1
    archive.delete_ids("a2", ["same"])
    assert archive.count("a2") == 0 and archive.count("a1") == 1
    assert archive.search("a2", "recipe") == []
    assert [h["id"] for h in archive.search("a1", "recipe")] == ["same"]


def test_bad_entries_write_nothing(archive: LibsqlArchive) -> None:
    good = entry("ok", "fine entry")
    for bad in ({"id": "b"}, dict(good, id=""), dict(good, created_at="soon"), dict(good, metadata=[1]),
                dict(good, importance=float("nan"))):
        with pytest.raises(UsageError):
            archive.put("a1", [good, bad])
    assert archive.count("a1") == 0
    with pytest.raises(UsageError):
        archive.count("../etc")


@pytest.mark.parametrize("query, expected", [
    ("apples", "e1"), ("APPLES morning", "e1"), ("苹果", "e2"), ("香蕉", "e2"), ("喜欢吃苹果", "e2"),
    ("我很喜欢吃苹果", "e2"), ("天気", "e4"), ("東京の天気", "e4"), ("migra", "e3"), ("trigram", "e3"),
    ("libsql", "e3"), ("howto", "e6"), ("pip install", "e6"), ("fruit", "e1"), ("水果", "e2"),
])
def test_search_words_cjk_substrings_categories(archive: LibsqlArchive, query: str, expected: str) -> None:
    archive.put("a1", SAMPLE)
    hits = archive.search("a1", query)
    assert hits and hits[0]["id"] == expected
    assert all(0.0 < h["relevance"] <= 1.0 for h in hits)
    assert hits == sorted(hits, key=lambda h: -h["relevance"])


@pytest.mark.parametrize("query", HOSTILE)
def test_hostile_queries_never_error(archive: LibsqlArchive, query: str) -> None:
    archive.put("a1", SAMPLE)
    hits = archive.search("a1", query)
    assert isinstance(hits, list)
    assert archive.count("a1") == len(SAMPLE)  # and nothing was dropped or injected


def test_hostile_text_is_found_literally(archive: LibsqlArchive) -> None:
    archive.put("a1", SAMPLE)
    for q in ("NEAR(x)", "100%", "It's", '"quoted"', "AND y"):
        assert archive.search("a1", q)[0]["id"] == "e5", q


def test_ranking_blends_bm25_with_memory_score(archive: LibsqlArchive) -> None:
    archive.put("a1", [
        entry("old", "kubernetes cluster upgrade notes", importance=0.2, age_days=400),
        entry("new", "kubernetes cluster upgrade notes", importance=0.9, age_days=1),
        entry("weak", "notes about gardening", importance=1.0, age_days=0),
    ])
    hits = archive.search("a1", "kubernetes upgrade")
    assert [h["id"] for h in hits[:2]] == ["new", "old"]
    assert hits[0]["relevance"] > hits[1]["relevance"]
    assert "weak" not in [h["id"] for h in hits]


def test_limit_and_empty_queries(archive: LibsqlArchive) -> None:
    archive.put("a1", [entry(f"n{i}", f"note number {i} about rust") for i in range(30)])
    assert len(archive.search("a1", "rust", limit=7)) == 7
    assert archive.search("a1", "") == archive.search("a1", "   ") == archive.search("a1", "!!!") == []


def test_touch_counts_access(archive: LibsqlArchive) -> None:
    archive.put("a1", SAMPLE)
    archive.touch("a1", ["e1", "e1", "e3", "nope"])
    archive.touch("a1", ["e1"])
    got = {g["id"]: g for g in archive.get("a1", ["e1", "e3", "e2"])}
    assert (got["e1"]["access_count"], got["e3"]["access_count"], got["e2"]["access_count"]) == (2, 1, 0)
    assert got["e1"]["last_access"] == int(NOW)
    assert archive.search("a1", "apples")[0]["id"] == "e1"  # touching does not disturb the index


def test_counts_and_categories(archive: LibsqlArchive) -> None:
    archive.put("a1", SAMPLE + [entry("e7", "another fruit fact", "food/fruit")])
    assert archive.count("a1") == 7
    assert archive.category_counts("a1")["food/fruit"] == 2
    assert sum(archive.category_counts("a1").values()) == 7
    assert archive.category_counts("nobody") == {} and archive.count("nobody") == 0


def test_delete_ids_removes_from_fts(archive: LibsqlArchive) -> None:
    archive.put("a1", SAMPLE)
    assert archive.delete_ids("a1", ["e1", "e2", "ghost"]) == 2
    assert archive.delete_ids("a1", ["e1"]) == 0
    assert archive.search("a1", "apples") == [] and archive.search("a1", "苹果") == []
    assert archive.count("a1") == len(SAMPLE) - 2


def test_delete_created_between(archive: LibsqlArchive) -> None:
    archive.put("a1", [entry(f"d{i}", f"day {i} memo", age_days=i) for i in range(10)])
    gone = archive.delete_created_between("a1", NOW - 5 * DAY, NOW - 2 * DAY)  # start <= created_at < end
    assert gone == ["d3", "d4", "d5"]
    assert archive.count("a1") == 7
    assert archive.search("a1", "memo", limit=50) and all(h["id"] not in gone for h in archive.search("a1", "memo", 50))


def test_iter_entries_pages_in_id_order(archive: LibsqlArchive) -> None:
    n = PAGE * 2 + 17
    batch = [entry(f"{i:05d}", f"bulk memory {i}") for i in range(n)]
    archive.put("a1", batch)
    archive.put("a2", batch[:3])
    ids = [e["id"] for e in archive.iter_entries("a1")]
    assert ids == sorted(b["id"] for b in batch)
    assert [e["id"] for e in archive.iter_entries("nobody")] == []


def test_put_is_atomic_on_database_failure(archive: LibsqlArchive) -> None:
    archive.put("a1", [entry("keep", "kept text")])
    archive.db.execute(
        "CREATE TRIGGER refuse BEFORE INSERT ON cold_memories WHEN new.text = 'poison' "
        "BEGIN SELECT RAISE(ABORT, 'refused'); END")
    with pytest.raises(ArchiveError):
        archive.put("a1", [entry(f"p{i}", f"fine {i}") for i in range(250)] + [entry("bad", "poison")])
    assert archive.count("a1") == 1


def test_open_archive_rejects_newer_schema(db_url: str, tmp_path: Path) -> None:
    config = Config(home=tmp_path / "home", db_url=db_url)
    open_archive(config).close()
    db = connect(config)
    db.execute("INSERT INTO schema_meta (version, applied_at) VALUES (99, 0)")
    db.close()
    with pytest.raises(ArchiveError, match="newer than this memoryd"):
        open_archive(config)


@pytest.fixture(scope="module")
def file_archive(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LibsqlArchive]:
    home = tmp_path_factory.mktemp("prop")
    arc = open_archive(Config(home=home, db_url=f"file:{home / 'cold.db'}"), clock=lambda: NOW)
    arc.put("p", SAMPLE)
    yield arc
    arc.close()


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.text(max_size=80))
def test_any_query_is_safe(file_archive: LibsqlArchive, query: str) -> None:
    hits = file_archive.search("p", query)
    assert all(0 < h["relevance"] <= 1 for h in hits)


@settings(max_examples=150, deadline=None)
@given(st.text(st.characters(blacklist_categories=("Cn", "Cs", "Co", "Cc")), min_size=3, max_size=12)
       .filter(lambda s: s.strip() == s and len(s.strip()) >= 3))
def test_stored_text_is_found_by_itself(query: str) -> None:
    """Whatever text is archived, searching for that text finds it (tokens, CJK, punctuation)."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        arc = open_archive(Config(home=Path(tmp), db_url=f"file:{tmp}/c.db"))
        try:
            arc.put("p", [entry("t", f"prefix {query} suffix")])
            from memoryd.sync import fts

            if not fts.plan(query):
                assert arc.search("p", query) == []
            else:
                assert [h["id"] for h in arc.search("p", query)] == ["t"]
        finally:
            arc.close()


@pytest.mark.parametrize("query", ["record 4242", "记录", "migra", "北京烤鸭"])
@pytest.mark.parametrize("partial", [False, True])
def test_search_never_scans_the_table(tmp_path: Path, query: str, partial: bool) -> None:
    """Speed lives in bench/bench_cold.py; here: the plan goes through the FTS indexes, never a full scan."""
    from memoryd.sync import fts
    from memoryd.sync.cold import _search_sql

    arc = open_archive(Config(home=tmp_path, db_url=f"file:{tmp_path / 'c.db'}"), clock=lambda: NOW)
    try:
        sql, args = _search_sql(fts.plan(query, partial=partial), "s", 30)
        plan = [row[-1] for row in arc.db.execute("EXPLAIN QUERY PLAN " + sql, args).rows]
    finally:
        arc.close()
    full_scans = [p for p in plan if p.startswith(("SCAN m", "SCAN cold_memories"))]
    assert plan and not full_scans, plan


@pytest.mark.parametrize("kind", ["http", "ws"])
def test_outage_then_retry_loses_nothing_and_duplicates_nothing(killable_sqld: Any, tmp_path: Path, kind: str) -> None:
    from memoryd.tiers.errors import RemoteError

    killable_sqld.start()
    killable_sqld.wipe()
    url = killable_sqld.http_url if kind == "http" else killable_sqld.ws_url
    arc = open_archive(Config(home=tmp_path, db_url=url, sections={"db": {"timeout": 3, "connect_timeout": 2}}))
    try:
        first = [entry(f"o{i}", f"outage fact {i}") for i in range(50)]
        arc.put("a1", first)
        killable_sqld.kill()  # the server dies between two archive runs
        second = [entry(f"o{i}", f"outage fact {i}") for i in range(40, 120)]
        with pytest.raises(RemoteError) as err:
            arc.put("a1", second)
        assert err.value.transient
        with pytest.raises(RemoteError):
            arc.search("a1", "outage")
        killable_sqld.start()
        arc.put("a1", second)  # the retry, overlapping what was already stored
        assert arc.count("a1") == 120
        assert sorted(e["id"] for e in arc.iter_entries("a1")) == sorted(f"o{i}" for i in range(120))
        assert len(arc.search("a1", "fact 77", limit=200)) >= 1
    finally:
        arc.close()


def test_lazy_archive_opens_while_server_is_down(killable_sqld: Any, tmp_path: Path) -> None:
    from memoryd.tiers.errors import RemoteError

    killable_sqld.start()
    killable_sqld.wipe()
    killable_sqld.kill()
    for url in (killable_sqld.http_url, killable_sqld.ws_url):
        arc = open_archive(Config(home=tmp_path, db_url=url, sections={"db": {"timeout": 2, "connect_timeout": 1}}),
                           lazy=True)
        try:
            with pytest.raises(RemoteError):
                arc.count("a1")
            killable_sqld.start()
            arc.put("a1", [entry("lz", "lazy entry")])  # migrates on first successful use
            assert arc.count("a1") == 1
            killable_sqld.wipe()
            killable_sqld.kill()
        finally:
            arc.close()
    killable_sqld.start()


def test_fts_indexes_stay_consistent_with_the_table(archive: LibsqlArchive) -> None:
    archive.put("a1", SAMPLE)
    archive.put("a1", [dict(SAMPLE[0], text="rewritten apple text"), dict(SAMPLE[1], category="新/分类")])
    archive.touch("a1", ["e3", "e4"])
    archive.delete_ids("a1", ["e5"])
    archive.delete_created_between("a1", NOW - 1.5 * DAY, NOW)
    archive.put("a2", SAMPLE[:2])
    for table in ("cold_fts", "cold_trigram"):
        # FTS5 compares the external-content index with cold_memories row by row (raises if not).
        archive.db.execute(f"INSERT INTO {table}({table}, rank) VALUES ('integrity-check', 1)")
    assert archive.search("a1", "rewritten") == [] or archive.search("a1", "rewritten")[0]["id"] == "e1"
