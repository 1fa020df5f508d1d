"""The gated regexes (importance, the fact rules, hedges, change triggers) find exactly what running every
regex found.

A gate skips a regex search when none of the regex's needles is in the text; a gate set finds the needles of
many gates in one pass (an Aho-Corasick automaton). Each reference below runs every regex on every text, as
the code did before the gates; the texts are the speed-up corpus (speedup_corpus.py) and hypothesis texts.
"""
from __future__ import annotations

import functools
import re
from typing import Any

from hypothesis import given, settings, strategies as st

from memoryd.tiers.distillation import distill as D
from memoryd.tiers.distillation.rxgate import Gated
from speedup_corpus import CORPUS, WORDS


# --- gated regexes (importance, fact rules): a skipped search is one that finds nothing ---------
def _gates() -> list[tuple[str, Any]]:
    from memoryd.tiers.distillation import fact_rules as F
    from memoryd.tiers.distillation import importance as I
    from memoryd.tiers.knowledge import change, classify

    found = [(f"importance.{n}", g) for n, _, g in I._INTRINSIC_RX + I._NEGATED_RX + I._EXPLICIT_RX + I._CONTENT_RX]
    found.append(("importance.temporary", I._TEMPORARY_RX))
    found += [(f"fact_rules.{n}", getattr(F, n)) for n in dir(F) if isinstance(getattr(F, n), Gated)]
    found += [(f"classify.hedge{i}", g) for i, (g, _) in enumerate(classify._HEDGES)]
    found.append(("change.trigger", change._any_trigger()))
    return found


def _same_search(gate: Any, text: str) -> None:
    got, want = gate.search(text), gate.rx.search(text)
    assert (got and got.span()) == (want and want.span()), (gate.rx.pattern, text)


def test_gated_searches_find_what_the_regex_finds() -> None:
    gates = _gates()
    assert len(gates) > 25 and sum(g.needles is not None for _, g in gates) > 25  # the gates are in use
    for text in CORPUS:
        for variant in (text, text.lower(), text.upper()):
            for _, gate in gates:
                _same_search(gate, variant)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(WORDS + ["my name is", "remind me to", "tomorrow", "Dec 4", "2025-01-02", "12月4日",
                                         "decided to", "lesson:", "我叫", "过敏", "$5", "3 usd", "v1.2.3", "never ever run"])
                | st.text(max_size=5), max_size=10), st.sampled_from([" ", "", "-"]))
def test_generated_gated_searches_are_the_same(parts: list[str], sep: str) -> None:
    text = sep.join(parts)
    for _, gate in _gates():
        for variant in (text, text.lower()):
            _same_search(gate, variant)


TRICKY = [r"x(?i:abc)", r"(?i)ſs", r"(?i)\u212a", r"(?i)k", r"(?i)paſs", r"um+|s?x", r"(?i)[kſ]", r"a(?-i:B)c",
          r"(?i)a(?-i:B)c", r"(?:ab|cd)+e", r"(?:ab|)c", r"[?？]\s*$", r"\bfoo\b(?=bar)bar", r"(a)\1b", r"(?x) a b "]


FOLDS = ["ſſ", "paſs", "PAſS", "xABC", "xabc", "aBc", "abc", "\u212a", "k", "K", "İ", "ı", "foobar", "abab e", "c", "ab?"]


def test_needles_never_skip_a_match_on_case_folds() -> None:
    for pattern in TRICKY:
        for text in FOLDS:
            _same_search(Gated(re.compile(pattern)), text)
            _same_search(Gated(re.compile(pattern, re.IGNORECASE)), text)


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(TRICKY), st.text(alphabet="abcdeksxABCKSX?？ ſ\u212aİı", max_size=8))
def test_needles_never_skip_a_match(pattern: str, text: str) -> None:
    _same_search(Gated(re.compile(pattern)), text)
    _same_search(Gated(re.compile(pattern, re.IGNORECASE)), text)


# --- gate sets: one pass over a text's needles for many gates -------------------------------------
def _gate_sets() -> list[Any]:
    from memoryd.tiers.distillation import fact_rules as F
    from memoryd.tiers.distillation import importance as I
    from memoryd.tiers.knowledge import change, classify

    return [I._GATES, F.GATES, D._FILLER_GATES]


@functools.lru_cache(maxsize=1)
def _plain_sets() -> list[Any]:
    """The same gate sets with their needles tested one by one (no automaton)."""
    from memoryd.tiers.distillation.rxgate import GateSet

    return [GateSet(gates.members, automaton=False) for gates in _gate_sets()]


def _same_scan(text: str) -> None:
    for gates, plain in zip(_gate_sets(), _plain_sets()):
        scan = gates.scan(text)
        for gate in sorted(gates.members, key=lambda g: g.rx.pattern):
            got, want = scan.search(gate), gate.rx.search(text)
            assert (got and got.span()) == (want and want.span()), (gate.rx.pattern, text)
        assert scan.open == plain.scan(text).open, text


