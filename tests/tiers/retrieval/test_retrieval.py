"""Retrieval v1: keyword + CJK tokens, tree path scoring, result fields, reinforcement, cold search."""
from __future__ import annotations

import pytest

from memoryd.tiers.memory import hot as H
from memhelp import AgentMemory, memory_with_said
from memoryd.tiers.memory.consolidate import consolidate
from memoryd.tiers.base.errors import MemorydError, UsageError
from memoryd.tiers.memory.model import DAY
from memoryd.tiers.retrieval import analyzer
from memoryd.tiers.retrieval.candidate import Candidate
from memoryd.tiers.retrieval.ranking import Corpus, local_corpus, rank
from memoryd.tiers.retrieval.filters import score_paths
from clock import Clock


@pytest.fixture(autouse=True)
def keyword_mode(monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests pin keyword mode's exact answers (hybrid also returns the nearest in meaning:
    tests/tiers/retrieval/test_hybrid.py)."""
    monkeypatch.setenv("MEMORYD_RETRIEVAL_MODE", "keyword")


def test_analyzer_english_and_cjk() -> None:
    assert analyzer.query_terms("The Quick, brown foxes!") == ["quick", "brown", "fox"]
    assert analyzer.query_terms("Caroline's painting") == ["carolin", "paint"]  # possessive cut, stems meet
    assert analyzer.query_terms("painted") == analyzer.query_terms("paints") == ["paint"]
    t = set(analyzer.terms("我喜欢北京烤鸭"))
    assert {"北京", "烤鸭", "北", "鸭"} <= t
    assert {"beij", "烤鸭", "去"} <= set(analyzer.terms("去Beijing吃烤鸭"))
    assert analyzer.terms("Café naïve") == analyzer.terms("cafe naive")


@pytest.mark.parametrize("query, kept, dropped", [
    ("阿岚而家點樣返工？", {"阿岚", "返工"}, {"而家", "點樣", "岚而", "家點", "樣返"}),  # Cantonese, traditional
    ("苏禾公司现在在哪家银行开户？", {"苏禾", "公司", "银行", "开户"}, {"现在", "哪家", "司现", "家银"}),
    ("温室的排班归谁管？", {"温室", "排班"}, {"谁", "归谁", "谁管"}),
])
def test_a_chinese_querys_words_of_asking_and_of_now_are_no_terms(query: str, kept: set, dropped: set) -> None:
    """As English stop words (what, now, who) are dropped: the word and the bigrams across it found every line
    that says "now" beside the same name."""
    terms = set(analyzer.query_terms(query))
    assert kept <= terms and not dropped & terms
    assert "而家" in analyzer.terms("阿岚而家返中更")  # a memory keeps every word it says


def test_a_chinese_question_finds_what_it_asks_not_its_word_of_now() -> None:
    mem = memory_with_said([("阿岚搭輕軌返工，唔使再過關。", "2025-05-02"), ("阿岚而家返中更，下晝三點開始。", "2025-06-01"),
                            ("阿岚而家住喺氹仔。", "2025-06-03"), ("阿岚而家用新電話。", "2025-06-04")])
    try:
        assert mem.retrieve("阿岚而家點樣返工？", 5)[0]["text"].startswith("阿岚搭輕軌返工")
    finally:
        mem.archive.close()


def _rank(query: str, rows: list[dict], nodes: dict | None = None, limit: int = 10) -> list[dict]:
    """The ranking stage alone, on rows made candidates and returned as the API's dicts (the real conversions)."""
    terms = analyzer.query_terms(query)
    paths = score_paths(terms, nodes or {})
    cands = [Candidate.of(dict(r, path=r["category"])) for r in rows]
    return [c.to_json() for c in rank(terms, cands, local_corpus(cands, terms), paths, limit)]


def test_rank_fields_and_order() -> None:
    cands = [
        {"id": "a", "text": "Beijing roast duck is delicious", "category": "food", "tier": "warm", "score": 0.5},
        {"id": "b", "text": "Duck hunting season", "category": "misc", "tier": "warm", "score": 0.9},
        {"id": "c", "text": "Unrelated", "category": "misc", "tier": "warm", "score": 1.0},
    ]
    out = _rank("beijing duck", cands)
    assert [r["id"] for r in out] == ["a", "b"]
    assert out[0]["ranking"]["terms"].keys() == {"beij", "duck"} and out[1]["ranking"]["terms"].keys() == {"duck"}
    assert "matched 'beij'" in out[0]["reason"] and out[0]["reason"].endswith("in warm")
    assert _rank("beijing duck", cands, limit=1) == out[:1]


