"""The recall benchmark (bench/recall): generator, note writer, baselines, scorer, and a real end-to-end run."""
from __future__ import annotations

import datetime as dt
import json
import sys
from collections import Counter
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # bench/ is not installed: run from the checkout

from bench.recall import baseline, notes, score, systems  # noqa: E402
from bench.recall.dates import resolve, window  # noqa: E402
from bench.recall.generate import generate, texts  # noqa: E402
from bench.recall.model import KINDS, LANGS, Question  # noqa: E402
from bench.recall.run import benchmark, main  # noqa: E402

TODAY = dt.date(2025, 11, 20)


@pytest.fixture(scope="module")
def full():
    return generate(7, TODAY)


@pytest.fixture(scope="module")
def small():
    return generate(7, TODAY, small=True)


def test_same_seed_same_corpus_other_seed_other_corpus(small) -> None:
    assert generate(7, TODAY, small=True).as_dict() == small.as_dict()
    other = generate(8, TODAY, small=True)
    assert [t.text for t in other.turns] != [t.text for t in small.turns]


def test_words_do_not_depend_on_the_day_asked(small) -> None:
    """Dates move with `today`; what people say (bar a month name) does not."""
    later = generate(7, TODAY + dt.timedelta(days=40), small=True)
    same = sum(a.text == b.text for a, b in zip(small.turns, later.turns))
    assert len(later.turns) == len(small.turns) and same >= 0.97 * len(small.turns)
    assert max(t.date for t in later.turns) > max(t.date for t in small.turns)


def test_full_corpus_has_the_size_and_mix_the_issue_asks(full) -> None:
    assert len(full.conversations) >= 20 and len(full.turns) >= 5000 and len(full.questions) >= 500
    share_zh = sum(t.lang == "zh" for t in full.turns) / len(full.turns)
    assert 0.25 <= share_zh <= 0.45
    kinds = Counter((q.lang, q.kind) for q in full.questions)
    assert all(kinds[(lang, kind)] >= 20 for lang in LANGS for kind in KINDS), kinds
    for conv in full.conversations:
        days = sorted({t.date for t in conv.turns})
        span = dt.date.fromisoformat(days[-1]) - dt.date.fromisoformat(days[0])
        assert len(days) >= 10 and span.days >= 90, conv.id
        assert all(t.speaker in conv.speakers for t in conv.turns)
        assert max(days) < TODAY.isoformat()
    assert len({q.id for q in full.questions}) == len(full.questions)
    assert any(q.when for q in full.questions if q.lang == "zh") and any(q.when for q in full.questions if q.lang == "en")


def _check_answer(q: Question, ev: list, today: dt.date) -> None:
    world = texts(q.lang)[0].WORLD
    if q.mode == "text":
        assert any(q.answer.casefold() in t.text.casefold() for t in ev), q
    elif q.mode == "date":
        assert resolve(q.clues[0], dt.date.fromisoformat(ev[0].date), q.lang).isoformat() == q.answer, q
    elif q.mode == "count":
        assert int(q.answer) == len(ev) == len(set(q.clues)), q
    elif q.mode == "world":
        assert world[q.clues[0]] == q.answer, q
    elif q.mode == "order":
        first = min(range(len(ev)), key=lambda i: ev[i].date)
        assert q.answer == q.clues[first] and len({t.date for t in ev}) == len(ev), q
    else:
        raise AssertionError(f"unknown mode {q.mode}")
    if q.when:
        lo, hi = window(q.when, today)
        assert all(lo.isoformat() <= t.date <= hi.isoformat() for t in ev), q


def test_every_evidence_turn_exists_and_holds_its_clue_and_the_answer(full) -> None:
    index = full.turn_index()
    lines = Counter((t.conv, t.line) for t in full.turns)
    for q in full.questions:
        assert q.kind in KINDS and q.evidence and len(q.evidence) == len(q.clues)
        ev = [index[tid] for tid in q.evidence]
        assert all(t.conv == q.conv for t in ev)
        for t, clue in zip(ev, q.clues):
            assert clue.casefold() in t.text.casefold(), (q.id, clue, t.text)
            assert lines[(t.conv, t.line)] == 1, t  # an evidence turn is never merged with an identical one
        _check_answer(q, ev, full.today)


