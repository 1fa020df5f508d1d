"""A memory that only asks ranks below one that states something, for a question; nothing is dropped."""
from __future__ import annotations

from pathlib import Path

import pytest

from memhelp import memory_with_said
from memoryd.tiers.retrieval.asks import asks_only, is_question


@pytest.mark.parametrize("text", [
    "Wait, any news about the greenhouse?", "Nice! Where is it?", "Deven: so what's the new gate code?",
    "Noted. And the landlord's email?", "你们定好日子了吗？", "Assistant: Wonderful! Did they send the lease yet?"])
def test_a_memory_of_questions_and_filler_only_asks(text: str) -> None:
    assert asks_only(text)


@pytest.mark.parametrize("text", [
    "The greenhouse gate code is 5183.", "Deven: moved the gate code to 5183. can you remember it?",
    "Assistant: Slanted roofs shed snow well. How far is the walk from there?", "Oh no! Good luck with the trip!",
    "门禁密码改成5183了", "Deven: why not"])
def test_a_memory_that_states_something_does_not_only_ask(text: str) -> None:
    assert not asks_only(text)


def test_what_is_a_question() -> None:
    assert is_question("What is the gate code?") and is_question("gate code?") and is_question("门禁密码是多少")
    assert not is_question("gate code")


def test_for_a_question_a_statement_ranks_above_a_memory_that_only_asks(home: Path) -> None:
    said = [("Deven: and the greenhouse gate code?", "2025-06-01"),
            ("Deven: greenhouse gate code is 5183 now", "2025-06-01")]
    mem = memory_with_said(said)
    try:
        plain = [r["text"] for r in mem.retrieve("greenhouse gate code", 5)]
        assert plain[0] == said[0][0]                  # not a question: the plain BM25 order (more of the words)
        asked = mem.retrieve("What is the greenhouse gate code?", 5)
        assert [r["text"] for r in asked] == [said[1][0], said[0][0]]   # the question: the answer first, both kept
        assert asked[1]["ranking"]["time_rule"] < 1.0
    finally:
        mem.archive.close()