def test_rare_full_match_beats_important_partial_match() -> None:
    """The `port 8089` case: importance is a bounded prior, never stronger than the rare word."""
    cands = [{"id": f"f{i}", "text": f"Fact {i}: the service project uses port 80{i:02d} today", "category": "infra",
              "tier": "warm", "score": 0.3 if i == 89 else 0.9} for i in range(90)]
    out = _rank("port 8089", cands, limit=5)
    assert out[0]["id"] == "f89"
    assert out[0]["ranking"]["boost"] <= 1.2


def test_a_rule_in_hot_lessons_is_not_lifted_above_a_fact_for_a_question_about_now() -> None:
    """`what … now?` asks what holds: a rule naming the same words (a hot lesson, importance 0.8) answers none of it,
    so its importance lifts it no more than a cold memory's; asked of no time, it keeps its lift."""
    from memoryd.tiers.retrieval.time_rule import time_rule

    rows = [{"id": "rule", "text": "Rule: never row alone at the boat club", "category": "lessons/notes",
             "tier": "hot", "score": 0.8},
            {"id": "fact", "text": "She rows with the Harbour boat club", "category": "notes", "tier": "cold",
             "score": 0.0}]
    cands = [Candidate.of(dict(r, path=r["category"])) for r in rows]
    for query, first in (("which boat club does she row with now?", "fact"), ("row boat club", "rule")):
        terms = analyzer.query_terms(query)
        out = rank(terms, cands, local_corpus(cands, terms), {}, 5, time_rule(query, None))
        assert out[0].id == first, (query, [(c.id, c.rank) for c in out])


def test_corpus_idf_weighs_rare_terms_more() -> None:
    corpus = Corpus(docs=100, terms=1000)
    corpus.df.update({"carolin": 90, "guitar": 2})
    assert corpus.idf("guitar") > 5 * corpus.idf("carolin")


def test_path_only_match_counts_via_tree() -> None:
    nodes = {"food": ["Cooking and restaurants", 0], "food/chinese": ["", 0]}
    cands = [{"id": "x", "text": "Quanjude on Qianmen street", "category": "food/chinese", "tier": "warm",
              "score": 0.6}]
    assert score_paths(analyzer.query_terms("restaurants"), nodes) == {"food": 1.0, "food/chinese": 0.5}
    out = _rank("restaurants", cands, nodes, 5)
    assert len(out) == 1 and "tree path food" in out[0]["reason"]
    assert out[0]["relevance"] == 0.0 and 0 < out[0]["rank"] < 0.1


def test_retrieve_english_reason_tier_path_and_reinforcement(config) -> None:
    clock = Clock()
    mem = AgentMemory(config, "ret", clock=clock)
    a = mem.store("Alice prefers green tea in the morning", "people/alice", importance=0.6)
    mem.store("The build server runs Debian 12", "infra/build", importance=0.6)
    clock.t += 3600
    res = mem.retrieve("green tea", limit=5)
    assert [r["id"] for r in res] == [a["id"]]
    r = res[0]
    assert r["tier"] == "warm" and r["path"] == "people/alice" and r["category"] == "people/alice"
    assert "'green'" in r["reason"] and "'tea'" in r["reason"] and r["date"]
    assert r["text"] == "Alice prefers green tea in the morning" and 0 < r["score"] <= 1
    entry = [e for e in mem.read_state()["warm"]["entries"] if e["id"] == a["id"]][0]
    assert entry["access_count"] == 1 and entry["last_access"] == int(clock.t) and r["access_count"] == 1
    raw = mem.snapshot()["warm"]  # retrieval did not rewrite warm: the count waits in the access log
    assert [e["access_count"] for e in raw["entries"] if e["id"] == a["id"]] == [0]
    mem.retrieve("green tea")
    other = [e for e in mem.read_state()["warm"]["entries"] if e["id"] != a["id"]][0]
    assert [e["access_count"] for e in mem.read_state()["warm"]["entries"] if e["id"] == a["id"]] == [2]
    assert other["access_count"] == 0  # not returned → not reinforced


def test_retrieve_chinese_substrings(config) -> None:
    mem = AgentMemory(config, "zh", clock=Clock())
    duck = mem.store("主人最喜欢的菜是北京烤鸭，尤其是全聚德的", "food/preferences", importance=0.7)
    mem.store("上海的小笼包也不错", "food/preferences", importance=0.7)
    for q in ("北京烤鸭", "烤鸭", "全聚德", "喜欢烤鸭"):
        res = mem.retrieve(q)
        assert res and res[0]["id"] == duck["id"], q
    assert mem.retrieve("小笼包")[0]["text"].startswith("上海")