def test_question_words_differ_from_the_evidence_words(full) -> None:
    """Paraphrase: many questions share no content word with any evidence turn (beyond names and stop words)."""
    index = full.turn_index()
    stop = set("a an and are as at be by did do does for from how i in is it of on or the to was what when where "
               "which who why with s his her he she".split())
    en = [q for q in full.questions if q.lang == "en"]

    def words(text: str) -> set[str]:
        return {w for w in baseline.terms(text) if w not in stop}
    disjoint = 0
    for q in en:
        names = {w.casefold() for t in (index[e] for e in q.evidence) for w in [t.speaker]}
        evidence = set().union(*(words(index[e].text) for e in q.evidence))
        disjoint += not (words(q.text) - names) & evidence
    assert 0.15 * len(en) <= disjoint <= 0.6 * len(en)


def test_notes_round_trip_through_the_real_parser(small, tmp_path: Path) -> None:
    from memoryd.tiers.ingest.dailynotes import note_files, parse_note

    sources = notes.write_notes(small.turns, tmp_path)  # every conversation in one workspace: days are shared
    index = small.turn_index()
    seen = []
    for day, path in note_files(tmp_path, all_=True):
        facts, warnings = parse_note(path, day)
        assert not warnings
        for fact in facts:
            tid = notes.turn_of({"text": "?", "metadata": fact.metadata()}, sources, {})
            assert tid is not None and index[tid].line == fact.text and index[tid].date == day
            seen.append(tid)
    assert sorted(seen) == sorted(index) and len(sources) == len(index)
    assert len({t.date for t in small.turns}) < len(small.turns) and any(
        len({t.conv for t in small.turns if t.date == d}) > 1 for d in {t.date for t in small.turns})


def test_result_mapping_prefers_the_source_then_the_text() -> None:
    sources = {"memory/2025-01-02.md#L5": "c-s00-t00"}
    by_text = {"Ann: hi": "c-s00-t01"}
    results = [{"text": "x", "metadata": {"source": "memory/2025-01-02.md#L5"}},
               {"text": "Ann: hi", "metadata": {}}, {"text": "Ann: hi"},
               {"text": "unknown", "metadata": {"source": "memory/2025-01-02.md#L9"}}]
    assert notes.ranked_turns(results, sources, by_text) == ["c-s00-t00", "c-s00-t01"]
    assert systems.results_of({"schema": 2, "results": results[:1], "warnings": []}) == results[:1]
    assert systems.results_of(results) == results
    with pytest.raises(TypeError):
        systems.results_of("nope")


def test_baseline_terms_bigrams_and_quoting() -> None:
    assert baseline.terms("Caroline's 端口8443好") == ["caroline", "s", "端口", "8443", "好"]
    assert baseline.terms("我们领养了") == ["我们", "们领", "领养", "养了"]
    rows = [("a", "Ann: I painted the lake"), ("b", "Ann: we paint walls"), ("c", "李娜：我们领养了一只柯基")]
    plain, porter = baseline.Bm25("unicode61", rows), baseline.Bm25("porter unicode61", rows)
    assert plain.search("painting", 10) == [] and set(porter.search("painting", 10)) == {"a", "b"}
    assert porter.search("她领养了什么狗？", 10) == ["c"]
    assert plain.search('what "NEAR(a b)" * OR AND -x ^', 10) == []  # FTS5 syntax in a question is just words
    plain.close()
    porter.close()


def _q(qid: str, evidence: tuple[str, ...], lang: str = "en", kind: str = "single-fact") -> Question:
    return Question(qid, "c", lang, kind, "?", "!", evidence, tuple("x" for _ in evidence))


def test_scorer_on_a_hand_made_case() -> None:
    qs = [_q("q1", ("t1",)), _q("q2", ("t2", "t9"), kind="multi-hop"), _q("q3", ("t3",), lang="zh"), _q("q4", ("t4",))]
    ranks = {"q1": ["t1", "x", "y"],                      # rank 1
             "q2": ["a", "b", "t9", "c", "d", "e", "t2"],  # rank 3; both evidence turns in the top 10
             "q3": ["a", "b", "c", "d", "e", "f", "t3"],   # rank 7
             }                                             # q4 never asked: a miss
    m = score.measure(qs, ranks)
    assert (m.n, m.r1, m.r5, m.r10) == (4, 0.25, 0.5, 0.75)
    assert m.mrr == pytest.approx((1 + 1 / 3 + 1 / 7) / 4) and m.all10 == pytest.approx(3 / 4)
    scores = score.score(qs, {"s": ranks, "t": {"q1": ["t1"], "q2": ["t2"], "q3": ["t3"], "q4": ["t4"]}})
    assert scores["s"]["zh"].r10 == 1.0 and scores["s"]["en"].r5 == pytest.approx(2 / 3)
    assert scores["s"]["multi-hop"].mrr == pytest.approx(1 / 3) and "zh/multi-hop" not in scores["s"]
    assert score.ratio(scores, "s", "t", "all") == pytest.approx(0.5)
    assert "all" in score.table(scores) and "en/single-fact" in score.table(scores)


