"""The hand-written corpus (bench/corpus): every file parses and holds what FORMAT.md asks, and the test half lived
through memoryd's public operations (daily notes, OpenClaw transcripts, store calls, daily consolidations) leaves the
knowledge layer right or silent: every automatic action it took is a right one, no true fact is hidden, MEMORY.md
shows no replaced value, and the answers are no worse than with the layer off. No person or value of the corpus is
named here: the figures come from the files' own tags."""
from __future__ import annotations

import sys
import zlib
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # bench/ is not installed: run from the checkout

from bench.corpus.cli import MINIMUM  # noqa: E402
from bench.corpus.parse import CorpusError, parse  # noqa: E402
from bench.corpus.pool import scored_many  # noqa: E402
from bench.corpus.run import files  # noqa: E402
from bench.corpus.score import Matcher, entities, pair_right, swaps, total  # noqa: E402
from bench.corpus.truth import Truth  # noqa: E402

ACTIONS = ("supersede", "update", "merge", "swap_in")


def test_every_corpus_file_holds_what_the_format_asks() -> None:
    every = files("all", [])
    assert {"dev", "test"} <= {parse(p).split for p in every} <= {"dev", "test", "held"}
    for path in every:
        truth = Truth(parse(path))
        truth.check()
        counts = truth.counts()
        assert all(counts[k] >= v for k, v in MINIMUM.items()), (path.name, counts)


def test_a_tag_whose_value_is_not_in_its_line_is_refused(tmp_path: Path) -> None:
    bad = tmp_path / "bad.convo"
    bad.write_text("# owner: Someone Else\n# split: dev\n@topic city | owner | stable | Where?\n"
                   "== 2026-07-02 09:15 chat notes\nU: We live by the sea.  {city=Inland}\n", encoding="utf-8")
    with pytest.raises(CorpusError, match="bad.convo:5: 'Inland' is not in the line"):
        parse(bad)


def test_an_entity_is_judged_without_article_or_title_and_an_undeclared_name_said_twice_is_wrong(
        tmp_path: Path) -> None:
    path = tmp_path / "pub.convo"
    path.write_text("# owner: Someone Else\n# split: dev\n@entity The Anchor | place | the Anchor\n"
                    "@entity Mr Quillet | person | Mr Quillet\n"
                    "== 2026-07-02 09:15 chat notes\nU: quiz night at the Anchor with Tamsin and Mr Quillet\n"
                    "U: Tamsin won again\n", encoding="utf-8")
    judged = entities(["Anchor", "@The Anchor", "Tamsin", "Quillet"], parse(path))
    assert (judged["entities_listed"], judged["entities_unjudged"], judged["entity_precision"]) == (4, 0, 0.75)
    assert judged["entity_recall"] == 1.0


@pytest.mark.parametrize("declared, said, listed", [
    # the owner's own family word is judged as the alias written without `my`
    (("Orla Threlkeld | person | Dad", "林知夏 | person | 老婆"), "my dad rang, and 我老婆 says hi", ["my dad", "我老婆"]),
    (("岑立山 | person | 爹", "岑小满 | person | 闺女"), "俺爹来了，俺闺女也在", ["俺爹", "俺闺女"]),  # 俺: the northern 我
    # `anh Khuê` is Khuê as `Mr Quillet` is Quillet; a firm called `Pellow's` is Pellow
    (("Võ Khuê | person | anh Khuê", "Pellow & Sons | org | Pellow's"), "anh Khuê rang, Pellow's van is late",
     ["Khuê", "Pellow"]),
    # a word of respect after a name is folded as Mr before one (`Tirupati garu` is Tirupati)
    (("Venkata Tirupati | person | Tirupati garu",), "Tirupati garu rang about the lease", ["Tirupati"]),
    # ... but not where the name without it is another declared one: a garage called after its owner
    (("Quill Dorran | person | Dorran", "Hask Motors | org | Dorran's"), "Dorran's has the car, Dorran says hi",
     ["Dorran", "Dorran's"]),
])
def test_a_name_is_judged_without_my_a_kin_title_or_a_possessive(tmp_path: Path, declared: tuple[str, ...],
                                                                  said: str, listed: list[str]) -> None:
    path = tmp_path / "names.convo"
    path.write_text("# owner: Someone Else\n# split: dev\n" + "".join(f"@entity {d}\n" for d in declared)
                    + f"== 2026-07-02 09:15 chat notes\nU: {said}\n", encoding="utf-8")
    judged = entities(listed, parse(path))
    assert (judged["entity_precision"], judged["entity_recall"]) == (1.0, 1.0)


