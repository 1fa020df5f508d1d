"""The libSQL URL a sync benchmark runs against: the one given, else a private sqld on loopback for the run."""
from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path
from typing import Iterator


@contextmanager
def database_url(root: Path, given: str | None) -> Iterator[str]:
    """Yield `given`, or start sqld under `root` and yield its URL (stopped on the way out); print which."""
    server = None
    url = given
    if not url:
        from sqld_server import SqldServer, sqld_binary

        (root / "sqld").mkdir()
        server = SqldServer(sqld_binary(), root / "sqld")
        server.start()
        url = server.http_url
    try:
        print(f"database: {url.split('?')[0]}")
        yield url
    finally:
        if server is not None:
            server.stop()