def test_retrieve_hot_items(config) -> None:
    mem = AgentMemory(config, "hotret", clock=Clock())

    def fill(s: dict, now: float) -> None:
        H.set_identity(s["hot"], "name", "Clawd")
        H.add_lesson(s["hot"], "Never deploy on Fridays", "ops", 0.9, now)

    mem.change(fill, "fill")
    res = mem.retrieve("deploy fridays")
    assert res[0]["tier"] == "hot" and res[0]["path"] == "lessons/ops"
    assert mem.retrieve("name")[0]["id"] == "identity:name"


def test_retrieve_url_filter(config) -> None:
    mem = AgentMemory(config, "urls", clock=Clock())
    a = mem.store("Docs live at https://docs.example.org/guide", "links", importance=0.5)
    mem.store("Code at https://github.com/x/y", "links", importance=0.5)
    res = mem.retrieve("", url="docs.example")
    assert [r["id"] for r in res] == [a["id"]] and "url matches" in res[0]["reason"]


@pytest.mark.parametrize("query,limit", [("", 10), ("   ", 10), ("x", 0), ("x", 1001)])
def test_retrieve_bad_input(config, query: str, limit: int) -> None:
    mem = AgentMemory(config, "bad", clock=Clock())
    with pytest.raises(UsageError):
        mem.retrieve(query, limit=limit)


def test_retrieve_searches_the_local_index(config, archive) -> None:
    clock = Clock()
    mem = AgentMemory(config, "coldret", archive=archive, clock=clock)
    old = mem.store("The old VPN password rotation happens quarterly", "ops/vpn", importance=0.5)
    clock.t += 40 * DAY
    from memoryd.tiers.memory.agent import AgentMemory as Bare

    with pytest.raises(MemorydError, match="no local index"):  # nowhere to put it: warm keeps it
        consolidate(Bare(config, "coldret", clock=clock), "quick")
    assert [h["tier"] for h in mem.retrieve("vpn rotation")] == ["warm"]
    report = consolidate(mem, "quick")
    assert report["counts"]["archived"] == 1 and mem.read_state()["warm"]["entries"] == []
    assert archive.count("coldret") == 1
    hits = mem.retrieve("vpn rotation")
    assert [(h["id"], h["tier"], h["path"]) for h in hits] == [(old["id"], "cold", "ops/vpn")]
    assert hits[0]["access_count"] == 2  # once while warm, once now
    assert archive.get("coldret", [old["id"]])[0]["access_count"] == 1  # no write on the read path ...
    mem.store("an unrelated later fact", "misc")
    assert archive.get("coldret", [old["id"]])[0]["access_count"] == 2  # ... the next write folds it in


def test_cold_chinese_search(config, archive) -> None:
    clock = Clock()
    mem = AgentMemory(config, "coldzh", archive=archive, clock=clock)
    e = mem.store("北京烤鸭要配甜面酱和黄瓜条", "food", importance=0.5)
    clock.t += 40 * DAY
    consolidate(mem, "quick")
    assert archive.count("coldzh") == 1
    for q in ("北京烤鸭", "烤鸭", "甜面酱"):
        hits = mem.retrieve(q)
        assert hits and hits[0]["id"] == e["id"] and hits[0]["tier"] == "cold", q


def test_port_8089_through_the_cli(home) -> None:
    """Stored facts, one CLI retrieve: the fact matching both words comes first whatever its importance."""
    import json
    import os
    import subprocess
    import sys

    env = dict(os.environ)
    facts = [(f"Fact {i}: the billing project uses port 80{i:02d} for its API", 0.3 if i == 89 else 0.9)
             for i in range(90)]
    code = ("import sys, json; from memoryd.tiers.base.config import load_config; from memoryd.daemon.engine import Engine\n"
            "with Engine(load_config()).memory('default') as m:\n"
            "    m.store_many([(t, 'infra/ports', i, None) for t, i in json.load(sys.stdin)])")
    subprocess.run([sys.executable, "-c", code], input=json.dumps(facts), text=True, env=env, check=True)
    import shutil
    from pathlib import Path

    cli = shutil.which("memoryd", path=str(Path(sys.executable).parent)) or "memoryd"
    out = subprocess.run([cli, "retrieve", "port 8089", "--limit", "5", "--json"],
                         capture_output=True, text=True, env=env)
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    results = data["results"] if isinstance(data, dict) else data
    assert "port 8089" in results[0]["text"] and results[0]["importance"] == 0.3