def test_an_untagged_echo_of_the_value_then_is_judged_by_that_value(tmp_path: Path) -> None:
    """A newer line changing a topic changes an older line that states the topic's value of its time word for word,
    tagged or not (a writer may leave an assistant's echo untagged); a line without that value is not changed."""
    path = tmp_path / "echo.convo"
    path.write_text("# owner: Someone Else\n# split: dev\n@topic pool_day | owner | changes | Which day is the pool?\n"
                    "== 2026-07-02 09:15 chat notes\nU: the pool is on Tuesdays  {pool_day=Tuesday=Tuesdays}\n"
                    "A: Tuesdays at the pool, noted.\nA: Enjoy the swim!\n"
                    "U: pool moved from Tuesdays to Thursdays  {pool_day=Thursday=Thursdays}\n", encoding="utf-8")
    conv = parse(path)
    truth, (said, echo, filler, moved) = Truth(conv), conv.turns
    assert pair_right(said, moved, truth) and pair_right(echo, moved, truth)
    assert not pair_right(filler, moved, truth) and not pair_right(moved, echo, truth)


def test_a_placement_is_judged_by_what_its_lines_state_tagged_or_echoed(tmp_path: Path) -> None:
    """A placed line right when it states the current value (its tag, or an untagged echo of the value it had
    then, word for word) and the line it is placed above does not; wrong above a line already stating it."""
    path = tmp_path / "placed.convo"
    path.write_text("# owner: Someone Else\n# split: dev\n@topic kiln_temp | owner | changes | How hot is the kiln?\n"
                    "@topic glaze | owner | changes | Which glaze?\n== 2026-07-02 09:15 chat notes\n"
                    "U: kiln runs at 1180 degrees  {kiln_temp=1180}\n"
                    "U: kiln up from 1180 to 1220 now  {kiln_temp=1220}\n"
                    "A: glaze swapped to matte; at 1220 degrees it should hold  {glaze=matte}\n"
                    "A: at 1220 it fires in nine hours\n", encoding="utf-8")
    conv = parse(path)
    truth, match = Truth(conv), Matcher(conv, {})
    q = next(q for q in truth.questions() if q.topic == "kiln_temp")
    mem = [{"id": str(n), "text": t.text} for n, t in enumerate(conv.turns)]

    def judged(placed: int, above: int) -> int:
        hit = dict(mem[placed], stages=[{"stage": "current", "current_of": str(above)}])
        return swaps([q], {q.id: [hit]}, mem, match, truth)["swap_in_right"]

    assert judged(1, 0) == 1 and judged(2, 0) == 1  # tagged; an echo tagged only with another fact
    assert judged(3, 0) == 1 and judged(2, 1) == 0 and judged(0, 3) == 0


@pytest.fixture(scope="module")
def test_half(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict]:
    out, roots = _lived(files("test", []), tmp_path_factory)
    out["homes"] = [root / "home" for root in roots["on"]]  # type: ignore[assignment]
    return out


def _lived(paths: list[Path], tmp: pytest.TempPathFactory, sides: tuple[str, ...] = ("on", "off")
           ) -> tuple[dict[str, dict], dict[str, list[Path]]]:
    """Every file lived on each side (the layer on, off; a process per core), totalled per side; and each run's
    root."""
    layer = {side: side == "on" for side in sides}
    jobs = [(path, tmp.mktemp(f"{path.stem}-{side}"), layer[side]) for path in paths for side in sides]
    rows = scored_many(jobs)
    return ({k: total([r for r, job in zip(rows, jobs) if job[2] is on]) for k, on in layer.items()},
            {k: [job[1] for job in jobs if job[2] is on] for k, on in layer.items()})


@pytest.mark.xdist_group("corpus-test-half")  # one worker lives the files once for every test of them
def test_every_automatic_action_on_the_test_half_is_right(test_half: dict[str, dict]) -> None:
    on = test_half["on"]
    for action in ACTIONS:
        if on.get(action):
            assert on[f"{action}_precision"] >= 0.95, (action, on[action], on[f"{action}_right"])
    assert on["true_fact_hidden"] == 0
    if on.get("hot_lessons"):
        assert on["hot_lesson_precision"] >= 0.95


@pytest.mark.xdist_group("corpus-test-half")  # one worker lives the files once for every test of them
def test_memory_md_holds_no_stale_values_and_no_more_foreign_profile_keys_than_measured(
        test_half: dict[str, dict]) -> None:
    """Issue 29's goal is none: no earlier value in hot, owner-profile precision ≥ 0.95. Not met: 1 key on the test
    half that is no tagged owner fact (before: 2, and 3 before the second session's hot rules); 1 event holding an
    earlier value (seen since the benchmark runs on the conversation's own clock: on the calendar's, every event
    of these months had passed and left hot; the layer off shows it too). This holds that line."""
    on = test_half["on"]
    assert on["hot_stale_values"] <= 1
    assert on.get("owner_profile", 0) - on.get("owner_profile_right", 0) <= 1


@pytest.mark.xdist_group("corpus-test-half")  # one worker lives the files once for every test of them
def test_entities_on_the_test_half_meet_the_issues_goals(test_half: dict[str, dict]) -> None:
    """#29: precision ≥ 0.95, recall ≥ 0.85 of the people, projects and organisations (0.930 / 0.760 before the
    sixth session; 0.968 / 0.882 after it)."""
    on = test_half["on"]
    assert on["entity_precision"] >= 0.95 and on["entity_recall_core"] >= 0.85, on


