"""The knowledge benchmark (bench/knowledge): generator, files as memoryd reads them, matching, measures, a real run."""
from __future__ import annotations

import datetime as dt
import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # bench/ is not installed: run from the checkout

from bench.knowledge import metrics, systems  # noqa: E402
from bench.knowledge.generate import generate  # noqa: E402
from bench.knowledge.model import AGENT, CURRENT, ENTITY, FACT, FILLER, NOTE, STATIC, STORE, USER, Dataset, Input, \
    Question, Version  # noqa: E402
from bench.knowledge.resolve import Hit, Resolver, value_in  # noqa: E402
from bench.knowledge.run import benchmark, listed_share, main, report  # noqa: E402
from bench.knowledge.write import Install, note_text, write_note, write_sessions  # noqa: E402

TODAY = dt.date(2026, 3, 1)


@pytest.fixture(scope="module")
def small() -> Dataset:
    return generate(7, TODAY, small=True)


def test_same_seed_same_dataset_and_the_words_do_not_depend_on_the_day(small: Dataset) -> None:
    assert generate(7, TODAY, small=True).as_dict() == small.as_dict()
    assert [i.text for i in generate(8, TODAY, small=True).inputs] != [i.text for i in small.inputs]
    later = generate(7, TODAY + dt.timedelta(days=30), small=True)
    assert [i.text for i in later.inputs] == [i.text for i in small.inputs]
    assert later.date(0) == (TODAY + dt.timedelta(days=30 - small.days)).isoformat()
    assert small.date(small.days - 1) == (TODAY - dt.timedelta(days=1)).isoformat()
    assert generate(7, TODAY).days > small.days and len(generate(7, TODAY).inputs) > len(small.inputs)


def test_ground_truth_holds_together(small: Dataset) -> None:
    versions = {v.fact: v for v in small.versions}
    told = {i.fact for i in small.inputs if i.fact}
    assert told == set(versions)                       # every version is told at least once
    for i in small.inputs:
        assert (i.fact is not None) == (i.holds == FACT)
        if i.fact:
            assert value_in(i.text, versions[i.fact].value), i
            assert i.day >= versions[i.fact].day       # never told before it became true
    assert len({i.id for i in small.inputs}) == len(small.inputs)
    for q in small.questions:
        mine = [v for v in small.versions if v.topic == q.about]
        if q.kind in (CURRENT, STATIC):
            assert q.answers == (mine[-1].value,) and q.answers[0] not in q.stale
            assert set(q.stale) == {v.value for v in mine[:-1]} - set(q.answers)
            assert (q.kind == CURRENT) == (len(mine) > 1)
        else:
            assert q.kind == ENTITY and q.answers and not q.stale
    counts = small.counts()
    assert counts["changes"] > 0 and counts["filler"] > 0 and counts[NOTE] > 0 and counts[STORE] > 0
    restated = [f for f in told if sum(i.fact == f and i.channel != AGENT for i in small.inputs) > 1]
    assert restated                                    # some facts are told in chat and again in a note or a store


def test_files_read_back_through_memoryds_own_parsers(small: Dataset, tmp_path: Path) -> None:
    from memoryd.tiers.ingest.note_parse import parse_note
    from memoryd.tiers.ingest.openclaw.events import EventParser
    from memoryd.tiers.ingest.openclaw.jsonl import classify_name, read_transcript

    install = Install(tmp_path)
    inputs = {i.id: i for i in small.inputs}
    day = next(d for d in range(small.days) if note_text(small, d)[0] and any(i.session for i in small.on(d)))
    sources = write_sessions(small, day, install) | write_note(small, day, install)
    chat = [i for i in small.on(day) if i.channel in (USER, AGENT)]
    seen = []
    for path in sorted(install.sessions.glob("*.jsonl")):
        tf = classify_name(path)
        parsed, _ = read_transcript(tf, 0, EventParser(tf.session_id))
        for turn in parsed.turns:
            item = inputs[sources[f"openclaw:{turn.session_id}#{turn.seq}"]]
            assert (item.text, item.channel) == (turn.text, turn.role) and turn.date == small.date(day)
            seen.append(item.id)
    assert sorted(seen) == sorted(i.id for i in chat)
    facts, warnings = parse_note(install.workspace / "memory" / f"{small.date(day)}.md", small.date(day))
    assert not warnings and len(facts) == sum(i.channel == NOTE for i in small.on(day))
    for fact in facts:
        assert inputs[sources[fact.source]].text.endswith(fact.text)