def test_end_to_end_through_real_ingest_and_retrieve(small, tmp_path: Path) -> None:
    res = benchmark(small, tmp_path, cli_sample=2)
    index = small.turn_index()
    ranks = res["rankings"]["memoryd"]
    assert set(ranks) == {q.id for q in small.questions}
    assert all(tid in index for r in ranks.values() for tid in r)
    assert sum(bool(r) for r in ranks.values()) >= 0.9 * len(ranks)
    assert res["scores"]["memoryd"]["all"]["r10"] > 0 and res["scores"]["bm25-porter"]["all"]["r10"] > 0
    assert res["timing"]["memoryd"]["setup_s"] > 0 and res["corpus"]["agents"] == len(small.conversations)
    for conv in small.conversations:
        assert len(list((tmp_path / "workspaces" / conv.id / "memory").glob("*.md"))) == len({t.date for t in conv.turns})
    assert res["cli"]["questions"] == 2 and set(res["cli"]["scores"]) == {"memoryd-cli", "memoryd"}


def test_main_prints_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--small", "--lang", "zh", "--json", "--today", "2025-06-30", "--out", str(tmp_path)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["corpus"]["conversations"] == 1 and set(out["scores"]) == {"memoryd", "bm25", "bm25-porter"}
    assert set(out["ratio_r5"]) == {"all", "en", "zh"} and out["ratio_r5"]["en"] is None
    kept = json.loads((tmp_path / "corpus.json").read_text(encoding="utf-8"))
    assert kept["today"] == "2025-06-30" and all(t["lang"] == "zh" for c in kept["conversations"] for t in c["turns"])
    assert (tmp_path / "results.json").is_file() and list((tmp_path / "home").iterdir())


def test_dense_blend_is_a_min_max_weighted_sum() -> None:
    from bench.recall.dense import blend, minmax

    ids = ["a", "b", "c"]
    assert minmax({"a": 2.0, "b": 4.0}, ids) == {"a": 0.5, "b": 1.0, "c": 0.0}
    assert minmax({"a": 1.0, "b": 1.0, "c": 1.0}, ids) == {"a": 0.0, "b": 0.0, "c": 0.0}
    dense = {"a": 0.9, "b": 0.7, "c": 0.1}     # dense likes a
    lexical = {"c": 12.0, "b": 6.0}            # BM25 likes c; a does not match at all
    assert blend(dense, lexical, 1.0, ids) == ["a", "b", "c"]
    assert blend(dense, lexical, 0.0, ids) == ["c", "b", "a"]
    assert blend(dense, lexical, 0.5, ids, depth=2) == ["b", "a"]   # b .625 beats a .5 and c .5 (a tie: by id)


def test_questions_are_asked_on_the_corpus_day_and_keyword_variants_run_beside(small, tmp_path: Path) -> None:
    """'yesterday' in a question means the day before the corpus's today, whatever the machine's date."""
    from bench.recall.run import asked_at

    now = asked_at(TODAY)
    assert dt.datetime.fromtimestamp(now, dt.timezone.utc).date() == TODAY
    scope = systems.scopes(small, shared=False)[0]
    mem = systems.Memoryd(tmp_path, retrieval={"mode": "keyword"}, now=now)
    mem.ingest(scope)
    once = Counter(t.text for t in scope.turns)
    said = max((t for t in scope.turns if once[t.text] == 1 and len(t.text) > 40), key=lambda t: t.date)
    query = f"{said.text} {(TODAY - dt.date.fromisoformat(said.date)).days} days ago"
    answer = systems.api(mem.config(scope), now).call("retrieve", {"agent_id": scope.agent, "query": query, "limit": 3})
    top = systems.results_of(answer)[0]
    assert top["ranking"]["date_match"] is True and top["date"] == said.date
    machine = systems.api(mem.config(scope)).call(   # the machine's clock: a year or more after the corpus
        "retrieve", {"agent_id": scope.agent, "query": query, "limit": 3})
    assert not any(r["ranking"]["date_match"] for r in systems.results_of(machine))
    res = benchmark(small, tmp_path / "run", variants=("keyword-no-time-rule",))
    assert set(res["rankings"]["keyword-no-time-rule"]) == {q.id for q in small.questions}
