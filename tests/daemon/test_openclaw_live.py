"""The daemon's pass on each OpenClaw write (close_open=False): the open segment's turns go to cold raw at once,
each once, and closing the segment later distils it without a second copy in cold."""
from __future__ import annotations

from pathlib import Path

import pytest

from memoryd.daemon.engine import Engine
from memoryd.daemon.ops_openclaw import openclaw_sync
from memoryd.tiers.base.config import load_config
from openclaw_fixture import DB_REL, append_events, copy_state, session_id, user_message


@pytest.fixture
def engine(home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    state = copy_state(tmp_path / "openclaw-state")
    monkeypatch.setenv("OPENCLAW_STATE_DIR", str(state))
    monkeypatch.delenv("MEMORYD_WORKSPACE")
    monkeypatch.setenv("MEMORYD_RETRIEVAL_MODE", "keyword")
    import os

    e = Engine(load_config(dict(os.environ)))
    yield e, state / DB_REL
    e.close()


def _pass(engine: Engine, close: bool) -> dict:
    return openclaw_sync(engine, {"agent_id": "main", "openclaw_agent": "main", "close_open": close,
                                  "parts": ["store"]})["agents"][0]


def _cold(engine: Engine, needle: str) -> list[str]:
    with engine.memory("main") as mem:
        return [r[0] for r in mem.archive.read("SELECT text FROM memories WHERE agent_id = 'main'") if needle in r[0]]


def test_open_turns_go_to_cold_raw_once_and_the_close_adds_no_copy(engine) -> None:
    engine, db = engine
    first = _pass(engine, False)
    assert first["segments"] == 2 and first["live"] > 0  # the resets closed two; the open tail is raw in cold
    append_events(db, session_id(db), [user_message("The quokka enclosure opens on the ninth of March.")])
    again = _pass(engine, False)
    assert again["live"] == 1 and again["segments"] == 0 and again["warm"] == 0
    assert _cold(engine, "quokka") == ["The quokka enclosure opens on the ninth of March."]
    assert "live" not in _pass(engine, False)  # nothing new: nothing put again
    closed = _pass(engine, True)
    assert closed["segments"] == 1
    assert len(_cold(engine, "quokka")) == 1  # the same content id: one memory
    assert "live" not in _pass(engine, False)