def test_results_are_matched_by_source_then_words_then_value() -> None:
    ds = Dataset(1, TODAY, 2, inputs=[
        Input("d00-1-t00", 0, USER, "The garage code is 1111.", FACT, "code=1111", session="s"),
        Input("d00-n1", 0, NOTE, "W @home: Garage code is 1111.", FACT, "code=1111", section="retain"),
        Input("d01-store1", 1, STORE, "Garage door code: 2222", FACT, "code=2222", category="home"),
        Input("d01-1-t01", 1, AGENT, "Noted.", FILLER, session="s")],
        versions=[Version("code", 0, "1111", 0), Version("code", 1, "2222", 1), Version("wifi", 0, "Blue Heron", 0)])
    r = Resolver(ds, {"openclaw:s#0": "d00-1-t00"})
    assert r.hit({"text": "Garage code is 1111", "metadata": {"source": "openclaw:s#0"}}).input == "d00-1-t00"
    assert r.hit({"text": "@home: Garage code is 1111.", "metadata": {}}).input == "d00-n1"   # label stripped
    assert r.hit({"text": "garage  door CODE: 2222"}).fact == "code=2222"
    assert r.hit({"text": "noted."}).holds == FILLER
    assert r.hit({"text": "Remember: code 2222 (pending)"}) == Hit("Remember: code 2222 (pending)", None, "code=2222")
    assert r.hit({"text": "Code 2222, wifi Blue Heron"}).fact is None                   # a summary: no single fact
    assert value_in("Review on July 15", "July 15") and not value_in("Review on July 15", "July 1")
    assert value_in("王芳现在在上海。", "上海") and not value_in("code 11112", "1111")


def _h(text: str, fact: str | None = None, holds: str | None = FACT) -> Hit:
    return Hit(text, None, fact, holds)


def _about(x: float) -> object:
    return pytest.approx(x, abs=1e-4)   # shares are printed to 4 places


def test_measures_on_a_hand_built_case() -> None:
    qs = [Question("c1", CURRENT, "code now?", "code", ("2222",), ("1111",)),
          Question("c2", CURRENT, "city now?", "city", ("Pune",), ("Lisbon",)),
          Question("c3", CURRENT, "ci now?", "ci", ("Zed",), ("Vim",)),
          Question("f1", STATIC, "birthday?", "bday", ("14 August",)),
          Question("e1", ENTITY, "about Alice?", "Alice", ("Pune", "head of platform")),
          Question("e2", ENTITY, "about Bob?", "Bob", ("peanuts",))]
    ranked = {
        "c1": [_h("code 2222", "code=2222"), _h("code is 2222", "code=2222"), _h("Noted.", None, FILLER)],
        "c2": [_h("moved to Lisbon", "city=Lisbon"), _h("from Lisbon to Pune", None), _h("Pune", "city=Pune")],
        "c3": [_h("we use Vim", "ci=Vim"), _h("Vim again", "ci=Vim")],   # current absent, stale present
        "f1": [_h("x"), _h("y"), _h("z"), _h("w"), _h("v"), _h("born 14 August", "bday=14 August")],
        "e1": [_h("Alice is head of platform", "role=head")],
        "e2": [_h("Bob says hi", None, "chatter")],
    }
    s = metrics.score(qs, ranked, pages={"Alice": "", "Bob": '{"facts": ["allergic to peanuts"]}'})
    assert s["duplicate_share"] == _about(2 / 6)       # c1 (2222 twice) and c3 (Vim twice)
    assert s["filler_share"] == _about(1 / 6)
    assert s["current"] == {"n": 3, "at1": _about(1 / 3), "in5": _about(2 / 3),
                            "stale_above": _about(2 / 3)}   # c2: rank 1 stale, rank 2 names both
    assert s["fact"] == {"n": 1, "in5": 0.0}                  # the value is at rank 6
    assert s["entity"] == {"n": 2, "answered": 1.0, "by_top5": 0.5, "by_page": 0.5}
    no_pages = metrics.score(qs, ranked)
    assert no_pages["entity"]["by_page"] is None and no_pages["entity"]["answered"] == 0.5
    assert metrics.score(qs, {})["current"]["at1"] == 0.0


