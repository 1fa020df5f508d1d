"""retrieve filters: by @entity and by date range (facts from daily notes carry both)."""
from __future__ import annotations

from pathlib import Path

import pytest

from memhelp import AgentMemory
from memoryd.tiers.ingest.dailynotes import ingest
from memoryd.tiers.base.errors import UsageError
from memoryd.tiers.retrieval.filters import Filters

NOTE_1 = """# 2026-03-01

## Retain
- W @Peter: Peter moved the billing service to Postgres 16
- O(c=0.9) @Anna: Anna prefers short standups
"""
NOTE_2 = """# 2026-03-05

## Retain
- W @Peter: Peter owns the on-call rotation for billing
"""


@pytest.fixture(autouse=True)
def keyword_mode(monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests pin keyword mode's exact answers (hybrid also returns the nearest in meaning:
    tests/tiers/retrieval/test_hybrid.py checks that the filters hold there too)."""
    monkeypatch.setenv("MEMORYD_RETRIEVAL_MODE", "keyword")


@pytest.fixture
def mem(config) -> AgentMemory:
    notes = Path(config.workspace) / "memory"
    (notes / "2026-03-01.md").write_text(NOTE_1, encoding="utf-8")
    (notes / "2026-03-05.md").write_text(NOTE_2, encoding="utf-8")
    m = AgentMemory(config, "default")
    ingest(m, Path(config.workspace), all_=True)
    return m


def test_entity_filter_with_and_without_query(mem: AgentMemory) -> None:
    about_peter = mem.retrieve("", filters=Filters(entity="@Peter"))
    assert len(about_peter) == 2 and all("Peter" in r["text"] for r in about_peter)
    billing_anna = mem.retrieve("billing", filters=Filters(entity="Anna"))
    assert billing_anna == []
    anna = mem.retrieve("standups", filters=Filters(entity="anna"))
    assert len(anna) == 1 and "standups" in anna[0]["text"]


def test_date_range_filter_uses_the_note_date(mem: AgentMemory) -> None:
    early = mem.retrieve("billing", filters=Filters.from_params({"since": "2026-03-01", "until": "2026-03-02"}))
    assert len(early) == 1 and "Postgres" in early[0]["text"]
    late = mem.retrieve("", filters=Filters.from_params({"since": "2026-03-03"}))
    assert [("on-call" in r["text"]) for r in late] == [True]


@pytest.mark.parametrize("params", [{"since": "03/01/2026"}, {"since": "2026-03-05", "until": "2026-03-01"}])
def test_bad_dates_are_refused(params: dict) -> None:
    with pytest.raises(UsageError):
        Filters.from_params(params)