@pytest.mark.xdist_group("corpus-test-half")  # one worker lives the files once for every test of them
def test_the_layer_does_no_harm_on_the_test_half(test_half: dict[str, dict]) -> None:
    on, off = test_half["on"], test_half["off"]
    assert on["current_at_1"] >= off["current_at_1"]
    assert on["stale_above"] <= off["stale_above"]
    assert on["stable_recall5"] >= off["stable_recall5"]
    assert on["duplicate_top5"] <= off["duplicate_top5"]


@pytest.mark.xdist_group("corpus-test-half")  # one worker lives the files once for every test of them
def test_memory_md_after_the_test_half_is_written_and_private(test_half: dict[str, dict]) -> None:
    for home in test_half["homes"]:
        rendered = home / "agents" / "main" / "MEMORY.md"
        assert rendered.exists() and rendered.stat().st_mode & 0o077 == 0


@pytest.fixture(scope="module")
def held(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict]:
    """Half the held files, lived with the layer on: written after the rules by engineers who had read neither them
    nor the other files. Half, fixed by name (`suite_half`): all 130 cost the suite's longest setup (~270 s of ~570)
    and each new batch adds to it; the benchmark (`python -m bench.corpus run --split held`) lives every one, on both
    sides, for every closing note. The layer off is not lived here either (it doubled that setup); the test half
    above compares the two sides live."""
    return _lived(suite_half(files("held", [])), tmp_path_factory, sides=("on",))[0]


def suite_half(paths: list[Path]) -> list[Path]:
    """The held files whose name's CRC-32 is even: a half fixed by name, not by batch, so that every batch and
    language lands in it by chance, and a file added later never moves another out."""
    return [p for p in paths if zlib.crc32(p.stem.encode()) % 2 == 0]


@pytest.mark.xdist_group("corpus-held")  # one worker lives the files once for every test of them
def test_on_the_held_files_the_layer_hides_no_fact_and_holds_its_measured_answers(held: dict[str, dict]) -> None:
    """Issue 29's goals: no true fact hidden, no earlier value in MEMORY.md, precision ≥ 0.95 for what the layer
    writes into hot. Measured over the suite's half of the held files (68 of 134, the thirty-third batch included;
    with the thirty-fourth batch's two, 70 of 138: 0.725, 0.144, 0.928, 0.524, earlier values in hot 31, wrong
    updates 2),
    layer on / off: current value at 1 0.727 / 0.623, stale above 0.143 / 0.254, stable recall@5 0.934 / 0.931,
    duplicates in a top 5 0.535 / 0.555, earlier values in hot 30 / 37 (events moved in words no rule reads, lessons
    kept as said that name a value replaced later; the layer off holds them too). All 134: 0.726 / 0.625, 0.156 /
    0.260. The answers are held at their measured line, which sits well above the layer off (a line the layer off
    would pass lets a rule lose several answers unseen); the history of each figure is in docs/BENCHMARKS.md."""
    on = held["on"]
    assert on["true_fact_hidden"] == 0 and on["hot_stale_values"] <= 31
    if on.get("hot_lessons"):
        assert on["hot_lesson_precision"] >= 0.95, (on["hot_lessons"], on["hot_lessons_right"])
    if on.get("supersede"):
        assert on["supersede_right"] >= 0.95 * on["supersede"], (on["supersede"], on["supersede_right"])
    assert on["current_at_1"] >= 0.727 - 0.01 and on["stale_above"] <= 0.143 + 0.01, on
    assert on["stable_recall5"] >= 0.934 - 0.01 and on["duplicate_top5"] <= 0.535 + 0.01, on


@pytest.mark.xdist_group("corpus-held")  # one worker lives the files once for every test of them
def test_on_the_held_files_wrong_updates_and_placements_stay_at_the_measured_line(held: dict[str, dict]) -> None:
    """Issue 29's goal is precision ≥ 0.95 for every action. Over the suite's half of the held files: supersessions
    34 (34 right), updates 198 (196), placements at retrieve 15 (15); over all 134: 54 (54), 415 (411), 28 (27). The
    updates and the placements judged wrong are right in fact, each with a line its writer left untagged, which the
    judge cannot read as stating the value (a price's change said as `由<old>加到<new>`, a roster's plan line, a
    database's change told by the assistant beside a host's), or a newer value of a recurring appointment placed
    above the one it moved while a later one went unread. Each batch is scored blind by the previous main's rules
    before any rule reads it; a wrong action it shows is made silent by a rule written on invented sentences and
    measured over every file, or named here (the history of each is in docs/BENCHMARKS.md). This holds that line:
    one more fails it."""
    on = held["on"]
    wrong_supersede, wrong_update = on["supersede"] - on["supersede_right"], on["update"] - on["update_right"]
    assert wrong_supersede == 0 and wrong_update <= 2, (wrong_supersede, wrong_update)
    assert on["swap_in"] - on["swap_in_right"] == 0