def test_the_needles_are_found_by_the_automaton() -> None:
    for gates in _gate_sets():  # pyahocorasick is a dependency: a failed import must not pass unseen
        assert gates.fold_finder is not None or gates.raw_finder is not None
    assert all(plain.fold_finder is None and plain.raw_finder is None for plain in _plain_sets())


def test_scans_find_what_each_regex_finds() -> None:
    assert sum(len(g.members) for g in _gate_sets()) > 40
    for text in CORPUS:
        for variant in (text, text.lower(), text.upper()):
            _same_scan(variant)
    outsider = Gated(re.compile("(?i)zebra"))  # not in the set: its own check, never a closed gate
    assert _gate_sets()[0].scan("a Zebra").search(outsider)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(WORDS + ["my name is", "remind me to", "tomorrow", "Dec 4", "2025-01-02", "12月4日",
                                         "not important", "don't remember", "不重要", "$5", "3 usd", "v1.2.3"])
                | st.text(max_size=5), max_size=10), st.sampled_from([" ", "", "-"]))
def test_generated_scans_are_the_same(parts: list[str], sep: str) -> None:
    text = sep.join(parts)
    _same_scan(text)
    _same_scan(text.lower())
    assert _importance_of(text) == ref_rule_importance(text)


def _importance_of(text: str) -> Any:
    from memoryd.tiers.distillation.importance import rule_importance

    return rule_importance(text, "notes")


def ref_rule_importance(text: str) -> tuple[float, list[str]]:
    """rule_importance with every regex run on the (masked) text, as before gates."""
    from memoryd.tiers.distillation import importance as I

    text = text.lower()
    best, kind = -1.0, ""
    for name, value, g in I._INTRINSIC_RX:
        if value > best and g.rx.search(text):
            best, kind = value, name
    if best < 0:
        best, kind = (I.TEMPORARY, "temporary") if I._TEMPORARY_RX.rx.search(text) else (I.DEFAULT, "general")
    reasons, score, masked, explicit, content = [f"intrinsic:{kind}={best:g}"], best, text, False, 0.0
    for name, delta, g in I._NEGATED_RX:
        if g.rx.search(masked):
            score, masked = score + delta, g.rx.sub(" ", masked)
            reasons.append(f"signal:{name}{delta:+g}")
    for name, delta, g in I._EXPLICIT_RX:
        if g.rx.search(masked):
            score, explicit = score + delta, explicit or delta > 0
            reasons.append(f"signal:{name}{delta:+g}")
    for name, delta, g in I._CONTENT_RX:
        if g.rx.search(masked):
            content += delta
            reasons.append(f"content:{name}+{delta:g}")
    score += min(content, I.CONTENT_CAP)
    if len(text.strip()) < I.SHORT_CHARS and best == I.DEFAULT and not explicit:
        score *= 0.5
        reasons.append("short:x0.5")
    return round(min(1.0, max(I.FLOOR, score)), 3), reasons


def test_importance_is_the_same_as_running_every_regex() -> None:
    masked = ["This is not important: remember the deploy", "不重要，记住 v1.2.3", "Not important. FYI $5"]
    for text in CORPUS + masked:
        assert _importance_of(text) == ref_rule_importance(text), text


def ref_classify(sentence: str, has_date: bool) -> str | None:
    """fact_rules.classify with every regex run, as before gates (the standing cues too: a preference the kind
    words do not name)."""
    from memoryd.tiers.distillation import fact_rules as F
    from memoryd.tiers.distillation.standing import _rules

    if F._QUESTION.rx.search(sentence) or len(sentence) < 6 or F._NOT_A_FACT.rx.search(sentence):
        return None
    kind = next((kind for kind, g, needs_date in F._ORDER if (has_date or not needs_date) and g.rx.search(sentence)),
                None)
    return "preference" if kind in (None, "fact") and _rules().cues.search(sentence.strip()) else kind


def test_classify_is_the_same_as_running_every_regex() -> None:
    from memoryd.tiers.distillation.fact_rules import classify

    kinds = set()
    for text in CORPUS:
        for variant in (text, text.upper()):
            for has_date in (False, True):
                got = classify(variant, has_date)
                assert got == ref_classify(variant, has_date), (variant, has_date)
                kinds.add(got)
    assert len(kinds) >= 6  # the corpus reaches most kinds


def test_the_cue_gates_a_data_file_extends_stay_closed() -> None:
    """A pattern added to a cue file (lang/lessons.json) with no literal outside its lookaheads would open the gate
    of every built-in cue of its kind: each sentence of every note searched again (a year of notes ingested 40%
    slower when one did)."""
    from memoryd.tiers.distillation import fact_rules

    for name in ("_LESSON", "_DECISION", "_TASK"):
        assert getattr(fact_rules, name).needles is not None, name
