"""A firm named after a verb of keeping a business (`runs`, `owns`), by a shortened trade word (`Chem`), by letters
before the survey they do, a known delivery brand; a person after `call`, after a question's `did`/`does`, before a
verb only a person does (`drives`, `teaches`); and what stays no one."""
from __future__ import annotations

import pytest

from memoryd.tiers.knowledge.entity_rules import extract


def names(text: str) -> set[str]:
    return {e.name for e in extract(text)}


@pytest.mark.parametrize("text, name", [
    ("my cousin runs Korrimal Kayak, the tourists love him", "Korrimal Kayak"),
    ("she owns Tarnley Pottery down by the wharf", "Tarnley Pottery"),
    ("we get the solvent from Orlen Chem now", "Orlen Chem"),
    ("the hull needs doing before the KMSA survey", "KMSA"),
    ("half our orders come in through Just Eat", "Just Eat"),
    ("can you call Ormond about the ladder?", "Ormond"),
    ("Did Quillan offer to pay for the paint?", "Quillan"),          # a question's auxiliary before a name
    ("Does Sunniva do a sport as well?", "Sunniva"),
    ("and Tavi drives the van on Fridays", "Tavi"),                  # a verb only a person does, in the present
    ("Pelka teaches the beginners now", "Pelka"),
])
def test_a_name_read_from_how_it_is_said(text: str, name: str) -> None:
    assert name in names(text)


@pytest.mark.parametrize("text", [
    "the ferry runs Monday Wednesday Friday",        # days, not a firm
    "I'll call Tuesday about it",
    "he runs Linux on the old laptop",               # one word: a product, not a firm's two names
    "Family helps, but it makes it harder to be strict",  # a common word opening a sentence
    "Does Monday work for you?",
])
def test_what_only_looks_like_one_names_no_one(text: str) -> None:
    assert not names(text) - {"Linux"}