def test_entity_list_share_counts_names_and_handles(small: Dataset) -> None:
    listing = json.dumps({"entities": [{"name": "Alice Chen"}, {"name": "ATLAS"}, {"more": [{"name": "王芳"}]},
                                       {"name": "Alice"}]})   # "atlas" is Project Atlas's @handle; "Alice" is neither
    asked = [q for q in small.questions if q.kind == ENTITY]
    assert listed_share(small, listing) == round(3 / len(asked), 4)
    assert listed_share(small, None) is None and listed_share(small, "not json") == 0.0


def test_small_run_end_to_end_through_memoryd(small: Dataset, tmp_path: Path) -> None:
    res = benchmark(small, tmp_path, recall=False)
    ids = {i.id for i in small.inputs}
    ranks = res["rankings"]
    assert set(ranks["memoryd"]) == set(ranks["bm25"]) == {q.id for q in small.questions}
    assert all(r is None or r in ids for rs in ranks["memoryd"].values() for r in rs)
    assert sum(bool(r) for r in ranks["memoryd"].values()) >= 0.9 * len(small.questions)
    facts = {i.id: i.fact for i in small.inputs}
    dup = [len([facts[i] for i in r[:5] if facts[i]]) != len({facts[i] for i in r[:5] if facts[i]})
           for r in ranks["bm25"].values()]
    assert res["scores"]["bm25"]["duplicate_share"] == pytest.approx(sum(dup) / len(dup), abs=1e-4)
    runs = res["consolidation"]["runs"]
    assert [r["day"] for r in runs] == [6, 13, 20] and res["consolidation"]["new"] == sum(r["new"] for r in runs)
    assert res["held"]["after"] == runs[-1]["after"] and res["held"]["before"] >= res["consolidation"]["new"]
    assert 0 < res["held"]["after"] and res["held"]["texts"] == len(small.inputs)
    assert res["memoryd"]["module"] and res["memoryd"]["ingest_s"] > 0
    printed = report(res)
    for row in ("top-5 lists holding a duplicate", "current value at rank 1", "a stale value above the current",
                "entity questions answered", "memories held per 100 texts", "per 1,000 new memories"):
        line = next(ln for ln in printed.splitlines() if row in ln)
        assert "bm25" in printed.splitlines()[3] and len(line.split()) > len(row.split())
    assert f"{res['held']['per_100_after']:.1f}" in printed and "What each number is:" in printed
    home = tmp_path / "home"
    assert (tmp_path / "openclaw" / "workspace" / "memory").is_dir() and any(home.rglob("*.json"))
    if res["memoryd"]["entity_command"]:   # an installed memoryd with `entity show`: one page per asked entity
        assert res["scores"]["memoryd"]["entity"]["by_page"] is not None
    else:
        assert res["scores"]["memoryd"]["entity"]["by_page"] is None


def test_main_prints_json_and_keeps_the_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--small", "--json", "--no-recall", "--no-pages", "--every", "10", "--today", "2026-03-01",
                 "--out", str(tmp_path)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out) >= {"dataset", "memoryd", "scores", "held", "consolidation", "recall"} and out["recall"] is None
    assert [r["day"] for r in out["consolidation"]["runs"]] == [9, 19, 20]
    assert set(out["scores"]) == {"memoryd", "bm25"}
    kept = json.loads((tmp_path / "dataset.json").read_text(encoding="utf-8"))
    assert kept["today"] == "2026-03-01" and len(kept["inputs"]) == out["dataset"]["inputs"]
    assert (tmp_path / "results.json").is_file()
    with pytest.raises(SystemExit):
        main(["--every", "0"])


def test_recall_row_is_bench_recalls_own_json() -> None:
    row = systems.run_recall("2026-03-01")
    assert "error" not in row, row
    assert row["questions"] > 0 and 0 <= row["memoryd_r5"] <= 1 and 0 <= row["bm25_porter_r5"] <= 1