def test_question_dates_boost_memories_of_that_day(config, archive) -> None:
    clock = Clock()
    mem = AgentMemory(config, "dates", archive=archive, clock=clock)
    may = mem.store("We went hiking at the lake", "life", importance=0.5, metadata={"date": "2025-05-07"})
    june = mem.store("We went hiking in the hills", "life", importance=0.5, metadata={"date": "2025-06-20"})
    res = mem.retrieve("when did we go hiking in May 2025")
    assert res[0]["id"] == may["id"] and res[0]["date"] == "2025-05-07" and res[0]["ranking"]["date_match"]
    res = mem.retrieve("hiking on June 20, 2025")
    assert res[0]["id"] == june["id"]


def test_probe_terms_leave_out_only_common_unigrams_a_bigram_holds(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(analyzer, "POSTINGS_BUDGET", 50_000)
    query = analyzer.query_terms("我的猫")  # 我, 的, 猫, 我的, 的猫
    df = {"我": 30_000, "的": 60_000, "猫": 40, "我的": 9_000, "的猫": 12}
    assert analyzer.probe_terms(query, df, 100_000) == ["猫", "我的", "的猫"]
    # under 2 % of ten million rows nothing is common, but 99,052 rows to score is over the budget:
    # the most common covered character goes first, and only as many as it takes
    assert analyzer.probe_terms(query, df, 10_000_000) == ["我", "猫", "我的", "的猫"]
    cheap = {t: n // 10 for t, n in df.items()}
    assert analyzer.probe_terms(query, cheap, 10_000_000) == query  # within the budget: every term looks
    assert analyzer.probe_terms(query, df | {"我": 70_000, "的": 900}, 10_000_000) == ["的", "猫", "我的", "的猫"]
    assert analyzer.probe_terms(["的"], df, 100_000) == ["的"]  # a lone character is its own word
    english = analyzer.query_terms("project meeting notes")
    assert analyzer.probe_terms(english, dict.fromkeys(english, 90_000), 100_000) == english


def test_cold_chinese_search_with_common_characters(config, archive) -> None:
    """Thousands of rows share 的 and 是: the rows that hold the asked bigram, or its rare character
    on its own, are still found and ranked on every query term."""
    rows = [{"id": f"n{i}", "text": f"这是第{i}条的记录", "category": "misc", "importance": 0.3, "created_at": 1e9}
            for i in range(1500)]
    rows += [{"id": "cat", "text": "我的猫叫咪咪", "category": "pets", "importance": 0.3, "created_at": 1e9},
             {"id": "lone", "text": "邻居养了一只猫", "category": "pets", "importance": 0.3, "created_at": 1e9}]
    archive.put("zhcommon", rows)
    mem = AgentMemory(config, "zhcommon", archive=archive)
    docs, _, df = archive.term_stats("zhcommon", analyzer.query_terms("我的猫是谁"))
    assert df["的"] > 1000 and "的" not in analyzer.probe_terms(analyzer.query_terms("我的猫是谁"), df, docs)
    hits = mem.retrieve("我的猫是谁", limit=3)
    assert [h["id"] for h in hits[:2]] == ["cat", "lone"]
    assert hits[0]["ranking"]["terms"]["的"] > 0  # the left-out character still counts in the ranking


def test_retrieve_reads_a_view_not_the_memory() -> None:
    """The retrieve pipeline needs no AgentMemory: a RetrievalView of hot, warm and tree is enough, and the
    accesses it counts go where the view says."""
    from memoryd.tiers.memory import tree as T
    from memoryd.tiers.memory import warm as W
    from memoryd.tiers.retrieval.filters import Filters
    from memoryd.tiers.retrieval.search import retrieve
    from memoryd.tiers.retrieval.view import RetrievalView

    now = 1_700_000_000.0
    warm = W.empty_warm()
    warm["entries"].append(W.new_entry("Alice prefers green tea in the morning", "people/alice", 0.6, now))
    hot = H.empty_hot()
    H.set_identity(hot, "name", "Ada")
    recorded: list[dict] = []
    warned: list[str] = []
    view = RetrievalView(agent_id="v", state={"hot": hot, "warm": warm, "tree": T.empty_tree()}, pending={},
                         archive=None, now=now, settings={"mode": "keyword"}, mode_chosen=False,
                         record_accesses=recorded.append, warn=warned.append)
    res = retrieve(view, "green tea", 5, paths=None, filters=Filters())
    assert [r["tier"] for r in res] == ["warm"] and res[0]["access_count"] == 1
    assert recorded == [{res[0]["id"]: (1, int(now))}] and warned == []


def test_the_pipeline_is_declared_and_the_knowledge_stages_switch_off_together() -> None:
    from memoryd.tiers.retrieval import pipeline

    assert [(s.name, s.knowledge) for s in pipeline.STAGES] == [
        ("admit", True), ("rank", False), ("latest", True), ("current", True), ("fold", True), ("summaries", True)]
