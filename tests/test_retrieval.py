"""Retrieval v1: keyword + CJK tokens, tree path scoring, result fields, reinforcement, cold search."""
from __future__ import annotations

import pytest

from memoryd.tiers import hot as H
from memoryd.tiers.agent import AgentMemory
from memoryd.tiers.consolidate import consolidate
from memoryd.tiers.errors import UsageError
from memoryd.tiers.model import DAY
from memoryd.tiers.retrieval import rank, score_paths, tokens
from clock import Clock


def test_tokens_english_and_cjk() -> None:
    assert tokens("The Quick, brown fox!") == {"quick", "brown", "fox"}
    t = tokens("我喜欢北京烤鸭")
    assert {"北京", "烤鸭", "北", "鸭"} <= t
    mixed = tokens("去Beijing吃烤鸭")
    assert {"beijing", "烤鸭", "去"} <= mixed


def test_rank_fields_and_order() -> None:
    cands = [
        {"id": "a", "text": "Beijing roast duck is delicious", "category": "food", "tier": "warm", "score": 0.5},
        {"id": "b", "text": "Duck hunting season", "category": "misc", "tier": "warm", "score": 0.9},
        {"id": "c", "text": "Unrelated", "category": "misc", "tier": "warm", "score": 1.0},
    ]
    out = rank("beijing duck", cands, {}, 10)
    assert [r["id"] for r in out] == ["a", "b"]
    assert out[0]["relevance"] == 1.0 and out[1]["relevance"] == 0.5
    assert "matched 'beijing', 'duck'" in out[0]["reason"] and out[0]["reason"].endswith("in warm")
    assert rank("beijing duck", cands, {}, 1) == out[:1]


def test_path_only_match_counts_via_tree() -> None:
    nodes = {"food": ["Cooking and restaurants", 0], "food/chinese": ["", 0]}
    cands = [{"id": "x", "text": "Quanjude on Qianmen street", "category": "food/chinese", "tier": "warm",
              "score": 0.6}]
    assert score_paths(tokens("restaurants"), nodes) == {"food": 1.0, "food/chinese": 0.5}
    out = rank("restaurants", cands, nodes, 5)
    assert len(out) == 1 and "tree path food" in out[0]["reason"]
    assert out[0]["relevance"] == 0.5 and out[0]["rank"] == pytest.approx(0.3)


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
    assert "green" in r["reason"] and "tea" in r["reason"]
    assert r["text"] == "Alice prefers green tea in the morning" and 0 < r["score"] <= 1
    entry = [e for e in mem.read_state()["warm"]["entries"] if e["id"] == a["id"]][0]
    assert entry["access_count"] == 1 and entry["last_access"] == int(clock.t)
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


def test_retrieve_searches_cold_pending_and_archive(config, archive) -> None:
    clock = Clock()
    mem = AgentMemory(config, "coldret", archive=archive, clock=clock)
    old = mem.store("The old VPN password rotation happens quarterly", "ops/vpn", importance=0.5)
    clock.t += 40 * DAY
    res = AgentMemory(config, "coldret", clock=clock)
    consolidate(res, "quick")  # no archive: waits in cold-pending, still searchable
    hits = res.retrieve("vpn rotation")
    assert [(h["id"], h["tier"]) for h in hits] == [(old["id"], "cold")]
    report = consolidate(mem, "quick")
    assert report["counts"]["archived"] == 1 and mem.pending_cold() == []
    assert archive.count("coldret") == 1
    hits = mem.retrieve("vpn rotation")
    assert [(h["id"], h["tier"], h["path"]) for h in hits] == [(old["id"], "cold", "ops/vpn")]
    assert archive.get("coldret", [old["id"]])[0]["access_count"] == 1  # cold reinforcement


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
