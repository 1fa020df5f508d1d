"""Daily notes parsed: timed sections and `## Retain` lines become typed, sourced facts."""
from __future__ import annotations

from pathlib import Path

import pytest

from daily_note_samples import EN_NOTE, ZH_NOTE
from memoryd.tiers.base.errors import UsageError
from memoryd.tiers.ingest.note_fact import NoteFact
from memoryd.tiers.ingest.note_parse import parse_note


def facts_by_line(text: str, date: str = "2026-02-18") -> dict[int, NoteFact]:
    facts, _ = parse_note(text, date)
    return {f.line: f for f in facts}


def test_timed_sections_become_facts_with_time() -> None:
    facts = facts_by_line(EN_NOTE)
    api = facts[4]
    assert api.text == ("Discussed REST vs GraphQL. Decision: use REST to keep it simple. "
                        "Key endpoints: /users, /auth, /projects.")  # the heading is context, not text
    assert (api.time, api.kind, api.section) == ("10:30", "fact", "API discussion")
    assert (api.type, api.category) == ("decision", "decisions")  # the category comes from the content
    assert api.source == "memory/2026-02-18.md#L4"
    assert facts[8].time == "14:15" and "https://prod.example.com" in facts[8].text
    assert facts[10].text == "Call with Bob about pricing" and facts[10].time == "17:00"


def test_retain_lines_are_typed_with_entities_and_sources() -> None:
    facts = facts_by_line(EN_NOTE)
    w, b, o, s = facts[13], facts[14], facts[15], facts[16]
    assert (w.kind, w.entities, w.category) == ("world", ["Peter"], "bank/world")
    assert w.text.startswith("@Peter: Currently in Marrakech") and w.time is None
    assert (b.kind, b.entities) == ("experience", ["warelay"])
    assert (o.kind, o.confidence, o.entities) == ("opinion", 0.95, ["Peter"])
    assert (s.kind, s.entities, s.text) == ("observation", [], "The week was mostly about deployment.")
    assert o.source == "memory/2026-02-18.md#L15"
    assert o.metadata() == {"source": "memory/2026-02-18.md#L15", "kind": "opinion", "entities": ["Peter"],
                            "date": "2026-02-18", "confidence": 0.95, "type": "preference"}


def test_chinese_note() -> None:
    facts, warnings = parse_note(ZH_NOTE, "2026-02-19")
    assert warnings == []
    by_line = {f.line: f for f in facts}
    assert by_line[4].time == "10:30" and by_line[4].text.startswith("讨论了 REST vs GraphQL。")
    assert by_line[4].section == "API 讨论"
    assert by_line[8].time == "16:00"
    assert (by_line[11].kind, by_line[11].entities, by_line[11].confidence) == ("opinion", ["用户"], 0.8)
    assert by_line[12].entities == ["王伟"] and "https://docs.example.cn/deploy" in by_line[12].text


@pytest.mark.parametrize("line,kind,entities,confidence", [
    ("- S Quiet day, mostly reading.", "observation", [], None),
    ("- W @Peter @Castle, @warelay: all three are linked.", "world", ["Peter", "Castle", "warelay"], None),
    ("- B: wrote the release notes for @memoryd", "experience", ["memoryd"], None),
    ("- O(c=0) @Peter: dislikes meetings", "opinion", ["Peter"], 0.0),
    ("- O(c=1.0) @Peter: likes tea", "opinion", ["Peter"], 1.0),
    ("- O @Peter: likes coffee", "opinion", ["Peter"], None),
    ("- plain retained line without a type", "fact", [], None),
    ("- Wednesday was long", "fact", [], None),  # a word starting with W is not a type prefix
])
def test_retain_edge_cases(line: str, kind: str, entities: list[str], confidence: float | None) -> None:
    facts, warnings = parse_note(f"## Retain\n{line}\n", "2026-02-18")
    assert warnings == []
    assert len(facts) == 1
    f = facts[0]
    assert (f.kind, f.entities, f.confidence) == (kind, entities, confidence)
    assert f.source == "memory/2026-02-18.md#L2"


@pytest.mark.parametrize("args", ["c=1.7", "c=-0.1", "conf", "c=abc", "c="])
def test_bad_confidence_warns_and_keeps_a_plain_fact(args: str) -> None:
    facts, warnings = parse_note(f"## Retain\n- O({args}) @Peter: likes tea\n", "2026-02-18")
    assert [(f.kind, f.confidence, f.text, f.entities) for f in facts] == [("fact", None, "@Peter: likes tea", ["Peter"])]
    assert len(warnings) == 1 and "memory/2026-02-18.md#L2" in warnings[0] and "bad confidence" in warnings[0]


def test_retain_line_without_text_is_skipped_with_warning() -> None:
    facts, warnings = parse_note("## Retain\n- W @Peter:\n", "2026-02-18")
    assert facts == [] and "no text" in warnings[0]


def test_bullets_code_blocks_and_continuations() -> None:
    note = ("## 9:00 - Setup\n- installed the CLI\n- second item\n  continued here\n\n"
            "```bash\npip install memoryd\n\nmemoryd init\n```\n")
    facts, _ = parse_note(note, "2026-03-01")
    assert [f.text for f in facts] == ["installed the CLI", "second item continued here",
                                       "```bash\npip install memoryd\n\nmemoryd init\n```"]
    assert {f.section for f in facts} == {"Setup"}
    assert [f.line for f in facts] == [2, 3, 6]


def test_headings_inside_code_are_text_and_bad_times_warn() -> None:
    note = "## 25:99 - Odd\ntext\n```\n## not a heading\n```\n"
    facts, warnings = parse_note(note, "2026-03-01")
    assert facts[0].time is None and "unreadable time" in warnings[0]
    assert len(facts) == 1 and "```\n## not a heading\n```" in facts[0].text


def test_keys_are_stable_and_distinct() -> None:
    a, _ = parse_note(EN_NOTE, "2026-02-18")
    b, _ = parse_note("\n\n" + EN_NOTE, "2026-02-18")  # lines moved: same facts, same keys
    assert [f.key for f in a] == [f.key for f in b]
    assert len({f.key for f in a}) == len(a)
    c, _ = parse_note(EN_NOTE, "2026-02-20")
    assert not {f.key for f in a} & {f.key for f in c}


def test_long_paragraph_is_split_not_refused() -> None:
    facts, _ = parse_note("## Notes\n" + "This is one sentence of a long note. " * 300, "2026-03-01")
    assert len(facts) > 1 and all(len(f.text.encode()) <= 4000 for f in facts)


def test_bad_date_and_unreadable_file(tmp_path: Path) -> None:
    with pytest.raises(UsageError):
        parse_note("x", "2026-02-30")
    with pytest.raises(UsageError):
        parse_note("x", "yesterday")
    bad = tmp_path / "2026-01-01.md"
    bad.write_bytes(b"\xff\xfe\x00bad")
    with pytest.raises(UsageError):
        parse_note(bad, "2026-01-01")
