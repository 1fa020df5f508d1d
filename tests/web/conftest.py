"""Fixtures of the web view's tests: a seeded home and a real server on a free loopback port."""
from __future__ import annotations

import os
from typing import Iterator

import pytest

from memoryd.daemon.web.server import WebServer
from memoryd.tiers.base.config import Config, load_config
from webhelp import Session, seed


@pytest.fixture
def kw_config(home, monkeypatch: pytest.MonkeyPatch) -> Config:
    """keyword retrieval: the handler tests need no embedding model (the browser test runs hybrid)."""
    monkeypatch.setenv("MEMORYD_RETRIEVAL_MODE", "keyword")
    os.makedirs(os.environ["OPENCLAW_STATE_DIR"], exist_ok=True)  # a healthy home: a missing one is a warning
    return load_config(dict(os.environ))


@pytest.fixture
def seeded(kw_config: Config) -> dict:
    return seed(kw_config)


def _serve(config: Config, edits: bool) -> Iterator[tuple[WebServer, Session]]:
    server = WebServer(config, 0, allow_edits=edits).start()
    try:
        yield server, Session(server.url)
    finally:
        server.stop()


@pytest.fixture
def web(kw_config: Config, seeded: dict) -> Iterator[tuple[WebServer, Session]]:
    """A read-only web view (the default) over the seeded home; the session is not logged in yet."""
    yield from _serve(kw_config, False)


@pytest.fixture
def web_edit(kw_config: Config, seeded: dict) -> Iterator[tuple[WebServer, Session]]:
    """A web view with [web] allow_edits = true."""
    yield from _serve(kw_config, True)
