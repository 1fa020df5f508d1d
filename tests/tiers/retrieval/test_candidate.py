"""The frozen candidate: made from a gathered row at one point, returned as the API's dict at one point, never
edited by a stage (each returns new candidates and records what it did in `steps`)."""
from __future__ import annotations

import dataclasses

import pytest

from memoryd.tiers.memory import hot as H
from memoryd.tiers.memory import tree as T
from memoryd.tiers.memory import warm as W
from memoryd.tiers.retrieval import analyzer, pipeline, ranking
from memoryd.tiers.retrieval.candidate import Candidate, Step
from memoryd.tiers.retrieval.filters import Filters
from memoryd.tiers.retrieval.view import RetrievalView

NOW = 1_700_000_000.0


def _ask(query: str, entries: list[dict], knowledge: bool) -> tuple[pipeline.Ask, list[Candidate]]:
    warm = W.empty_warm()
    warm["entries"] += entries
    view = RetrievalView(agent_id="c", state={"hot": H.empty_hot(), "warm": warm, "tree": T.empty_tree()},
                         pending={}, archive=None, now=NOW, settings={"mode": "keyword"}, mode_chosen=False,
                         record_accesses=lambda counts: None, warn=lambda said: None, knowledge=knowledge)
    cands = [Candidate.of(dict(e, tier="warm", path=e["category"])) for e in entries]
    terms = analyzer.query_terms(query)
    return pipeline.Ask(view, query, terms, 5, Filters(), ranking.local_corpus(cands, terms)), cands


def _pair() -> tuple[dict, dict]:
    old = W.new_entry("Our wifi password is hunter-blue-7", "home", 0.6, NOW - 86400)
    new = W.new_entry("We changed the wifi password to otter-green-2", "home", 0.6, NOW)
    old["metadata"]["superseded_by"] = new["id"]
    return old, new


def test_the_stages_return_new_candidates_and_record_what_they_did() -> None:
    old, new = _pair()
    ask, cands = _ask("wifi password hunter", [old, new], knowledge=True)
    before = [dataclasses.replace(c) for c in cands]
    found = pipeline.run(ask, cands)
    assert cands == before and all(c.ranking is None and c.steps == () for c in cands)  # the stages made new ones
    assert [c.id for c in found] == [new["id"], old["id"]]  # the current value directly above what was found
    assert found[0].steps == (Step("current", "placed above", (("current_of", old["id"]),
                                                               ("why", "holds the current value of what the words "
                                                                "found"))),)
    shown = [c.to_json() for c in found]
    assert shown[0]["stages"] == [{"stage": "current", "did": "placed above", "current_of": old["id"],
                                   "why": "holds the current value of what the words found"}]
    assert shown[1]["superseded_by"] == new["id"] and "stages" not in shown[1]
    assert {s["kind"] for s in shown} == {"fact"}
    with pytest.raises(dataclasses.FrozenInstanceError):
        found[0].text = "edited"  # type: ignore[misc]
    with pytest.raises(TypeError):
        found[0].row["text"] = "edited"  # type: ignore[index]


def test_the_layer_off_runs_the_ranking_alone() -> None:
    old, new = _pair()
    ask, cands = _ask("wifi password hunter", [old, new], knowledge=False)
    shown = [c.to_json() for c in pipeline.run(ask, cands)]
    assert [s["id"] for s in shown] == [old["id"], new["id"]]  # as the words found them
    assert not any("stages" in s or "kind" in s or "superseded_by" in s for s in shown)


def test_a_result_is_its_row_with_what_the_ranking_says_over_it() -> None:
    row = dict(W.new_entry("Alice prefers green tea in the morning", "people/alice", 0.6, NOW), tier="warm",
               path="people/alice")
    cand = Candidate.of(row)
    assert cand.to_json() == dict(row, date="2023-11-14")  # nothing ranked: the row as gathered, dated
    terms = analyzer.query_terms("green tea")
    [ranked] = ranking.rank(terms, [cand], ranking.local_corpus([cand], terms), {}, 5)
    shown = ranked.to_json()
    assert {k: shown[k] for k in row} == row and shown["date"] == "2023-11-14"
    assert ranked.ranking is not None and ranked.ranking.score is not None
    assert shown["rank"] == ranked.ranking.rank and shown["relevance"] == round(ranked.ranking.score.bm25, 4)
    assert shown["ranking"]["terms"].keys() == {"green", "tea"} and shown["ranking"]["time_rule"] == 1.0
    assert shown["reason"] == ranked.ranking.score.reason("warm") and shown["reason"].startswith("matched '")


def _placements(old_text: str, new_text: str, link: str):
    """Where retrieve puts `new_text` (linked to `old_text` by `link`) for a query that finds only the older."""
    from memoryd.tiers.retrieval import current

    old = W.new_entry(old_text, "shop", 0.6, NOW - 86400)
    new = W.new_entry(new_text, "shop", 0.6, NOW)
    old["metadata"][link] = new["id"]
    old_c, new_c = (Candidate.of(dict(e, tier="warm", path=e["category"])) for e in (old, new))

    def placed(query: str) -> list[str]:
        terms = analyzer.query_terms(query)
        ranked = ranking.rank(terms, [old_c], ranking.local_corpus([old_c], terms), {}, 5)
        ids = [c.id for c in current.successors(ranked, lambda ids: [new_c], query)]
        return ["new" if i == new["id"] else "old" for i in ids]
    return placed


def test_the_current_value_is_placed_where_the_query_speaks_of_it_and_one_han_character_is_not_that() -> None:
    placed = _placements("柳岸小店的围巾售价 168 元", "好，围巾从168调到188元，店庆结束了", "superseded_by")
    assert placed("柳岸小店的围巾现在多少钱？") == ["new", "old"]   # the query speaks of it: placed above
    assert placed("柳岸小店现在用哪家快递？") == ["old"]              # only 店 in common: another question


def test_a_newer_fact_without_the_number_a_question_asks_for_is_not_placed_above_the_one_holding_it() -> None:
    placed = _placements("Riverside shop: 14 Quay Lane, phone 01632 960123, closed on Tuesdays",
                         "Riverside shop now closes on Wednesdays instead of Tuesdays", "updated_by")
    assert placed("Which day is the Riverside shop closed now?") == ["new", "old"]
    assert placed("What is the Riverside shop's phone number?") == ["old"]   # the newer holds no number


def test_a_chinese_question_asks_what_follows_its_first_de_not_its_last() -> None:
    """`<农场>的<干草>现在是从哪儿进的？` asks of the hay: the older memory names the farm and another feed, the newer
    changes that feed, so nothing is placed; a question of that feed gets the change above."""
    placed = _placements("松湾农场的豆粕从东岭饲料进，青贮从村里合作社收。", "豆粕已从东岭换为北川饲料。", "updated_by")
    assert placed("松湾农场的干草现在是从哪儿进的？") == ["old"]
    assert placed("松湾农场的豆粕现在是从哪家进的？") == ["new", "old"]


@pytest.mark.parametrize("question, asked", [
    ("弄堂里早上垃圾投放是几点到几点？", {"垃圾", "投放"}),   # all after 是 is asking: what stands before it is asked
    ("茶室的客户群现在有多少人？", {"客户", "户群"}),         # not `有多`, `少人`: pieces of 多少
])
def test_a_chinese_question_asks_no_piece_of_its_words_of_asking(question: str, asked: set) -> None:
    from memoryd.tiers.retrieval.question import what_asked

    got = what_asked(question)
    assert asked <= got and not {"点到", "到几", "有多", "少人"} & got
